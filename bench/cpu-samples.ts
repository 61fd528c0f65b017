/**
 * `npx tsx bench/cpu-samples.ts [--base=<dir>] [--warmup=30000] [--n=12000] [--symbols=K]`: where a server's
 * CPU per approval goes, by Linux perf's CPU-clock samples of every thread, for checkoutReturn of
 * this tree and (with `--base`) of another, one server at a time.
 *
 * Each server gets `--warmup` approvals, then perf samples it (2,000 a second, all threads)
 * while it serves `--n` more. With a base, each tree runs twice, in the order ours, base, base,
 * ours, so that neither always has the machine's earlier or later load; the figures are the
 * mean of its two runs. Samples are sorted by symbol into the collector's (`gc`), the
 * optimizing compiler's, V8's inline caches and property lookups (`ic`), the package's and its
 * libraries' compiled JavaScript (`js`, named through `--perf-basic-prof-only-functions`), JSON,
 * the kernel's, and the rest; each is shown in µs per approval. Unlike instruction counts
 * (bench/instructions.ts), samples count time spent waiting on memory; unlike `npm run bench`,
 * they tell where the time went. `--symbols=K` also lists the K symbols (a compiled function, a
 * builtin, a C++ function) whose time per approval differs most between the two trees. Needs perf (Debian: apt-get install linux-perf). Linux only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../src/sandbox/index.js';
import { BENCH_KEY, BENCH_MID } from './ipc.js';
import { buildTree, SHOP_SCRIPT, startShop } from './standalone-shop.js';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const WARMUP = Number(arg('warmup') ?? 30_000);
const N = Number(arg('n') ?? 12_000);
const HZ = 2000;
const root = fileURLToPath(new URL('..', import.meta.url));
const base = arg('base');
const ours: [string, string] = ['ours', root];
const servers: Array<[string, string]> = base ? [ours, ['base', base], ['base', base], ours] : [ours];

/** Categories of a sample's symbol, first match wins; the rest is "other". */
const CATEGORIES: Array<[string, RegExp]> = [
  ['kernel', /^\[k\]/],
  [
    'gc',
    /Scaveng|Marking|Sweep|MarkCompact|Heap::|heap::|Evacuat|RememberedSet|SlotSet|MemoryChunk|ConcurrentMark|GCTracer|IterateMaybeWeak|IteratePointers|IncrementalMarking|MinorMC|BodyDescriptor|LargeObjectSpace|PagedSpace|SemiSpace|Page::|Worklist/,
  ],
  ['compiler', /compiler::|Compiler|Pipeline|maglev|Maglev|baseline::|Zone::|turboshaft|CodeAssembler|RegAlloc/],
  ['json', /Json/],
  ['ic', /LookupIterator|StubCache|IC_|LoadIC|StoreIC|MigrateToMap|DescriptorArray|Map::|Transition|FeedbackVector/],
  ['js', /\] JS:/],
];

/** Samples of one server over `N` approvals after the warm-up, by category. */
async function sample(what: string, libRoot: string, sandbox: ReturnType<typeof createSandbox>, url: string) {
  const data = join(os.tmpdir(), `express-nicepay-perf-${process.pid}-${what}.data`);
  const shop = await startShop('ours', libRoot, sandbox, url, WARMUP + N, `samples-${what}`, 'node', [
    '--perf-basic-prof-only-functions',
    SHOP_SCRIPT,
  ]);
  try {
    await shop.drive(WARMUP);
    const perf = spawn(
      'perf',
      ['record', '-q', '-e', 'cpu-clock', '-F', String(HZ), '-o', data, '-p', String(shop.child.pid)],
      {
        stdio: 'inherit',
      },
    );
    // perf attaches before the first measured approval: its own start-up is not sampled.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await shop.drive(WARMUP + N);
    const exited = new Promise((resolve) => perf.on('exit', resolve));
    perf.kill('SIGINT');
    await exited;
    const report = execFileSync(
      'perf',
      ['report', '-i', data, '--no-children', '--sort', 'sym', '--stdio', '-F', 'sample,sym'],
      {
        maxBuffer: 1 << 28,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    ).toString();
    const by = new Map<string, number>();
    const symbols = new Map<string, number>();
    for (const line of report.split('\n')) {
      const m = /^\s*(\d+)\s+(\[.\].*)$/.exec(line);
      if (!m) continue;
      const category = CATEGORIES.find(([, re]) => re.test(m[2]!))?.[0] ?? 'other';
      by.set(category, (by.get(category) ?? 0) + Number(m[1]));
      // A compiled function's address differs from run to run: its name is what compares.
      const symbol = m[2]!.replace(/^(\[.\] JS:\S*).*/, '$1').trim();
      symbols.set(symbol, (symbols.get(symbol) ?? 0) + Number(m[1]));
    }
    return { by, symbols };
  } finally {
    await shop.stop();
    rmSync(data, { force: true });
    rmSync(`/tmp/perf-${shop.child.pid}.map`, { force: true });
  }
}

if (base) buildTree(base);
const sandbox = createSandbox({ merchants: [{ mid: BENCH_MID, merchantKey: BENCH_KEY }] });
const { url } = await sandbox.listen(0, '127.0.0.1');
try {
  // Each tree's samples over its runs, and how many runs.
  const results = new Map<string, { by: Map<string, number>; symbols: Map<string, number>; runs: number }>();
  for (const [i, [what, libRoot]] of servers.entries()) {
    const { by, symbols } = await sample(`${what}-${i}`, libRoot, sandbox, url);
    const sum = results.get(what) ?? { by: new Map<string, number>(), symbols: new Map<string, number>(), runs: 0 };
    for (const [category, n] of by) sum.by.set(category, (sum.by.get(category) ?? 0) + n);
    for (const [symbol, n] of symbols) sum.symbols.set(symbol, (sum.symbols.get(symbol) ?? 0) + n);
    sum.runs++;
    results.set(what, sum);
  }
  const us = (samples: number, runs: number): string => ((samples / runs / N / HZ) * 1e6).toFixed(1);
  console.log(`CPU per approval by perf samples (${WARMUP} warm-up, ${N} sampled; µs per approval)`);
  console.log(['category', ...results.keys()].join('\t'));
  for (const category of [...CATEGORIES.map(([c]) => c), 'other', 'total']) {
    const row = [...results.values()].map(({ by, runs }) =>
      us(category === 'total' ? [...by.values()].reduce((a, b) => a + b, 0) : (by.get(category) ?? 0), runs),
    );
    console.log([category, ...row].join('\t'));
  }
  // --symbols=K: the K symbols whose share differs most between the two trees.
  const top = Number(arg('symbols') ?? 0);
  const a = results.get('ours');
  const b = results.get('base');
  if (top > 0 && a && b) {
    const perApproval = (m: Map<string, number>, runs: number, k: string): number =>
      ((m.get(k) ?? 0) / runs / N / HZ) * 1e6;
    const rows = [...new Set([...a.symbols.keys(), ...b.symbols.keys()])]
      .map((k) => [k, perApproval(a.symbols, a.runs, k), perApproval(b.symbols, b.runs, k)] as const)
      .sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]))
      .slice(0, top);
    console.log(`\nsymbol\tours\tbase\tdifference (µs per approval)`);
    for (const [k, x, y] of rows) console.log(`${k}\t${x.toFixed(2)}\t${y.toFixed(2)}\t${(x - y).toFixed(2)}`);
  }
} finally {
  await sandbox.close();
}
