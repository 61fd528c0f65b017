/**
 * `npm run bench:threads [-- --base=<dir>] [-- --pause=1500 --rewarm=300]`: server CPU per
 * approval, thread by thread (the main thread, V8's workers for GC and compilation), for the
 * floor and checkoutReturn (and checkoutReturn of another tree), one server at a time.
 *
 * Each server gets `--warmup` approvals, then `--n` more in chunks of `--chunk`; with `--pause`
 * it sits idle that long between chunks, as the servers of `npm run bench` do while the others
 * run, and with `--rewarm` that many untimed approvals go before each chunk. CPU comes from
 * /proc/<pid>/task/<tid>/stat (10 ms ticks: keep chunks at a thousand approvals or more). The
 * load comes from this process, with the sandbox in it: the server has a core to itself, unlike
 * in `npm run bench`. `SHOP_FLAGS="--flag ..."` passes V8/Node flags to the server processes
 * (e.g. to see whether a runtime setting explains a difference). Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../src/sandbox/index.js';
import { BENCH_KEY, BENCH_MID, procStatFields, statCpuUs, TICK_US } from './ipc.js';
import { buildTree, SHOP_SCRIPT, startShop } from './standalone-shop.js';

const arg = (name: string, fallback: number): number => {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name}=${raw}: expected a whole number`);
  return n;
};
const WARMUP = arg('warmup', 10_000);
const N = arg('n', 30_000);
const CHUNK = Math.max(1, arg('chunk', 1500));
const PAUSE_MS = arg('pause', 0);
const REWARM = arg('rewarm', 0);
const base = process.argv.find((a) => a.startsWith('--base='))?.slice(7);
const root = fileURLToPath(new URL('..', import.meta.url));
const servers: Array<[string, string]> = [
  ['floor', root],
  ['ours', root],
  ...(base ? [['base', base] as [string, string]] : []),
];

/** CPU time in µs so far of each thread of `pid`, the main thread as "main", the rest by name. */
function cpuByThread(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    byName.set(name, (byName.get(name) ?? 0) + statCpuUs(procStatFields(stat)));
  }
  return byName;
}

/** Of the whole process so far: user and system CPU in µs, and page faults that needed no I/O. */
function processStat(pid: number): { userUs: number; systemUs: number; minorFaults: number } {
  const fields = procStatFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return {
    userUs: Number(fields[11]) * TICK_US,
    systemUs: Number(fields[12]) * TICK_US,
    minorFaults: Number(fields[7]),
  };
}

async function measure(
  what: string,
  libRoot: string,
  sandboxUrl: string,
  sandbox: ReturnType<typeof createSandbox>,
): Promise<void> {
  const chunks = Math.ceil(N / CHUNK);
  const shop = await startShop(
    what === 'floor' ? 'floor' : 'ours',
    libRoot,
    sandbox,
    sandboxUrl,
    WARMUP + chunks * (REWARM + CHUNK),
    what,
    'node',
    [...(process.env.SHOP_FLAGS ?? '').split(' ').filter(Boolean), SHOP_SCRIPT],
  );
  const { child } = shop;
  let next = 0;
  const drive = (upTo: number): Promise<void> => {
    next = upTo;
    return shop.drive(upTo);
  };
  const total = new Map<string, number>();
  const perChunk: number[] = [];
  let busyMs = 0;
  const proc = { userUs: 0, systemUs: 0, minorFaults: 0 };
  try {
    await drive(WARMUP);
    for (let c = 0; c < chunks; c++) {
      if (PAUSE_MS) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      await drive(next + REWARM);
      const before = cpuByThread(child.pid!);
      const p0 = processStat(child.pid!);
      const t0 = performance.now();
      await drive(next + CHUNK);
      busyMs += performance.now() - t0;
      const p1 = processStat(child.pid!);
      for (const k of ['userUs', 'systemUs', 'minorFaults'] as const) proc[k] += p1[k] - p0[k];
      let chunkUs = 0;
      for (const [name, us] of cpuByThread(child.pid!)) {
        const d = us - (before.get(name) ?? 0);
        total.set(name, (total.get(name) ?? 0) + d);
        chunkUs += d;
      }
      perChunk.push(Math.round(chunkUs / CHUNK));
    }
  } finally {
    await shop.stop();
  }
  const measured = chunks * CHUNK;
  const threads = [...total]
    .filter(([, us]) => us / measured >= 0.5)
    .map(([name, us]) => `${name} ${(us / measured).toFixed(1)}`);
  const all = [...total.values()].reduce((a, b) => a + b, 0) / measured;
  const per = (n: number): string => (n / measured).toFixed(1);
  console.log(
    `${what.padEnd(5)} ${((measured / busyMs) * 1000).toFixed(0).padStart(5)} req/s  CPU ${all.toFixed(1)} us/approval (${threads.join(', ')}; user ${per(proc.userUs)}, system ${per(proc.systemUs)}; ${per(proc.minorFaults)} page faults)  by chunk: ${perChunk.join(' ')}${what === 'base' ? `  (${libRoot})` : ''}`,
  );
}

if (base) buildTree(base);
const sandbox = createSandbox({ merchants: [{ mid: BENCH_MID, merchantKey: BENCH_KEY }] });
const { url } = await sandbox.listen(0, '127.0.0.1');
try {
  console.log(
    `server CPU per approval by thread: ${WARMUP} warm-up, ${N} in chunks of ${CHUNK}${PAUSE_MS ? `, ${PAUSE_MS} ms idle before each` : ''}${REWARM ? `, ${REWARM} untimed before each` : ''}`,
  );
  for (const [what, libRoot] of servers) await measure(what, libRoot, url, sandbox);
} finally {
  await sandbox.close();
}
