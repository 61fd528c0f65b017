/**
 * `express-nicepay/redis`: the idempotency store for shops running several instances.
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { NicepayConfigError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';
import { withTimeout as settleWithin } from '../util/with-timeout.js';
import { redisClientKind, redisSender, type RedisSend, type RedisStoreClient } from './redis-client.js';
import { assertRedisInstalled, loadRedis } from './redis-module.js';
import type { AcquireResult, IdempotencyStore } from './types.js';

export type { IoRedisClient, NodeRedisClient, NodeRedisCluster, NodeRedisSentinel, RedisStoreClient } from './redis-client.js';

/** Options shared by both ways of giving {@link redisStore} a connection. */
export interface RedisStoreCommonOptions {
  /**
   * Prepended to every key the store writes: `${prefix}{${key}}:lock` holds the in-flight
   * lock and `${prefix}{${key}}:result` the cached result. The braces are a Redis Cluster
   * hash tag: both keys of one once-key live in one slot, so each script runs on one node,
   * and different once-keys spread over the cluster. Give each shop sharing one Redis
   * database its own prefix. No braces in it (they would change the hash tag).
   * @default 'nicepay:'
   */
  prefix?: string;
  /**
   * Longest wait, in milliseconds, for one store operation (including, with `url`, the wait
   * for the first connection). On expiry the operation rejects instead of hanging the buyer's
   * request; a lock it may still have taken is freed by its own expiry.
   * @default 5000
   */
  commandTimeoutMs?: number;
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

/** Options of {@link redisStore}: either `client` or `url`, never both. */
export type RedisStoreOptions = RedisStoreClientOptions | RedisStoreUrlOptions;

/** A Lua script and its SHA1, run with EVALSHA and loaded with EVAL when Redis lacks it. */
interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * KEYS[1] lock, KEYS[2] result; ARGV[1] token, ARGV[2] lock TTL in ms.
 * A cached result wins; else the lock is taken with SET NX PX; else the key is busy.
 */
const ACQUIRE = script(`
local value = redis.call('GET', KEYS[2])
if value then return {'done', value} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'acquired'} end
return {'busy'}
`);

/**
 * KEYS[1] lock, KEYS[2] result; ARGV[1] token, ARGV[2] value, ARGV[3] result TTL in ms.
 * Holder of the lock: writes the result and drops the lock (returns 1). Lock expired and
 * nobody took it over: the work was still done, so its result is kept unless a first result
 * is already there (returns 2). Lock held under another token: changes nothing (returns 0).
 */
const COMPLETE = script(`
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  redis.call('DEL', KEYS[1])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3])
return 2
`);

/** KEYS[1] lock; ARGV[1] token. Compare-and-delete: only the holder drops its lock. */
const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * KEYS[1] lock; ARGV[1] token, ARGV[2] lock TTL in ms. Compare-and-expire: only the holder of
 * a live lock renews it (returns 1); an expired, released or taken-over lock stays as it is.
 */
const EXTEND = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

interface OwnedClient {
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy?(): void;
}

function validate(options: unknown): void {
  if (!isObject(options)) throw new NicepayConfigError('redisStore options', 'an object with `client` or `url`');
  const { client, url, prefix, commandTimeoutMs, onError } = options;
  if (client !== undefined && url !== undefined) {
    throw new NicepayConfigError('client', 'either `client` or `url`, not both');
  }
  if (client === undefined && url === undefined) {
    throw new NicepayConfigError('client', 'a connected node-redis or ioredis client, or pass `url`');
  }
  if (client !== undefined) {
    if (redisClientKind(client) === undefined) {
      throw new NicepayConfigError('client', 'a connected node-redis or ioredis client (createClient, createCluster, createSentinel, new Redis, new Cluster)');
    }
    if (onError !== undefined) throw new NicepayConfigError('onError', 'only used with `url`; listen on your own client');
  }
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = typeof url === 'string' ? new URL(url) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') || parsed.hostname === '') {
      throw new NicepayConfigError('url', 'a redis:// or rediss:// URL with a host');
    }
    if (onError !== undefined && typeof onError !== 'function') throw new NicepayConfigError('onError', 'a function');
  }
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix.length > 256 || /[\r\n{}]/.test(prefix))) {
    throw new NicepayConfigError('prefix', 'a string of at most 256 characters without line breaks or braces');
  }
  if (
    commandTimeoutMs !== undefined &&
    (typeof commandTimeoutMs !== 'number' || !Number.isInteger(commandTimeoutMs) || commandTimeoutMs < 1 || commandTimeoutMs > 2_147_483_647)
  ) {
    throw new NicepayConfigError('commandTimeoutMs', 'a positive integer number of milliseconds');
  }
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') throw new TypeError('redisStore: key must be a non-empty string');
  // `{}` is an empty hash tag, which Redis Cluster ignores: the lock and the result would
  // then hash by their whole names, to different slots.
  if (key.startsWith('}')) throw new TypeError('redisStore: key must not start with "}" (it would empty the cluster hash tag)');
}

/** Redis wants whole milliseconds above zero. */
function ttlArg(name: string, ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(`redisStore: ${name} must be a positive number of milliseconds`);
  }
  return String(Math.ceil(ms));
}

/** Clients with a type mapping may hand back Buffers for bulk strings. */
function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return settleWithin(promise, ms, () => new Error(`redisStore: ${what} timed out after ${ms} ms`));
}

