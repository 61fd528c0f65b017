/**
 * `npx tsx bench/ledger.ts [--hook] [--n=20000]`: the payment ledger alone, with no HTTP and no
 * wire code: `runOperation` of an approval-like call on the default memoryStore whose answer is
 * a success made in process. Prints the CPU time per operation (process.cpuUsage, the best of
 * 5 batches of `--n`, after a warm-up of `--n`) and the bytes allocated per operation (V8's
 * sampling heap profiler over 5,000 more, collected objects included). `--hook` gives every
 * call an onApproved that does nothing. What it measures is the pipeline's own cost per money
 * operation: its record and its moves, the lease and its heartbeat, the store's calls, the
 * promises between them and the copies it keeps.
 */
import { Session } from 'node:inspector/promises';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { type OperationCall, type OperationKind, runOperation } from '../src/pipeline/index.js';
import { memoryStore } from '../src/store/memory-store.js';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const N = Number(arg('n') ?? 20_000);
const hook = process.argv.includes('--hook');
const SAMPLED = 5_000;

const ctx = createContext(
  resolveConfig({
    mid: 'nicepay00m',
    merchantKey: 'k'.repeat(88),
    baseUrl: 'http://127.0.0.1:9',
    // Room for every operation of the run: none is closed early.
    store: memoryStore({ maxEntries: 12 * N + SAMPLED + 1 }),
  }),
);
const kind: OperationKind<string> = {
  op: 'approval',
  what: 'approval',
  keepMs: 24 * 60 * 60 * 1000,
  result: (r) => r.state,
  inquire: async () => 'holds',
};
const fields = Object.freeze({ ResultCode: '3001', ResultMsg: 'approved', Amt: '000000001004' });

let next = 0;
/** A new operation: its own TID and Moid, answered with a success at once. */
function call(): OperationCall<string> {
  const n = next++;
  const tid = `nicepay00m01012611271234${String(n).padStart(6, '0')}`;
  const moid = `bench-ledger-order-${n}`;
  return {
    kind,
    key: `approval:nicepay00m:${tid}`,
    start: { tid, moid, amount: 1004, binding: 'b'.repeat(64), data: { method: 'CARD' } },
    send: { ids: { tid, moid }, exchange: async () => ({ kind: 'success', code: '3001', fields }) },
    refusal: 'kept',
    // A call whose record is bound to what the buyer presented says how a repeat differs.
    mismatch: { field: 'authToken', message: () => 'another authentication' },
    ...(hook ? { hook: { run: () => undefined, timeoutMs: 10_000 } } : {}),
  };
}

async function run(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await runOperation(ctx, call());
}

interface SampleNode {
  selfSize: number;
  children: SampleNode[];
}
const sampledBytes = (node: SampleNode): number =>
  node.children.reduce((sum, child) => sum + sampledBytes(child), node.selfSize);

await run(N);
let best = Number.POSITIVE_INFINITY;
for (let batch = 0; batch < 5; batch++) {
  const start = process.cpuUsage();
  await run(N);
  const used = process.cpuUsage(start);
  best = Math.min(best, (used.user + used.system) / N);
}
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 512,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as never);
await run(SAMPLED);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampleNode } };
session.disconnect();
console.log(
  `ledger${hook ? ' with a hook' : ''}: ${best.toFixed(2)} µs CPU and ${(sampledBytes(profile.head) / SAMPLED).toFixed(0)} bytes allocated per operation`,
);
await closeContext(ctx);
