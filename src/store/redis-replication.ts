/**
 * Waiting for replicas: Redis replicates asynchronously, so a write a master acknowledged can be
 * lost when a replica is promoted after the master fails. A ledger write that is lost that way is
 * a payment the shop forgets, so redisStore can wait, after each record it writes, until
 * `replicas` replicas acknowledged it (WAIT, on the master that holds the key), and report the
 * write as failed otherwise: the pipeline then sends nothing more and settlement continues from
 * the last state that was replicated.
 *
 * WAIT blocks the connection it is sent on, and a client shares one connection per node among
 * all its commands: every command queued behind a WAIT waits with it. So WAIT is sent only for
 * the replicas the write's own script found online (a master whose replica was promoted, or is
 * down, has none: waiting the full timeout there would stall every ledger call on that node, one
 * timeout per write, in turn), and returns as soon as they acknowledged.
 */
import type { IoRedisClient, NodeRedisCluster, RedisClientKind, RedisSend, RedisStoreClient } from './redis-client.js';

/**
 * Waits until the write just made under `key` reached `replicas` replicas, or every one of the
 * `online` replicas its master reported with that write if fewer (with none, it resolves at once:
 * no promotion can lose the write, there is nothing to promote); resolves to whether it did.
 */
export type WaitForReplicas = (key: string, online: number) => Promise<boolean>;

/** An ioredis Cluster's nodes by role (a Cluster has it; a plain Redis does not). */
interface IoRedisCluster extends IoRedisClient {
  nodes(
    role: 'master',
  ): Array<{ call(command: string, args: string[]): Promise<unknown>; options: { host?: string; port?: number } }>;
  slots: Array<string[] | undefined>;
}

/** A node-redis cluster's node clients (v4 to v6 have both methods). */
interface NodeRedisClusterNodes extends NodeRedisCluster {
  nodeClient(
    node: unknown,
  ): Promise<{ sendCommand(args: string[]): Promise<unknown> }> | { sendCommand(args: string[]): Promise<unknown> };
}

/**
 * The WAIT sender for a client: WAIT and ROLE name no key, so a cluster client would not route
 * them by one. A node-redis cluster sends a keyless command where the command's tips say (WAIT
 * to every master, answering the least count: node-redis 6) or to any node, and an ioredis
 * Cluster to any node; so both are sent to the master of the key's slot through that node's own
 * client (the connection the write went over: WAIT counts that connection's writes). A single
 * server's or Sentinel's client has one master.
 */
export function replicaWaiter(
  send: RedisSend,
  client: RedisStoreClient | undefined,
  kind: RedisClientKind,
  replicas: number,
  timeoutMs: number,
): WaitForReplicas {
  let onMaster: (key: string, args: string[]) => Promise<unknown> = (key, args) => send(key, args);
  if (kind === 'node-redis-cluster') {
    const cluster = client as NodeRedisClusterNodes;
    onMaster = async (key, args) => (await cluster.nodeClient(cluster.getSlotMaster(keySlot(key)))).sendCommand(args);
  }
  if (kind === 'ioredis' && (client as IoRedisClient).isCluster) {
    const cluster = client as IoRedisCluster;
    onMaster = async (key, [command, ...rest]) => {
      const owner = cluster.slots[keySlot(key)]?.[0];
      const master = cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
      if (!master) throw new Error('redisStore: no master known for the slot of a ledger key');
      return master.call(command!, rest);
    };
  }
  return async (key, online) => {
    const want = Math.min(replicas, online);
    if (want <= 0) return true;
    const acked = Number(await onMaster(key, ['WAIT', String(want), String(timeoutMs)]));
    if (acked >= want) return true;
    // Short of the number asked: enough when a replica dropped meanwhile (the master has fewer now).
    const role = await onMaster(key, ['ROLE']);
    const connected = Array.isArray(role) && Array.isArray(role[2]) ? role[2].length : Number.POSITIVE_INFINITY;
    return acked >= Math.min(want, connected);
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
