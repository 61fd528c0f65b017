/**
 * Shop instances as child processes (test/fixtures/instance-app.ts), sharing a Redis store:
 * used by the multi-instance and crash-recovery tests.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const APP = fileURLToPath(new URL('../fixtures/instance-app.ts', import.meta.url));

/** One shop process (test/fixtures/instance-app.ts) and a connection pool to it. */
export interface Instance {
  child: ChildProcess;
  pool: Pool;
  log: string;
  ask<T>(type: string): Promise<T>;
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL): nothing it was doing completes. */
  kill(): Promise<void>;
}

/** Forks a shop process with `env` and waits until it listens. */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = fork(APP, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const ready = await new Promise<{ port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${log}`)), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited (${String(code)}):\n${log}`));
    });
    child.on('message', (m: { type: string; port?: number }) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve({ port: m.port! });
      }
    });
  });
  const pool = new Pool(`http://127.0.0.1:${ready.port}`, { connections: 50 });
  const instance: Instance = {
    child,
    pool,
    get log() {
      return log;
    },
    ask<T>(type: string) {
      return new Promise<T>((resolve) => {
        const onMessage = (m: { type: string }) => {
          if (m.type === type) {
            child.off('message', onMessage);
            resolve(m as T);
          }
        };
        child.on('message', onMessage);
        child.send({ type });
      });
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exit = once(child, 'exit');
      child.kill('SIGKILL');
      await exit;
    },
    async stop() {
      await pool.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exit = once(child, 'exit');
      child.send({ type: 'close' });
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(t);
    },
  };
  return instance;
}
