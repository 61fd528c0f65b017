/**
 * Soak: `npm run soak -- [--n 100000] [--dup 0.1] [--concurrency 32] [--store-max 100000] [--max-seconds 900]`
 *
 * Drives N approvals through checkoutReturn (Express on loopback, memoryStore) against the
 * gateway sandbox, which runs in a child process so its ledger (which grows with N) stays out
 * of the middleware's memory. A share of the returns is posted twice concurrently
 * (duplicates). Prints approvals, duplicates served from the store, losses (committed at the
 * gateway but not recorded by onApproved), phantoms (recorded but not committed) and memory
 * (RSS and heap after GC, after warm-up vs at the end). Loopback only; bounded in count and
 * time. Run with --expose-gc (the npm script does).
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express, { type ErrorRequestHandler } from 'express';
import { Pool } from 'undici';
import { createNicepay, memoryStore } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const BATCH = 500;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a number`);
  return v;
}

interface Auth {
  body: string;
  contentType: string;
  tid: string;
  moid: string;
  amount: number;
}
type ToChild = { type: 'auth'; from: number; count: number } | { type: 'recorded'; tids: string[] } | { type: 'stats' };
type FromChild =
  | { type: 'ready'; url: string }
  | { type: 'auth'; auths: Auth[] }
  | { type: 'stats'; committed: number; approvalCalls: number; losses: number; phantoms: number; rssMb: number };

/* ---------------------------------------------------------------- the sandbox child */
async function child(): Promise<void> {
  const sandbox = createSandbox();
  const { url } = await sandbox.listen(0, '127.0.0.1');
  const recorded = new Set<string>();
  const send = (m: FromChild): void => void process.send!(m);
  process.on('message', async (m: ToChild) => {
    if (m.type === 'auth') {
      const auths: Auth[] = [];
      for (let i = m.from; i < m.from + m.count; i++) {
        const moid = `soak-${i}`;
        const amount = 1_000 + (i % 9_000);
        const a = await sandbox.authenticate({
          moid,
          amount,
          method: (['CARD', 'BANK', 'VBANK', 'CELLPHONE'] as const)[i % 4]!,
        });
        auths.push({ body: a.body.toString('latin1'), contentType: a.contentType, tid: a.fields.TxTid!, moid, amount });
      }
      send({ type: 'auth', auths });
    } else if (m.type === 'recorded') {
      for (const t of m.tids) recorded.add(t);
    } else if (m.type === 'stats') {
      const committed = sandbox.ledger.committed();
      const committedTids = new Set(committed.map((e) => e.tid));
      let approvalCalls = 0;
      for (const e of sandbox.ledger.entries()) approvalCalls += e.approvalCalls;
      send({
        type: 'stats',
        committed: committed.length,
        approvalCalls,
        losses: committed.filter((e) => !recorded.has(e.tid)).length,
        phantoms: [...recorded].filter((t) => !committedTids.has(t)).length,
        rssMb: process.memoryUsage().rss / 2 ** 20,
      });
      await sandbox.close();
      process.disconnect();
    }
  });
  send({ type: 'ready', url });
}

/* ---------------------------------------------------------------- the shop (parent) */
function ask<T extends FromChild['type']>(
  c: ChildProcess,
  msg: ToChild,
  type: T,
): Promise<Extract<FromChild, { type: T }>> {
  return new Promise((resolve) => {
    const on = (m: FromChild): void => {
      if (m.type === type) {
        c.off('message', on);
        resolve(m as Extract<FromChild, { type: T }>);
      }
    };
    c.on('message', on);
    if (msg) c.send(msg);
  });
}

function memory(): { rssMb: number; heapMb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 };
}

