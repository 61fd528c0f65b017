/**
 * redisStore's options, and their check at creation: a bad option is refused with a
 * NicepayConfigError naming it before anything connects.
 */
import { NicepayConfigError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';
import { redisClientKind, type RedisStoreClient } from './redis-client.js';

/** Options shared by both ways of giving redisStore a connection. */
export interface RedisStoreCommonOptions {
  /**
   * Prepended to every key the store writes: `${prefix}{${key}}:rec` holds a ledger key's
   * record and `${prefix}{${key}}:lease` its lease; `${prefix}due` indexes the open records by
   * dueAt. The braces are a Redis Cluster hash tag: a key's record and lease live in one slot,
   * so each script runs on one node, and different keys spread over the cluster. Give each
   * shop sharing one Redis database its own prefix. No braces in it (they would change the
   * hash tag).
   * @default 'nicepay:'
   */
  prefix?: string;
  /**
   * Longest wait, in milliseconds, for one store method (its round trips together, including,
   * with `url`, the wait for the first connection; for `due` and `open`, which read as many
   * records as the index lists, for each page of 100 entries). On expiry the method rejects
   * instead of hanging the buyer's request; a lease it still takes afterwards is given back.
   * @default 5000
   */
  commandTimeoutMs?: number;
  /**
   * How many replicas must acknowledge each ledger record the store writes (Redis WAIT on the
   * key's master) before the write counts. Redis replicates asynchronously: without it, a
   * master that fails right after a write may be replaced by a replica that never got it, and
   * the payment that record was about would be forgotten. Set it to the replicas each master
   * has (1 for a Cluster or Sentinel set-up with one replica each); a write not acknowledged in
   * time fails, and the pipeline sends nothing more for it. A master that has fewer replicas
   * online (its replica failed over, or is down) is waited for by those it has: with none, no
   * promotion can lose the write, and nothing is waited for. @default 0 (do not wait)
   */
  waitForReplicas?: number;
}

/** Use a client the application created, connected and will close itself. */
export interface RedisStoreClientOptions extends RedisStoreCommonOptions {
  /**
   * A connected client, passed as it is: node-redis `createClient`, `createCluster` or
   * `createSentinel` (after `await client.connect()`), or ioredis `new Redis(...)` (Sentinel
   * through its `sentinels` option) or `new Cluster(...)`. The kind is told by the client's
   * shape. The store never closes it: `store.close()` leaves it open for the application.
   */
  client: RedisStoreClient;
  url?: never;
  onError?: never;
}

/** Let the store create, connect and close its own client. */
export interface RedisStoreUrlOptions extends RedisStoreCommonOptions {
  /**
   * A `redis://` or `rediss://` URL (`redis://user:password@host:6379/0`). The store loads
   * the optional peer dependency `redis`, connects at once and closes the client in
   * `store.close()`. Pass `client` instead to tune the connection (TLS files, reconnect
   * strategy, Sentinel).
   */
  url: string;
  client?: never;
  /**
   * Receives the owned client's `'error'` events (lost connection, reconnect failures).
   * The operations that fail meanwhile reject on their own.
   * @default a function that ignores the error
   */
  onError?: (err: unknown) => void;
}

/** Options of redisStore: either `client` or `url`, never both. */
export type RedisStoreOptions = RedisStoreClientOptions | RedisStoreUrlOptions;

/** Throws a NicepayConfigError naming the first bad option of `options`. */
export function validateRedisOptions(options: unknown): asserts options is RedisStoreOptions {
  if (!isObject(options)) throw new NicepayConfigError('redisStore options', 'an object with `client` or `url`');
  const { client, url, prefix, commandTimeoutMs, onError, waitForReplicas } = options;
  if (client !== undefined && url !== undefined) {
    throw new NicepayConfigError('client', 'either `client` or `url`, not both');
  }
  if (client === undefined && url === undefined) {
    throw new NicepayConfigError('client', 'a connected node-redis or ioredis client, or pass `url`');
  }
  if (client !== undefined) {
    if (redisClientKind(client) === undefined) {
      throw new NicepayConfigError(
        'client',
        'a connected node-redis or ioredis client (createClient, createCluster, createSentinel, new Redis, new Cluster)',
      );
    }
    if (onError !== undefined)
      throw new NicepayConfigError('onError', 'only used with `url`; listen on your own client');
  }
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = typeof url === 'string' ? new URL(url) : undefined;
    } catch {
      parsed = undefined;
    }
    if (
      parsed === undefined ||
      (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') ||
      parsed.hostname === ''
    ) {
      throw new NicepayConfigError('url', 'a redis:// or rediss:// URL with a host');
    }
    if (onError !== undefined && typeof onError !== 'function') throw new NicepayConfigError('onError', 'a function');
  }
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix.length > 256 || /[\r\n{}]/.test(prefix))) {
    throw new NicepayConfigError('prefix', 'a string of at most 256 characters without line breaks or braces');
  }
  if (
    commandTimeoutMs !== undefined &&
    (typeof commandTimeoutMs !== 'number' ||
      !Number.isInteger(commandTimeoutMs) ||
      commandTimeoutMs < 1 ||
      commandTimeoutMs > 2_147_483_647)
  ) {
    throw new NicepayConfigError('commandTimeoutMs', 'a positive integer number of milliseconds');
  }
  if (
    waitForReplicas !== undefined &&
    (typeof waitForReplicas !== 'number' ||
      !Number.isInteger(waitForReplicas) ||
      waitForReplicas < 0 ||
      waitForReplicas > 16)
  ) {
    throw new NicepayConfigError('waitForReplicas', 'a whole number of replicas from 0 to 16');
  }
}
