/**
 * The Redis clients shops already have, told apart by their shape (duck typing: neither
 * `redis` nor `ioredis` is imported here, both stay optional) and reduced to the one thing the
 * store needs: send one raw command that names its keys, to the node that holds them.
 */
import { isObject } from '../util/is-object.js';

/** A node-redis `createClient()` client (v5 or v6), or a client pool: one server. */
export interface NodeRedisClient {
  /** Sends one raw command, e.g. `['SET', key, value, 'NX', 'PX', '30000']`. */
  sendCommand(args: ReadonlyArray<string>): Promise<unknown>;
}

/** A node-redis `createCluster()` client: it routes a raw command by the key named first. */
export interface NodeRedisCluster {
  /** Sends one raw command to the master of `firstKey`'s slot. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** Only a cluster client has it: how it is told apart from a single-server client. */
  getSlotMaster(slot: number): unknown;
}

/** A node-redis `createSentinel()` client: it sends to the master the Sentinels name. */
export interface NodeRedisSentinel {
  /** Sends one raw command to the current master (`isReadonly` false). */
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** Only a Sentinel client has it: how it is told apart from a single-server client. */
  getSentinelNode(): unknown;
}

/**
 * An ioredis `Redis` (one server, or Sentinel through its `sentinels` option) or `Cluster`:
 * `call` sends a raw command, and a Cluster routes it by the keys the command declares
 * (for EVALSHA, the `numkeys` keys).
 */
export interface IoRedisClient {
  /** Sends one raw command, e.g. `call('SET', [key, value])`. */
  call(command: string, args: string[]): Promise<unknown>;
  /** ioredis sets it on every client, true on a Cluster; node-redis has no such field. */
  isCluster: boolean;
}

/**
 * A connected client of the `redis` (node-redis) or `ioredis` package, passed as the shop
 * built it: `createClient`, `createCluster` or `createSentinel` of node-redis (v5 or v6,
 * whatever its modules, scripts or RESP version), `Redis` or `Cluster` of ioredis (v5 or v6).
 */
export type RedisStoreClient = NodeRedisClient | NodeRedisCluster | NodeRedisSentinel | IoRedisClient;

/** Which kind of client {@link redisSender} found. */
export type RedisClientKind = 'node-redis' | 'node-redis-cluster' | 'node-redis-sentinel' | 'ioredis';

/**
 * Sends one command (`args`, e.g. `['EVALSHA', sha, '2', k1, k2, ...]`) whose keys all hash
 * to the slot of `firstKey`.
 */
export type RedisSend = (firstKey: string, args: string[]) => Promise<unknown>;

/** The kind of `client`, by its shape; undefined when it is none of the supported clients. */
export function redisClientKind(client: unknown): RedisClientKind | undefined {
  if (!isObject(client)) return undefined;
  // ioredis first: its clients also have a sendCommand, which takes a Command object.
  if (typeof client.call === 'function' && typeof client.isCluster === 'boolean') return 'ioredis';
  if (typeof client.sendCommand !== 'function') return undefined;
  if (typeof client.getSlotMaster === 'function') return 'node-redis-cluster';
  if (typeof client.getSentinelNode === 'function') return 'node-redis-sentinel';
  return 'node-redis';
}

/** The sender for `client` (whose kind {@link redisClientKind} found). */
export function redisSender(client: RedisStoreClient, kind: RedisClientKind): RedisSend {
  switch (kind) {
    case 'ioredis': {
      const c = client as IoRedisClient;
      return (_firstKey, [command, ...rest]) => c.call(command!, rest);
    }
    case 'node-redis-cluster': {
      const c = client as NodeRedisCluster;
      return (firstKey, args) => c.sendCommand(firstKey, false, args);
    }
    case 'node-redis-sentinel': {
      const c = client as NodeRedisSentinel;
      return (_firstKey, args) => c.sendCommand(false, args);
    }
    case 'node-redis': {
      const c = client as NodeRedisClient;
      return (_firstKey, args) => c.sendCommand(args);
    }
  }
}