async function main(): Promise<void> {
  const n = Math.floor(arg('n', 100_000));
  const dupShare = arg('dup', 0.1);
  const concurrency = Math.max(1, Math.floor(arg('concurrency', 32)));
  const storeMax = Math.floor(arg('store-max', 100_000));
  const maxSeconds = arg('max-seconds', 900);
  if (!(globalThis as { gc?: unknown }).gc)
    console.warn('soak: run with --expose-gc (npm run soak does) for comparable memory figures');

  const sb = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await ask(sb, undefined as unknown as ToChild, 'ready');

  const nicepay = createNicepay({
    mid: MID,
    merchantKey: KEY,
    baseUrl: url,
    store: memoryStore({ maxEntries: storeMax }),
    timeouts: { connectMs: 2_000, responseMs: 10_000 },
  });
  let recordedBatch: string[] = [];
  let onApprovedCalls = 0;
  const app = express();
  app.post(
    '/pay/return',
    nicepay.checkoutReturn({
      expectedAmount: (moid) => 1_000 + (Number(moid.slice(5)) % 9_000),
      onApproved: (r) => {
        onApprovedCalls++;
        recordedBatch.push(r.tid);
      },
    }),
    (req, res) => void res.json({ status: req.checkout!.status, duplicate: req.checkout!.duplicate }),
  );
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const e = err as { status?: number; code?: string };
    res.status(e.status ?? 500).json({ code: e.code });
  };
  app.use(onError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: concurrency });

  let ok = 0;
  let duplicates = 0;
  let failed = 0;
  const failures = new Map<string, number>();
  const post = async (a: Auth): Promise<void> => {
    const res = await pool.request({
      method: 'POST',
      path: '/pay/return',
      headers: { 'content-type': a.contentType },
      body: a.body,
    });
    const body = (await res.body.json()) as { status?: string; duplicate?: boolean; code?: string };
    if (res.statusCode === 200 && (body.status === 'approved' || body.status === 'awaiting-deposit')) {
      ok++;
      if (body.duplicate) duplicates++;
    } else {
      failed++;
      const k = `${res.statusCode} ${body.code ?? body.status}`;
      failures.set(k, (failures.get(k) ?? 0) + 1);
    }
  };

  const started = Date.now();
  let baseline: { rssMb: number; heapMb: number } | undefined;
  const samples: string[] = [];
  let done = 0;
  let next = ask(sb, { type: 'auth', from: 0, count: Math.min(BATCH, n) }, 'auth');
  while (done < n) {
    const { auths } = await next;
    const from = done + auths.length;
    if (from < n) next = ask(sb, { type: 'auth', from, count: Math.min(BATCH, n - from) }, 'auth');
    const jobs: Array<() => Promise<void>> = [];
    auths.forEach((a, i) => {
      jobs.push(() => post(a));
      if ((i * 7919) % 1000 < dupShare * 1000) jobs.push(() => post(a)); // a concurrent duplicate
    });
    let j = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (j < jobs.length) await jobs[j++]!();
      }),
    );
    done = from;
    sb.send({ type: 'recorded', tids: recordedBatch });
    recordedBatch = [];
    if (!baseline && done >= Math.min(n, 2_000)) baseline = memory();
    if (done % Math.max(BATCH, Math.floor(n / 10 / BATCH) * BATCH) === 0 || done === n) {
      const m = memory();
      samples.push(`${done}: rss ${m.rssMb.toFixed(1)} MB, heap ${m.heapMb.toFixed(1)} MB`);
    }
    if ((Date.now() - started) / 1000 > maxSeconds) {
      console.warn(`soak: stopping at ${done} approvals after --max-seconds ${maxSeconds}`);
      break;
    }
  }
  const elapsed = (Date.now() - started) / 1000;
  const end = memory(); // before close(): close() empties the store
  await pool.close();
  await nicepay.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  const stats = await ask(sb, { type: 'stats' }, 'stats');

  const base = baseline ?? end;
  console.log(
    `soak: ${done} returns (+${ok + failed - done} duplicate posts) in ${elapsed.toFixed(1)} s (${(ok / elapsed).toFixed(0)} responses/s), concurrency ${concurrency}, memoryStore maxEntries ${storeMax}`,
  );
  console.log(`approvals (onApproved calls):     ${onApprovedCalls}`);
  console.log(`gateway committed / approval calls: ${stats.committed} / ${stats.approvalCalls}`);
  console.log(`duplicates answered from store:   ${duplicates}`);
  console.log(
    `failed responses:                 ${failed}${failures.size ? ` ${JSON.stringify(Object.fromEntries(failures))}` : ''}`,
  );
  console.log(`losses (committed - recorded):    ${stats.losses}`);
  console.log(`phantoms (recorded - committed):  ${stats.phantoms}`);
  console.log(
    `middleware process after GC:      rss ${base.rssMb.toFixed(1)} -> ${end.rssMb.toFixed(1)} MB (${end.rssMb - base.rssMb >= 0 ? '+' : ''}${(end.rssMb - base.rssMb).toFixed(1)}), heap ${base.heapMb.toFixed(1)} -> ${end.heapMb.toFixed(1)} MB (${end.heapMb - base.heapMb >= 0 ? '+' : ''}${(end.heapMb - base.heapMb).toFixed(1)}) [baseline after ${Math.min(n, 2_000)} approvals]`,
  );
  console.log(`sandbox child (ledger grows with N): rss ${stats.rssMb.toFixed(1)} MB`);
  console.log(`samples: ${samples.join(' | ')}`);
  const bad =
    stats.losses !== 0 ||
    stats.phantoms !== 0 ||
    onApprovedCalls !== stats.committed ||
    stats.approvalCalls !== stats.committed ||
    failed !== 0;
  process.exit(bad ? 1 : 0);
}

if (process.argv.includes('--child')) await child();
else await main();
