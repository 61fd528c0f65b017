/**
 * `express-nicepay/redis`: the payment ledger in Redis, for shops running several instances.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { withTimeout as settleWithin } from '../util/with-timeout.js';
import {
  checkKey,
  checkLimit,
  checkRecordWrite,
  checkTime,
  checkToken,
  LEASE_ONLY_KEEP_MS,
  wholeMs,
} from './ledger-args.js';
import { redisClientKind, redisSender, type RedisSend } from './redis-client.js';
import { replicaWaiter, type WaitForReplicas } from './redis-replication.js';
import { type Bound, dueIndex } from './redis-due-index.js';
import { assertRedisInstalled, loadRedis } from './redis-module.js';
import { validateRedisOptions, type RedisStoreOptions } from './redis-options.js';
import {
  ACQUIRE,
  acquiredRecord,
  EXTEND,
  INDEX_ADD,
  PEEK,
  peeked,
  RELEASE,
  REMOVE,
  text,
  WRITE,
  writeReply,
  type Peek,
  type Script,
} from './redis-scripts.js';
import type { ClosableLedgerStore, LeaseResult, LedgerStore, RecordWrite } from './types.js';

export type {
  IoRedisClient,
  NodeRedisClient,
  NodeRedisCluster,
  NodeRedisSentinel,
  RedisStoreClient,
} from './redis-client.js';
export type {
  RedisStoreClientOptions,
  RedisStoreCommonOptions,
  RedisStoreOptions,
  RedisStoreUrlOptions,
} from './redis-options.js';

const NAME = 'redisStore';

/** The client a `url` store created: node-redis v5 has close(), older ones quit(). */
interface OwnedClient {
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy?(): void;
}

/**
 * A key whose record and lease share a hash tag. `{}` is an empty hash tag, which Redis
 * Cluster ignores: the two keys would then hash by their whole names, to different slots.
 */
function checkRedisKey(key: unknown): asserts key is string {
  checkKey(NAME, key);
  if (key.startsWith('}'))
    throw new TypeError('redisStore: key must not start with "}" (it would empty the cluster hash tag)');
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return settleWithin(promise, ms, () => new Error(`redisStore: ${what} timed out after ${ms} ms`));
}

/**
 * A {@link LedgerStore} in Redis, for shops running more than one instance: one server, a
 * Sentinel-watched master or a Redis Cluster (Redis 6.2 or later, `maxmemory-policy
 * noeviction`: an evicted record is a payment forgotten). Each step on a key is one Lua script,
 * atomic on the server; a lease is a key with PX, so it runs on the server's clock and a dead
 * holder's lease frees itself. Open records have no expiry; closed ones expire after `keepMs`.
 * The open records are indexed by dueAt in one sorted set, kept correct without cross-slot
 * scripts (src/store/redis-due-index.ts).
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
 * `redisStore({ client: new Cluster(nodes) })` (ioredis).
 *
 * @throws NicepayConfigError naming the option, for bad options, and (option `url`) when the
 *   optional `redis` package is not installed: at creation, with the install hint.
 */
