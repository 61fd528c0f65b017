/**
 * The bench's processes talk over Node's IPC channel: one request, one reply, matched by id.
 * Shared by run.ts (parent), sandbox-process.ts and server-process.ts (children).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';

/** CPU and memory of a process, as a child reports it. */
export interface ProcStats {
  /** process.cpuUsage(), microseconds. */
  user: number;
  system: number;
  rss: number;
  /** Peak resident set size since the process started, bytes. */
  maxRss: number;
  /** Wall time spent in garbage collection since the process started, microseconds. */
  gc: number;
  /**
   * CPU of the main (JavaScript) thread alone, microseconds, in 10 ms steps; the rest of
   * `user + system` is V8's and libuv's helper threads (GC, compilers, the thread pool).
   * Undefined where /proc is not there.
   */
  mainCpu: number | undefined;
  /** CPU of the helper threads by thread name (`V8 DefaultWorke`, `libuv-worker`, ...), microseconds; empty without /proc. */
  helperCpu: Record<string, number>;
}

// Every process that loads this module sums its GC pauses (perf_hooks 'gc' entries).
let gcUs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcUs += e.duration * 1000;
}).observe({ entryTypes: ['gc'] });

/** This process's CPU, memory and GC time so far. */
export function procStats(): ProcStats {
  const cpu = process.cpuUsage();
  return {
    user: cpu.user,
    system: cpu.system,
    rss: process.memoryUsage().rss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    gc: gcUs,
    mainCpu: mainThreadCpu(),
    helperCpu: helperThreadsCpu(),
  };
}

/**
 * The fields of a Linux /proc/…/stat line after the command name (which is in parentheses and
 * may hold spaces): [7] minor page faults, [11] utime and [12] stime in clock ticks (TICK_US).
 */
export function procStatFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Microseconds per clock tick of /proc's CPU times. */
export const TICK_US = 10_000;

/** utime + stime of {@link procStatFields}' fields, microseconds. */
export function statCpuUs(fields: string[]): number {
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

/** utime + stime of this process's main thread from /proc, microseconds (Linux only). */
function mainThreadCpu(): number | undefined {
  try {
    return statCpuUs(procStatFields(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')));
  } catch {
    return undefined;
  }
}

/** utime + stime of this process's other threads from /proc, summed by thread name. */
function helperThreadsCpu(): Record<string, number> {
  const byName: Record<string, number> = {};
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      if (tid === String(process.pid)) continue;
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      byName[name] = (byName[name] ?? 0) + statCpuUs(procStatFields(stat));
    }
  } catch {
    // no /proc: nothing to add
  }
  return byName;
}

type Handler = (msg: Record<string, unknown>) => unknown;

/** Child side: answers `{ id, op, ... }` messages with `{ id, ok, value | error }`. */
export function serveIpc(handlers: Record<string, Handler>): void {
  process.on('message', (raw) => {
    const msg = raw as { id: number; op: string };
    const handler = handlers[msg.op];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown op ${msg.op}`);
        return handler(msg as unknown as Record<string, unknown>);
      })
      .then(
        (value) => process.send!({ id: msg.id, ok: true, value }),
        (err: unknown) => process.send!({ id: msg.id, ok: false, error: String((err as Error)?.stack ?? err) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
}

/** Parent side: a forked TypeScript child (run through tsx) and a typed call(). */
export interface Child {
  proc: ChildProcess;
  call<T = unknown>(op: string, args?: Record<string, unknown>): Promise<T>;
  /** Resolves with the child's `{ ready: true, ... }` message. */
  ready: Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export function forkTs(file: string, env: Record<string, string>, extraExecArgv: string[] = []): Child {
  const proc = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    execArgv: [
      '--import',
      'tsx',
      ...extraExecArgv,
      ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    ],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  let onReady: (m: Record<string, unknown>) => void = () => {};
  let onFail: (e: Error) => void = () => {};
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  proc.on('message', (raw) => {
    const msg = raw as { id: number; ok: boolean; value?: unknown; error?: string; ready?: boolean };
    if (msg.ready) return onReady(msg as unknown as Record<string, unknown>);
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(new Error(`${file}: ${msg.error}`));
  });
  proc.on('exit', (code) => {
    onFail(new Error(`${file} exited (${code}) before it was ready`));
    for (const p of pending.values()) p.reject(new Error(`${file} exited (${code})`));
    pending.clear();
  });
  return {
    proc,
    ready,
    call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        proc.send({ ...args, op, id });
      });
    },
    stop() {
      return new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        // Ask politely (lets --cpu-prof write its profile), then insist.
        proc.kill('SIGINT');
        setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
      });
    },
  };
}

/** Bench-wide constants: the gateway's first published test merchant. */
export const BENCH_MID = 'nicepay00m';
export const BENCH_KEY = 'EYzu8jGGMfqaDEp76gSckuvnaHHu+bC4opsSN6lHv3b2lurNYkVXrZ7Z1AoqQnXI3eLuaUFyoRNC6FkrzVjceg==';
export const BENCH_AMOUNT = 1004;
export const BENCH_SUB_ID = 'benchsub01';

/** A clock that starts at `startIso` and flows with real time (same rule as the sandbox's). */
export function flowingClock(startIso: string): () => Date {
  const offset = new Date(startIso).getTime() - Date.now();
  return () => new Date(Date.now() + offset);
}
