/**
 * Flood: `npm run flood -- [--n 100000] [--concurrency 32] [--store-max 100000]`
 *
 * The flood of forged returns an outsider can send: one genuine authentication of the
 * attacker's own, posted again and again with made-up TxTids. Each is signed (the Signature
 * covers AuthToken, MID and Amt, not the TxTid), so each reaches the gateway, which refuses the
 * token for that TID (W010). Before the flood the shop records a billing charge and a key-in in
 * the same memoryStore (default bound); after it, it checks that both records are intact, that
 * resubmitting their Moids charges nothing again, and how many records the store holds. Prints
 * the answers by status and code, the store's size, and whether anything was charged twice.
 * Loopback only (the sandbox plays the gateway).
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'undici';
import { createNicepay, memoryStore } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

const N = arg('n', 100_000);
const CONCURRENCY = arg('concurrency', 32);
const STORE_MAX = arg('store-max', 100_000);

const sandbox = createSandbox();
const { url } = await sandbox.listen(0);
const store = memoryStore({ maxEntries: STORE_MAX });
const nicepay = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: url, store, settle: false });
const app = express();
app.post(
  '/pay/return',
  nicepay.checkoutReturn({ expectedAmount: (moid) => (moid === 'attacker' ? 1_000 : undefined) }),
  (req, res) => void res.json(req.checkout),
);
app.use(
  ((err, _req, res, _next) =>
    void res
      .status((err as { status?: number }).status ?? 500)
      .json({ code: (err as { code?: string }).code })) as express.ErrorRequestHandler,
);
const server = app.listen(0, '127.0.0.1');
await new Promise((ok) => server.once('listening', ok));
const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// The shop's own money: a billing charge and a key-in, once per Moid.
const card = { number: '4111111111111111', expiry: '3012' };
const reg = await nicepay.billing.register({
  moid: 'flood-reg',
  card: { number: card.number, expYear: '30', expMonth: '12' },
});
if (reg.status !== 'registered') throw new Error(`billing registration: ${reg.status}`);
const charge = { bid: reg.bid, moid: 'flood-sub', amount: 29_900, goodsName: '정기 구독' };
const keyin = { moid: 'flood-keyin', amount: 12_000, goodsName: '키인 상품', card };
const charged = await nicepay.billing.charge(charge);
const keyed = await nicepay.keyin(keyin);
if (charged.status !== 'approved' || keyed.status !== 'approved')
  throw new Error('the shop could not take its own payments');

// The attacker's one genuine authentication, then the flood.
const own = await sandbox.authenticate({ moid: 'attacker', amount: 1_000, method: 'CARD' });
const pool = new Pool(shopUrl, { connections: CONCURRENCY });
const answers = new Map<string, number>();
let next = 0;
const started = process.hrtime.bigint();
const cpuBefore = process.cpuUsage();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) {
      const i = next++;
      const body = encodeForm({ ...own.fields, TxTid: `${MID}0101261127${String(i).padStart(10, '0')}` }, 'euc-kr');
      const res = await pool.request({
        path: '/pay/return',
        method: 'POST',
        headers: { 'content-type': own.contentType },
        body,
      });
      const text = await res.body.text();
      const key = `${res.statusCode} ${(JSON.parse(text) as { code?: string; status?: string }).code ?? (JSON.parse(text) as { status?: string }).status}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
    }
  }),
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuBefore);

// After the flood: the shop's records, a resubmission of each Moid, the gateway's own count.
const billingRecord = await store.get(`billing:${MID}:flood-sub`);
const keyinRecord = await store.get(`keyin:${MID}:flood-keyin`);
const again = await nicepay.billing.charge(charge);
const keyinAgain = await nicepay.keyin(keyin);
const chargesAtGateway = sandbox.ledger.byMoid(MID, 'flood-sub').length;
const keyinsAtGateway = sandbox.ledger.byMoid(MID, 'flood-keyin').length;
const open = await store.open(1_000);

console.log(`flood: ${N} forged returns, ${CONCURRENCY} at once, memoryStore maxEntries ${STORE_MAX}`);
console.log(`answers: ${[...answers].map(([k, v]) => `${v} × ${k}`).join(', ')}`);
console.log(
  `time: ${seconds.toFixed(1)} s (${Math.round(N / seconds)} returns/s); shop process CPU ${((cpu.user + cpu.system) / N).toFixed(0)} µs per return (the sandbox runs in this process too)`,
);
console.log(
  `billing record: ${billingRecord ? JSON.parse(billingRecord.value).state : 'GONE'}; key-in record: ${keyinRecord ? JSON.parse(keyinRecord.value).state : 'GONE'}; open records: ${open.length}`,
);
console.log(
  `resubmitted: billing ${again.status}${again.status === 'approved' && again.duplicate ? ' (duplicate)' : ''}, key-in ${keyinAgain.status}${keyinAgain.status === 'approved' && keyinAgain.duplicate ? ' (duplicate)' : ''}`,
);
console.log(`at the gateway: billing charged ${chargesAtGateway} time(s), key-in ${keyinsAtGateway} time(s)`);
const ok =
  billingRecord !== undefined &&
  keyinRecord !== undefined &&
  chargesAtGateway === 1 &&
  keyinsAtGateway === 1 &&
  open.length === 0;
console.log(ok ? 'flood: every money record intact, nothing charged twice' : 'flood: FAILED');
await pool.close();
server.close();
await nicepay.close();
await sandbox.close();
process.exit(ok ? 0 : 1);