export function redisStore(options: RedisStoreOptions): ClosableLedgerStore {
  validateRedisOptions(options);
  const prefix = options.prefix ?? 'nicepay:';
  const timeoutMs = options.commandTimeoutMs ?? 5000;

  const replicas = options.waitForReplicas ?? 0;

  let closed = false;
  let owned: OwnedClient | undefined;
  let connected = false;
  let ready: Promise<RedisSend>;
  let waiter: Promise<WaitForReplicas | undefined> = Promise.resolve(undefined);

  if (options.client !== undefined) {
    const kind = redisClientKind(options.client)!;
    ready = Promise.resolve(redisSender(options.client, kind));
    if (replicas > 0)
      waiter = ready.then((send) =>
        replicaWaiter(send, options.client, kind, replicas, Math.max(1, Math.floor(timeoutMs / 2))),
      );
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
    if (replicas > 0)
      waiter = ready.then(
        (send) => replicaWaiter(send, undefined, 'node-redis', replicas, Math.max(1, Math.floor(timeoutMs / 2))),
        () => undefined,
      );
  }

  /**
   * One method, bounded by commandTimeoutMs as a whole. `work` may ask whether its caller
   * stopped waiting (the bound passed): what it took then is nobody's.
   */
  function op<T>(what: string, work: (abandoned: () => boolean) => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error(`redisStore: ${what} after close()`));
    let abandoned = false;
    return settleWithin(
      work(() => abandoned),
      timeoutMs,
      () => {
        abandoned = true;
        return new Error(`redisStore: ${what} timed out after ${timeoutMs} ms`);
      },
    );
  }

  /** A listing (due, open), bounded by commandTimeoutMs per page of the index it reads. */
  function listing<T>(what: string, work: (bound: Bound) => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error(`redisStore: ${what} after close()`));
    return work((page) => withTimeout(page, timeoutMs, what));
  }

  async function run(s: Script, keys: string[], args: string[]): Promise<unknown> {
    const send = await ready;
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await send(keys[0]!, ['EVALSHA', s.sha, ...tail]);
    } catch (err) {
      // First use on this node (or after SCRIPT FLUSH, or a failover): EVAL runs the script
      // and caches it.
      if (err instanceof Error && err.message.startsWith('NOSCRIPT'))
        return send(keys[0]!, ['EVAL', s.source, ...tail]);
      throw err;
    }
  }

  // One hash tag per ledger key: its record and lease share a cluster slot (see `prefix`).
  const keysOf = (key: string): string[] => [`${prefix}{${key}}:rec`, `${prefix}{${key}}:lease`];
  const indexKey = `${prefix}due`;
  const peek = async (key: string): Promise<Peek> => peeked(key, await run(PEEK, keysOf(key), []));
  // The scripts that write count their master's online replicas only when the store waits for them.
  const countReplicas = replicas > 0 ? '1' : '0';
  /** Waits until the write just made under `key` is on the replicas (`online` its script found). */
  async function replicated(key: string, online: number): Promise<void> {
    const wait = await waiter;
    // A write the replicas did not all take could be lost to a failover: it does not count.
    if (wait && !(await wait(key, online)))
      throw new Error(`redisStore: a ledger write was not acknowledged by its master's replicas in time`);
  }
  const index = dueIndex({
    key: indexKey,
    command: async (args) => (await ready)(indexKey, args),
    script: (s, args) => run(s, [indexKey], args),
    add: async (member, score) =>
      replicated(indexKey, Number(await run(INDEX_ADD, [indexKey], [score, member, countReplicas]))),
    peek,
  });

  /** Writes `record` under `token`, indexing it around the write; answers whether it was written. */
  async function write(key: string, token: string, record: RecordWrite, release: boolean): Promise<boolean> {
    if (record.open) await index.beforeOpen(key, record.dueAt);
    const args = record.open
      ? [token, record.value, '1', String(record.dueAt), '0', release ? '1' : '0', countReplicas]
      : [
          token,
          record.value,
          '0',
          '0',
          String(wholeMs(NAME, 'keepMs', record.keepMs)),
          release ? '1' : '0',
          countReplicas,
        ];
    const { result, replicas: online } = writeReply(await run(WRITE, keysOf(key), args));
    if (result === 0) return false;
    await replicated(keysOf(key)[0]!, online);
    if (record.open) await index.afterOpen(key, record.dueAt);
    else if (result === 2) await index.unindex(key);
    return true;
  }

  /**
   * Gives back a lease an acquire took for a caller that will never use it (the call failed
   * after taking it, or timed out): a key it created (a bare lease, or the initial record of a
   * request that was never sent) is forgotten, an existing record is only unleased. Otherwise
   * the lease would turn every repeat away as "in progress" until it expires.
   */
  function giveBack(key: string, token: string, created: boolean): void {
    void run(created ? REMOVE : RELEASE, keysOf(key), [token])
      .then(async (reply) => {
        if (created && Number(reply) === 2) await index.unindex(key);
      })
      .catch(() => undefined);
  }

  const leaseOnlyTtl = (leaseMs: number): string => String(leaseMs + LEASE_ONLY_KEEP_MS);

  return {
    acquire(key, leaseMs, initial) {
      return op('acquire', async (abandoned): Promise<LeaseResult> => {
        checkRedisKey(key);
        const ms = wholeMs(NAME, 'leaseMs', leaseMs);
        if (initial !== undefined) checkRecordWrite(NAME, 'initial', initial);
        const token = randomUUID();
        const reply = await run(ACQUIRE, keysOf(key), [token, String(ms), leaseOnlyTtl(ms)]);
        const state = Array.isArray(reply) ? text(reply[0]) : undefined;
        if (!Array.isArray(reply) || (state !== 'closed' && state !== 'busy' && state !== 'acquired')) {
          throw new Error('redisStore: unexpected reply from the acquire script');
        }
        const record = acquiredRecord(key, reply);
        if (state === 'closed') return { state, record: record! };
        if (state === 'busy') return { state, record };
        // A new key is taken as a bare lease first, and its initial record written as the
        // holder's first write, so that an open one is indexed before it exists.
        let written: boolean;
        try {
          written = record !== undefined || initial === undefined || (await write(key, token, initial, false));
        } catch (err) {
          giveBack(key, token, record === undefined);
          throw err;
        }
        if (!written) return { state: 'busy', record: (await peek(key)).record };
        if (abandoned()) giveBack(key, token, record === undefined);
        return { state, token, record };
      });
    },

    write(key, token, record, release) {
      return op('write', async () => {
        checkRedisKey(key);
        checkToken(NAME, token);
        checkRecordWrite(NAME, 'record', record);
        return write(key, token, record, release);
      });
    },

    release(key, token) {
      return op('release', async () => {
        checkRedisKey(key);
        checkToken(NAME, token);
        await run(RELEASE, keysOf(key), [token]);
      });
    },

    remove(key, token) {
      return op('remove', async () => {
        checkRedisKey(key);
        checkToken(NAME, token);
        if (Number(await run(REMOVE, keysOf(key), [token])) === 2) await index.unindex(key);
      });
    },

    extend(key, token, leaseMs) {
      return op('extend', async () => {
        checkRedisKey(key);
        checkToken(NAME, token);
        const ms = wholeMs(NAME, 'leaseMs', leaseMs);
        return Number(await run(EXTEND, keysOf(key), [token, String(ms), leaseOnlyTtl(ms)])) === 1;
      });
    },

    get(key) {
      return op('get', async () => {
        checkRedisKey(key);
        return (await peek(key)).record;
      });
    },

    due(now, limit) {
      return listing('due', async (bound) => {
        checkTime(NAME, 'now', now);
        checkLimit(NAME, limit);
        return index.list(now, limit, (p) => p.record.dueAt <= now && !p.leased, bound);
      });
    },

    open(limit) {
      return listing('open', async (bound) => {
        checkLimit(NAME, limit);
        return index.list(Number.POSITIVE_INFINITY, limit, () => true, bound);
      });
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
