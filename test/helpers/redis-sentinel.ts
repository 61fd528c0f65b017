/**
 * A throwaway Sentinel set-up on loopback: one redis-server as the master and one Sentinel
 * (`redis-server <conf> --sentinel`) watching it under the name `mymaster`. Enough for a shop's
 * Sentinel client to find its master; failover itself is the client libraries' and Redis's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForOutput } from './process-ready.js';
import { freePort, onFreePorts, startRedisServer } from './redis-server.js';

/** A running master and its Sentinel. */
export interface RedisSentinelSetup {
  /** The name the Sentinel knows the master by. */
  name: string;
  sentinels: { host: string; port: number }[];
  /** The master's URL, for an admin connection. */
  masterUrl: string;
  stop(): Promise<void>;
}

/** Starts a master and a Sentinel; fails (not skips) without redis-server. */
export async function startRedisSentinel(): Promise<RedisSentinelSetup> {
  const master = await startRedisServer();
  const masterPort = Number(new URL(master.url).port);
  const dir = mkdtempSync(join(tmpdir(), 'nicepay-sentinel-'));
  const { child, port } = await onFreePorts(() => startSentinel(dir, masterPort));
  return {
    name: 'mymaster',
    sentinels: [{ host: '127.0.0.1', port }],
    masterUrl: master.url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exit = once(child, 'exit');
        child.kill('SIGTERM');
        await exit;
      }
      await master.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Sentinel on a free port monitoring the master on `masterPort`, once it monitors it. */
async function startSentinel(dir: string, masterPort: number): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const conf = join(dir, 'sentinel.conf');
  // Sentinel rewrites its configuration file as it learns: it must be its own, and writable.
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1`,
      'sentinel down-after-milliseconds mymaster 1000',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await waitForOutput(child, '+monitor master mymaster', {
    notReady: 'redis sentinel did not start monitoring',
    exited: 'redis sentinel exited early',
  });
  return { child, port };
}
