/**
 * Waiting for replicas: Redis replicates asynchronously, so a write a master acknowledged can be
 * lost when a replica is promoted after the master fails. A ledger write that is lost that way is
 * a payment the shop forgets, so redisStore can wait, after each record it writes, until
 * `replicas` replicas acknowledged it (WAIT, on the master that holds the key), and report the
 * write as failed otherwise: the pipeline then sends nothing more and settlement continues from
 * the last state that was replicated.
 */
import type { IoRedisClient, RedisClientKind, RedisSend, RedisStoreClient } from './redis-client.js';

/**
 * Waits until the write just made under `key` reached `replicas` replicas, or every replica its
 * master has now (one with none cannot lose it to a promotion: there is nothing to promote);
 * resolves to whether it did.
 */
export type WaitForReplicas = (key: string) => Promise<boolean>;

/** An ioredis Cluster's nodes by role (a Cluster has it; a plain Redis does not). */
interface IoRedisCluster extends IoRedisClient {
  nodes(role: 'master'): Array<{ call(command: string, args: string[]): Promise<unknown>; options: { host?: string; port?: number } }>;
  slots: Array<string[] | undefined>;
}

/**
 * The WAIT sender for a client. node-redis clients route a raw command by its first key, and a
 * single ioredis connection has one master; an ioredis Cluster routes a keyless command to any
 * node, so WAIT is sent to the master of the key's slot, found by the slot map it keeps.
 */
export function replicaWaiter(send: RedisSend, client: RedisStoreClient | undefined, kind: RedisClientKind, replicas: number, timeoutMs: number): WaitForReplicas {
  let onMaster: (key: string, args: string[]) => Promise<unknown> = (key, args) => send(key, args);
  if (kind === 'ioredis' && (client as IoRedisClient).isCluster) {
    const cluster = client as IoRedisCluster;
    onMaster = async (key, [command, ...rest]) => {
      const owner = cluster.slots[keySlot(key)]?.[0];
      const master = cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
      if (!master) throw new Error('redisStore: no master known for the slot of a ledger key');
      return master.call(command!, rest);
    };
  }
  return async (key) => {
    const acked = Number(await onMaster(key, ['WAIT', String(replicas), String(timeoutMs)]));
    if (acked >= replicas) return true;
    // Short of the number asked: enough when the master has no more replicas connected now.
    const role = await onMaster(key, ['ROLE']);
    const connected = Array.isArray(role) && Array.isArray(role[2]) ? role[2].length : Number.POSITIVE_INFINITY;
    return acked >= Math.min(replicas, connected);
  };
}

/** The Redis Cluster slot of a key: CRC16 (XMODEM) of its hash tag, or of the whole key, mod 16384. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