/**
 * An {@link IdempotencyStore} in Redis, for shops running more than one instance: the same
 * guarantees as `memoryStore`, across processes. Each operation is one Lua script, so it is
 * atomic on the server: `acquire` returns the cached result, or takes the lock
 * (`SET NX PX` with a random token), or reports busy; `complete` and `release` act only for
 * the token holding the lock, and `extend` renews a lock only for its holder. A crashed
 * holder's lock frees itself when its TTL runs out.
 *
 * ```ts
 * import { createClient } from 'redis';
 * import { redisStore } from 'express-nicepay/redis';
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const nicepay = createNicepay({ ..., store: redisStore({ client }) });
 * ```
 *
 * A cluster or ioredis client is passed the same way, as the shop built it:
 * `redisStore({ client: await createCluster({ rootNodes }).connect() })`,
 * `redisStore({ client: new Cluster(nodes) })` (ioredis). Each once-key's lock and result
 * share a hash tag, so every script runs on the one node holding that key's slot.
 *
 * @throws NicepayConfigError naming the option, for bad options, and (option `url`) when the
 *   optional `redis` package is not installed: at creation, with the install hint.
 */
export function redisStore(options: RedisStoreOptions): IdempotencyStore {
  validate(options);
  const prefix = options.prefix ?? 'nicepay:';
  const timeoutMs = options.commandTimeoutMs ?? 5000;

  let closed = false;
  let owned: OwnedClient | undefined;
  let connected = false;
  let ready: Promise<RedisSend>;

  if (options.client !== undefined) {
    ready = Promise.resolve(redisSender(options.client, redisClientKind(options.client)!));
  } else {
    assertRedisInstalled();
    const url = options.url;
    const onError = options.onError ?? (() => {});
    ready = (async () => {
      let mod: typeof import('redis');
      try {
        mod = await loadRedis();
      } catch (cause) {
        throw new Error('redisStore: `url` needs the optional peer dependency "redis" (npm install redis)', { cause });
      }
      if (closed) throw new Error('redisStore: closed before it connected');
      const client = mod.createClient({ url });
      client.on('error', onError);
      owned = client;
      await client.connect();
      connected = true;
      return redisSender(client, 'node-redis');
    })();
    // Failures surface through the operations that wait on `ready`, never as an unhandled rejection.
    ready.catch(() => {});
  }

  async function run(what: string, s: Script, keys: string[], args: string[]): Promise<unknown> {
    if (closed) throw new Error(`redisStore: ${what} after close()`);
    const attempt = async (): Promise<unknown> => {
      const send = await ready;
      const tail = [String(keys.length), ...keys, ...args];
      try {
        return await send(keys[0]!, ['EVALSHA', s.sha, ...tail]);
      } catch (err) {
        // First use on this node (or after SCRIPT FLUSH, or a failover): EVAL runs the script
        // and caches it.
        if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return send(keys[0]!, ['EVAL', s.source, ...tail]);
        throw err;
      }
    };
    return withTimeout(attempt(), timeoutMs, what);
  }

  // One hash tag per once-key: its lock and result share a cluster slot (see `prefix`).
  const lockKey = (key: string): string => `${prefix}{${key}}:lock`;
  const resultKey = (key: string): string => `${prefix}{${key}}:result`;

  return {
    async acquire(key: string, lockTtlMs: number): Promise<AcquireResult> {
      checkKey(key);
      const ttl = ttlArg('lockTtlMs', lockTtlMs);
      const token = randomUUID();
      const reply = await run('acquire', ACQUIRE, [lockKey(key), resultKey(key)], [token, ttl]);
      const state = Array.isArray(reply) ? asString(reply[0]) : undefined;
      if (state === 'acquired') return { state: 'acquired', token };
      if (state === 'busy') return { state: 'busy' };
      const value = Array.isArray(reply) ? asString(reply[1]) : undefined;
      if (state === 'done' && value !== undefined) return { state: 'done', value };
      throw new Error('redisStore: unexpected reply from the acquire script');
    },

    async complete(key: string, token: string, value: string, resultTtlMs: number): Promise<void> {
      checkKey(key);
      if (typeof value !== 'string') throw new TypeError('redisStore: value must be a string');
      const ttl = ttlArg('resultTtlMs', resultTtlMs);
      await run('complete', COMPLETE, [lockKey(key), resultKey(key)], [String(token), value, ttl]);
    },

    async release(key: string, token: string): Promise<void> {
      checkKey(key);
      await run('release', RELEASE, [lockKey(key)], [String(token)]);
    },

    async extend(key: string, token: string, lockTtlMs: number): Promise<boolean> {
      checkKey(key);
      const ttl = ttlArg('lockTtlMs', lockTtlMs);
      const reply = await run('extend', EXTEND, [lockKey(key)], [String(token), ttl]);
      return reply === 1 || reply === '1';
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const client = owned;
      if (client === undefined) return; // a client passed in stays the application's; none created yet
      if (!connected) {
        // still connecting (or retrying): stop the reconnect loop instead of waiting for it
        client.destroy?.();
        return;
      }
      try {
        if (typeof client.close === 'function') await client.close();
        else if (typeof client.quit === 'function') await client.quit();
      } catch {
        client.destroy?.();
      }
    },
  };
}
