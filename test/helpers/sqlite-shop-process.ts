/**
 * The shop of test/fixtures/sqlite-shop.ts as a child process: started on a ledger file and a
 * books file, asked over IPC (settle, unsettled, the store's clock), posted to over loopback
 * HTTP, and watched until it exits (killed by its own KILL_AT, or stopped).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { SettleReport, UnsettledItem } from '../../src/index.js';

const APP = fileURLToPath(new URL('../fixtures/sqlite-shop.ts', import.meta.url));

/** How a shop process ended: its exit code or signal, and when the parent saw it (wall clock, ms). */
export interface ShopExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** One answer of the shop over HTTP; status 0 when the connection dropped without an answer. */
export interface ShopAnswer {
  statusCode: number;
  body: {
    status?: string;
    tid?: string;
    moid?: string;
    duplicate?: boolean;
    recovered?: boolean;
    code?: string;
    settlement?: string;
  };
}

/** A running shop process. */
export interface ShopProcess {
  readonly pid: number;
  /** True from the moment it exited (before {@link ShopProcess.exited} resolves and any pending ask rejects). */
  readonly dead: boolean;
  /** Everything it printed on stdout and stderr so far. */
  readonly output: string;
  /** Resolves once it exited. */
  readonly exited: Promise<ShopExit>;
  /** Posts `body` to `path`; resolves with status 0 when the process died before answering. */
  post(path: string, body: Buffer | string | object, contentType?: string): Promise<ShopAnswer>;
  /**
   * Resolves once the shop has found `key` leased by another holder `times` times from now (a
   * repeat polling behind a live lease: it waits, it does not take over).
   */
  busy(key: string, times: number): Promise<void>;
  settle(): Promise<SettleReport>;
  unsettled(): Promise<UnsettledItem[]>;
  /** Runs the store's clock `ms` further ahead: as its leases see it, the restart came that much later. */
  advanceStoreClock(ms: number): Promise<void>;
  /** Closes the middleware, the store and the books, then the process exits. */
  stop(): Promise<void>;
}

/** Forks the shop with `env` (see the fixture for the names) and waits until it listens. */
export async function startShopProcess(env: Record<string, string>): Promise<ShopProcess> {
  const child: ChildProcess = fork(APP, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const collect = (d: Buffer): void => {
    output += d.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let dead = false;
  const exited = new Promise<ShopExit>((resolve) =>
    child.once('exit', (code, signal) => {
      dead = true;
      resolve({ code, signal, at: Date.now() });
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`the shop did not start:\n${output}`)), 30_000);
    void exited.then((e) => {
      clearTimeout(guard);
      reject(new Error(`the shop exited (${String(e.code ?? e.signal)}) before it listened:\n${output}`));
    });
    child.on('message', (m: { type?: string; port?: number }) => {
      if (m.type !== 'ready') return;
      clearTimeout(guard);
      resolve(m.port!);
    });
  });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32 });
  void exited.then(() => pool.destroy());
  const busyWaiters: { key: string; left: number; resolve: () => void }[] = [];
  child.on('message', (m: { type?: string; key?: string }) => {
    if (m.type !== 'busy') return;
    for (const w of [...busyWaiters]) {
      if (w.key !== m.key || --w.left > 0) continue;
      busyWaiters.splice(busyWaiters.indexOf(w), 1);
      w.resolve();
    }
  });
  let nextId = 1;
  const ask = <T>(type: string, extra: object = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      const onMessage = (m: { id?: number; error?: string }): void => {
        if (m.id !== id) return;
        child.off('message', onMessage);
        if (m.error) reject(new Error(`the shop's ${type} failed: ${m.error}\n${output}`));
        else resolve(m as T);
      };
      child.on('message', onMessage);
      void exited.then(() => reject(new Error(`the shop exited before answering ${type}:\n${output}`)));
      child.send({ id, type, ...extra });
    });
  return {
    pid: child.pid!,
    get dead() {
      return dead;
    },
    get output() {
      return output;
    },
    exited,
    async post(path, body, contentType = 'application/json') {
      const raw = Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body);
      try {
        const res = await pool.request({ method: 'POST', path, headers: { 'content-type': contentType }, body: raw });
        const text = await res.body.text();
        return { statusCode: res.statusCode, body: text ? (JSON.parse(text) as ShopAnswer['body']) : {} };
      } catch {
        return { statusCode: 0, body: {} };
      }
    },
    busy: (key, times) => new Promise<void>((resolve) => void busyWaiters.push({ key, left: times, resolve })),
    settle: async () => revive((await ask<{ report: SettleReport }>('settle')).report),
    unsettled: async () =>
      revive({ settled: [], unsettled: (await ask<{ items: UnsettledItem[] }>('unsettled')).items }).unsettled,
    advanceStoreClock: async (ms) => void (await ask('advance-store-clock', { ms })),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const guard = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await ask('close').catch(() => undefined);
      await exited;
      clearTimeout(guard);
    },
  };
}

/** A settle report as it crossed IPC (its Dates as strings), with its Dates back. */
function revive(report: SettleReport): SettleReport {
  return {
    settled: report.settled,
    unsettled: report.unsettled.map((u) => ({ ...u, nextAttemptAt: new Date(u.nextAttemptAt) })),
  };
}
