/**
 * `npm run bench:instructions [-- --base=<dir>] [-- --no-floor]`: machine instructions per
 * approval, counted by valgrind (cachegrind), for the floor and checkoutReturn.
 *
 * Time on this shared machine moves by ±5 % between runs of the same code; an instruction count
 * moves by well under 1 %, so it can tell a 1 % change apart. Each server runs twice under
 * valgrind with the same warm-up and a different number of approvals after it; the difference
 * divided by the difference in approvals is the cost of one approval in steady state (start-up,
 * module loading and warm-up cancel out). It is split into the program's own work ("mutator":
 * JavaScript, builtins, runtime, crypto), garbage collection and the optimizing compiler, by
 * function name. Needs valgrind (Debian: apt-get install valgrind); about a minute per server.
 * With `--functions=<dir>` it also writes each server's instructions per approval by function
 * to `<dir>/<server>.tsv` (count, then name; largest first), to compare two trees line by line.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../src/sandbox/index.js';
import { BENCH_KEY, BENCH_MID } from './ipc.js';
import { buildTree, SHOP_SCRIPT, startShop } from './standalone-shop.js';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const WARMUP = Number(arg('warmup') ?? 2000);
const SHORT = Number(arg('short') ?? 1000);
const LONG = Number(arg('long') ?? 3000);
const root = fileURLToPath(new URL('..', import.meta.url));
const roots: Array<[string, string]> = [
  ...(process.argv.includes('--no-floor') ? [] : [['floor', 'floor'] as [string, string]]),
  ['ours', root],
  ...(arg('base') ? [['base', arg('base')!] as [string, string]] : []),
];

/** Instructions by function for one valgrind run of `approvals` approvals after the warm-up. */
async function countRun(
  what: string,
  libRoot: string,
  approvals: number,
  sandboxUrl: string,
  sandbox: ReturnType<typeof createSandbox>,
  tag: string,
): Promise<string> {
  const out = join(os.tmpdir(), `express-nicepay-cachegrind-${process.pid}-${tag}.out`);
  const shop = await startShop(
    what === 'floor' ? 'floor' : 'ours',
    libRoot,
    sandbox,
    sandboxUrl,
    WARMUP + approvals,
    tag,
    'valgrind',
    ['--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`, 'node', SHOP_SCRIPT],
    'pipe',
  );
  try {
    await shop.drive(WARMUP + approvals);
  } finally {
    await shop.stop();
  }
  return out;
}

const GC =
  /Scaveng|Marking|Sweep|MarkCompact|Heap::|heap::|Evacuat|RememberedSet|SlotSet|MemoryChunk|ConcurrentMark|GCTracer|IterateMaybeWeak|IteratePointers|IncrementalMarking|MinorMC|BodyDescriptor|LargeObjectSpace|PagedSpace|SemiSpace|Page::|Worklist/;
const COMPILER =
  /compiler::|Compiler|Pipeline|maglev|Maglev|baseline::|Zone::|turboshaft|CodeAssembler|RegAlloc|LiveRange|Instruction/;

/** Instructions per approval between two runs, split into mutator, GC and compiler. */
function perApproval(
  shortOut: string,
  longOut: string,
  what: string,
): { total: number; mutator: number; gc: number; compiler: number } {
  const diff = join(os.tmpdir(), `express-nicepay-cachegrind-${process.pid}.diff`);
  writeFileSync(diff, execFileSync('cg_diff', [shortOut, longOut], { maxBuffer: 1 << 30 }));
  const annotated = execFileSync('cg_annotate', ['--threshold=0', diff], { maxBuffer: 1 << 30 }).toString();
  for (const f of [diff, shortOut, longOut]) rmSync(f, { force: true });
  const split = { total: 0, mutator: 0, gc: 0, compiler: 0 };
  const seen = new Set<string>();
  const byFunction: Array<[number, string]> = [];
  for (const line of annotated.split('\n')) {
    if (line.startsWith('-- Auto-annotated') || line.startsWith('-- User-annotated')) break;
    const m = /^\s*(-?[\d,]+)\s+\(\s*-?[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2]!.includes('PROGRAM TOTALS') || seen.has(m[2]!)) continue;
    seen.add(m[2]!);
    const n = Number(m[1]!.replaceAll(',', ''));
    split.total += n;
    byFunction.push([n, m[2]!]);
    if (GC.test(m[2]!)) split.gc += n;
    else if (COMPILER.test(m[2]!)) split.compiler += n;
    else split.mutator += n;
  }
  const per = LONG - SHORT;
  const dir = arg('functions');
  if (dir) {
    mkdirSync(dir, { recursive: true });
    byFunction.sort((a, b) => b[0] - a[0]);
    writeFileSync(
      join(dir, `${what}.tsv`),
      `${byFunction.map(([n, name]) => `${(n / per).toFixed(0)}\t${name}`).join('\n')}\n`,
    );
  }
  return { total: split.total / per, mutator: split.mutator / per, gc: split.gc / per, compiler: split.compiler / per };
}

if (arg('base')) buildTree(arg('base')!);
const sandbox = createSandbox({ merchants: [{ mid: BENCH_MID, merchantKey: BENCH_KEY }] });
const { url } = await sandbox.listen(0, '127.0.0.1');
try {
  console.log(`instructions per approval (cachegrind; ${WARMUP} warm-up, ${LONG} - ${SHORT} approvals)`);
  for (const [what, libRoot] of roots) {
    const short = await countRun(what, libRoot, SHORT, url, sandbox, `${what}-s`);
    const long = await countRun(what, libRoot, LONG, url, sandbox, `${what}-l`);
    const r = perApproval(short, long, what);
    const k = (n: number): string => `${(n / 1000).toFixed(0)}k`;
    console.log(
      `${what.padEnd(6)} mutator ${k(r.mutator)}  gc ${k(r.gc)}  compiler ${k(r.compiler)}  total ${k(r.total)}${what === 'floor' ? '' : `  (${libRoot})`}`,
    );
  }
} finally {
  await sandbox.close();
}
