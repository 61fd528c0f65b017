/**
 * A throwaway Redis Cluster on loopback: `masters` redis-server processes with
 * `--cluster-enabled yes` on free ports (plus `replicasPerMaster` replicas each), joined by
 * `redis-cli --cluster create ... --cluster-yes`. No persistence; each node's nodes.conf in a
 * temporary directory removed by stop().
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { createClient } from 'redis';
import { waitForOutput } from './process-ready.js';
import { freePort, onFreePorts } from './redis-server.js';

/** One node of a {@link RedisCluster}. */
export interface RedisClusterNode {
  port: number;
  /** Kills the node at once (SIGKILL), as a crashed host would go. */
  kill(): Promise<void>;
  readonly alive: boolean;
}

/** A running cluster. */
export interface RedisCluster {
  /** Every node, masters first as created (replicas follow, in `redis-cli` order). */
  nodes: RedisClusterNode[];
  /** `{ host, port }` of every node: what a shop passes as root nodes. */
  rootNodes: { host: string; port: number }[];
  /** The ports of the masters serving slots now (after a failover, the promoted replicas). */
  masters(): Promise<number[]>;
  /** The port of the node that is master of `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /**
   * Resolves once every live node reports `cluster_state:ok` and every slot has a live
   * master (after a kill: once a replica was promoted).
   */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link startRedisCluster}. */
export interface RedisClusterOptions {
  /** @default 3 */
  masters?: number;
  /** @default 0 */
  replicasPerMaster?: number;
  /** `cluster-node-timeout`: how long a silent master takes to be failed over. @default 1000 */
  nodeTimeoutMs?: number;
}

async function startNode(dir: string, nodeTimeoutMs: number): Promise<{ child: ChildProcess; port: number }> {
  return onFreePorts(() => startNodeOnce(dir, nodeTimeoutMs));
}

async function startNodeOnce(dir: string, nodeTimeoutMs: number): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  // The cluster bus defaults to port + 10000, which nothing checked was free: it gets a free
  // port of its own (nodes gossip it, so redis-cli --cluster create finds it).
  const busPort = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--cluster-port',
      String(busPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      '--dir',
      dir,
      // A replica takes over however long its link was down: on a loaded machine a replica can
      // look stale to the default rule and then never be promoted.
      '--cluster-replica-validity-factor',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitForOutput(child, 'Ready to accept connections', {
    notReady: 'redis-server (cluster) did not get ready',
    exited: 'redis-server (cluster) exited early',
  });
  return { child, port };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill(signal);
  await exit;
}

/** Asks one node a command over a short-lived connection. */
async function ask(port: number, args: string[]): Promise<unknown> {
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

/** Spawns and joins a cluster; fails (not skips) without redis-server, as CI must run these. */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  const probe = spawnSync('redis-cli', ['--version'], { encoding: 'utf8' });
  if (probe.error) throw new Error('redis-cli is not on PATH (Debian/Ubuntu: apt-get install -y redis-server)');
  const dir = mkdtempSync(join(tmpdir(), 'nicepay-cluster-'));
  const started = await Promise.all(
    Array.from({ length: masters * (1 + replicas) }, () => startNode(dir, nodeTimeoutMs)),
  );
  const create = spawnSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...started.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  const nodes: RedisClusterNode[] = started.map(({ child, port }) => ({
    port,
    kill: () => stopChild(child, 'SIGKILL'),
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
  }));
  /**
   * Asks every live node until each says the cluster is ok with all slots served, every replica
   * has finished its first sync, and at least `linkedReplicas` have. Cluster gossip and replication
   * converge on their own schedule (there is no event to wait for).
   */
  const settle = async (linkedReplicas: number): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const live = nodes.filter((n) => n.alive);
      const infos = await Promise.all(live.map((n) => ask(n.port, ['CLUSTER', 'INFO']).then(String, () => '')));
      // A replica counts once its first sync is done, on its own side (link up) and on its
      // master's (state=online: WAIT counts only such replicas). Right after `--cluster create`,
      // a node meant to be a replica may still say role:master.
      const replication = await Promise.all(
        live.map((n) => ask(n.port, ['INFO', 'replication']).then(String, () => '')),
      );
      const replicas = replication.filter((r) => r.includes('role:slave'));
      const linked = replicas.filter((r) => r.includes('master_link_status:up')).length;
      const online = replication.reduce((n, r) => n + (r.match(/state=online/g)?.length ?? 0), 0);
      const synced = linked === replicas.length && online >= linked && linked >= linkedReplicas;
      if (synced && infos.every((i) => i.includes('cluster_state:ok') && i.includes('cluster_slots_ok:16384'))) return;
      // 30 s: a failover is node timeout + election, seconds, but slower on a loaded machine.
      if (attempt > 1_200) throw new Error(`cluster did not settle:\n${infos.join('\n')}\n${replication.join('\n')}`);
      await pause(25);
    }
  };
  const cluster: RedisCluster = {
    nodes,
    rootNodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    async masters() {
      const live = nodes.find((n) => n.alive)!;
      const shards = (await ask(live.port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][];
      return [...new Set(shards.map((shard) => Number(shard[2][1])))];
    },
    async masterOf(key) {
      const live = nodes.find((n) => n.alive)!;
      const slot = Number(await ask(live.port, ['CLUSTER', 'KEYSLOT', key]));
      const shards = (await ask(live.port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][];
      const shard = shards.find(([from, to]) => slot >= from && slot <= to);
      if (!shard) throw new Error(`no master for slot ${slot}`);
      return Number(shard[2][1]);
    },
    settled: () => settle(0),
    async stop() {
      await Promise.all(started.map(({ child }) => stopChild(child, 'SIGTERM')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (create.status !== 0) {
    await cluster.stop();
    throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
  }
  await settle(masters * replicas);
  return cluster;
}
