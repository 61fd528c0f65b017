/**
 * The Redis set-ups the store's suite runs on: a single server and a three-master cluster,
 * each with node-redis and with ioredis clients built as a shop builds them and passed as they
 * are, plus an admin connection (node-redis) the tests use to look at and expire keys.
 */
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster, createSentinel } from 'redis';
import type { RedisStoreClient } from '../../src/store/redis-client.js';

/** The Redis client library a shop uses. */
export type RedisLibrary = 'node-redis' | 'ioredis';

/** Where Redis runs: one server (`url`), a cluster (its nodes), or a master behind Sentinels. */
export type RedisDeployment =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; rootNodes: { host: string; port: number }[] }
  | { kind: 'sentinel'; name: string; sentinels: { host: string; port: number }[]; masterUrl: string };

/** A connected client of `library`, as the shop would pass it to redisStore. */
export interface ShopClient {
  client: RedisStoreClient;
  close(): Promise<void>;
}

/** Connects a client of `library` to `deployment` the way the library's README shows. */
export async function connectShopClient(library: RedisLibrary, deployment: RedisDeployment): Promise<ShopClient> {
  if (library === 'node-redis') {
    const client =
      deployment.kind === 'single'
        ? createClient({ url: deployment.url })
        : deployment.kind === 'cluster'
          ? createCluster({ rootNodes: deployment.rootNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` })) })
          : createSentinel({ name: deployment.name, sentinelRootNodes: deployment.sentinels });
    client.on('error', () => {});
    await client.connect();
    return { client, close: () => client.close() };
  }
  const client =
    deployment.kind === 'single'
      ? new Redis(deployment.url)
      : deployment.kind === 'cluster'
        ? new Cluster(deployment.rootNodes)
        : new Redis({ sentinels: deployment.sentinels, name: deployment.name });
  client.on('error', () => {});
  // ioredis connects on its own; wait for it so a test starts from a ready client.
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('end', () => reject(new Error('ioredis client ended before it was ready')));
  });
  return {
    client,
    async close() {
      await client.quit();
    },
  };
}

/** What the tests read and change behind the store's back. */
export interface RedisAdmin {
  get(key: string): Promise<string | null>;
  pTTL(key: string): Promise<number>;
  pExpire(key: string, ms: number): Promise<unknown>;
  exists(key: string): Promise<number>;
  del(key: string): Promise<number>;
  /** A sorted set member's score, or null. */
  zScore(key: string, member: string): Promise<number | null>;
  /** Adds (or re-scores) a sorted set member. */
  zAdd(key: string, score: number, member: string): Promise<unknown>;
  /** A sorted set's members from `start` to `stop` by rank. */
  zRange(key: string, start: number, stop: number): Promise<string[]>;
  /** Keys on every master. */
  dbSize(): Promise<number>;
  /** Empties every master. */
  flushAll(): Promise<void>;
  /** SCRIPT FLUSH on every master. */
  scriptFlush(): Promise<void>;
  /**
   * Stalls every write (scripts included) on every master for `ms`, as a congested network
   * would: `CLIENT PAUSE ms WRITE`. Reads, and this admin connection, go on.
   */
  pauseWrites(ms: number): Promise<void>;
  /** Ends a {@link pauseWrites} early. */
  unpause(): Promise<void>;
  close(): Promise<void>;
}

/** An admin connection (node-redis) to `deployment`. */
export async function connectAdmin(deployment: RedisDeployment): Promise<RedisAdmin> {
  if (deployment.kind !== 'cluster') {
    const c = createClient({ url: deployment.kind === 'single' ? deployment.url : deployment.masterUrl });
    c.on('error', () => {});
    await c.connect();
    return {
      get: (k) => c.get(k),
      pTTL: (k) => c.pTTL(k),
      pExpire: (k, ms) => c.pExpire(k, ms),
      exists: (k) => c.exists(k),
      del: (k) => c.del(k),
      zScore: (k, m) => c.zScore(k, m),
      zAdd: (k, score, value) => c.zAdd(k, { score, value }),
      zRange: (k, start, stop) => c.zRange(k, start, stop),
      dbSize: () => c.dbSize(),
      flushAll: async () => void (await c.flushAll()),
      scriptFlush: async () => void (await c.sendCommand(['SCRIPT', 'FLUSH'])),
      pauseWrites: async (ms) => void (await c.sendCommand(['CLIENT', 'PAUSE', String(ms), 'WRITE'])),
      unpause: async () => void (await c.sendCommand(['CLIENT', 'UNPAUSE'])),
      close: () => c.close(),
    };
  }
  const c = createCluster({ rootNodes: deployment.rootNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` })) });
  c.on('error', () => {});
  await c.connect();
  const masters = () => Promise.all(c.masters.map((m) => c.nodeClient(m)));
  return {
    get: (k) => c.get(k),
    pTTL: (k) => c.pTTL(k),
    pExpire: (k, ms) => c.pExpire(k, ms),
    exists: (k) => c.exists(k),
    del: (k) => c.del(k),
    zScore: (k, m) => c.zScore(k, m),
    zAdd: (k, score, value) => c.zAdd(k, { score, value }),
    zRange: (k, start, stop) => c.zRange(k, start, stop),
    dbSize: async () => (await Promise.all((await masters()).map((m) => m.dbSize()))).reduce((a, b) => a + b, 0),
    flushAll: async () => void (await Promise.all((await masters()).map((m) => m.flushAll()))),
    scriptFlush: async () => void (await Promise.all((await masters()).map((m) => m.sendCommand(['SCRIPT', 'FLUSH'])))),
    pauseWrites: async (ms) =>
      void (await Promise.all((await masters()).map((m) => m.sendCommand(['CLIENT', 'PAUSE', String(ms), 'WRITE'])))),
    unpause: async () => void (await Promise.all((await masters()).map((m) => m.sendCommand(['CLIENT', 'UNPAUSE'])))),
    close: () => c.close(),
  };
}
