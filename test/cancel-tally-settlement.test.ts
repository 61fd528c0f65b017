/**
 * Full cancels of one TID settled against each other: the gateway cancels a TID in full once,
 * so the ledger keeps exactly one of them whatever the store did (a failed tally write, a record
 * expired) and whichever instance settles them; a cancel refused for its tally is never sent.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/index.js';
import type { LedgerStore } from '../src/store/types.js';
import { startShop, type TestShop } from './helpers/shop.js';

async function paid(shop: TestShop, moid: string, amount: number): Promise<string> {
  shop.orders.set(moid, amount);
  const auth = await shop.sandbox.authenticate({ moid, amount, method: 'CARD' });
  await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
  return auth.fields.TxTid!;
}
const full = (tid: string, moid: string, key: string) => ({
  tid,
  moid,
  amount: 6_000,
  reason: '전체 환불',
  idempotencyKey: key,
});

describe('full cancels of one TID: exactly one is kept', function () {
  this.timeout(60_000);
  let shop: TestShop;
  afterEach(() => shop?.close());

  it('a full cancel done a day before still makes a later lost full cancel, answered "already cancelled", never-charged', async () => {
    let offset = 0;
    const store = memoryStore({ now: () => Date.now() + offset });
    shop = await startShop({ nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    const tid = await paid(shop, 'r3a', 6_000);
    expect((await shop.nicepay.cancel(full(tid, 'r3a', 'A'))).status).to.equal('cancelled');
    offset += 25 * 60 * 60 * 1000; // the cancel record (kept 24 h) expires; its tally entry (35 days) does not
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
    const lost = await shop.nicepay.cancel(full(tid, 'r3a', 'B')).catch((e: unknown) => e);
    expect(lost).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    const report = await shop.nicepay.settle();
    expect((shop.sandbox.ledger.get(tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([6_000]);
    expect(report.settled.filter((x) => x.tid === tid).map((x) => x.outcome)).to.deep.equal(['never-charged']);
  });

  it('a cancel refused because its tally entry could not be written leaves nothing settlement would send, even when the store fails throughout', async () => {
    let offset = 0;
    const inner = memoryStore({ now: () => Date.now() + offset });
    let fail = true;
    const store: LedgerStore = {
      ...inner,
      acquire: (key, ms, initial) =>
        fail && key.startsWith('cancels:') ? Promise.reject(new Error('store down')) : inner.acquire(key, ms, initial),
      remove: (key, token) => (fail ? Promise.reject(new Error('store down')) : inner.remove(key, token)),
    };
    shop = await startShop({ nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    const tid = await paid(shop, 'r4a', 6_000);
    const refused = await shop.nicepay.cancel(full(tid, 'r4a', 'A')).catch((e: unknown) => e);
    expect(refused).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });
    expect((refused as Error).message).to.include('nothing was sent');
    fail = false;
    offset += 31_000; // the forgotten key's lease expires
    await shop.nicepay.settle();
    expect(shop.sandbox.ledger.get(tid)?.cancels ?? []).to.deep.equal([]);
  });

  it("a tally write that failed leaves no gap hiding the retry's entry: a later lost full cancel is never-charged", async () => {
    const inner = memoryStore();
    let failWrite = true;
    const store: LedgerStore = {
      ...inner,
      write: (key, token, w, release) => {
        if (failWrite && key.startsWith('cancels:')) {
          failWrite = false;
          return Promise.reject(new Error('store blip'));
        }
        return inner.write(key, token, w, release);
      },
    };
    shop = await startShop({ nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    const tid = await paid(shop, 'r4b', 6_000);
    const refused = await shop.nicepay.cancel(full(tid, 'r4b', 'A')).catch((e: unknown) => e);
    expect(refused).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });
    // The caller retries at once, as told: it is sent and done.
    expect((await shop.nicepay.cancel(full(tid, 'r4b', 'A'))).status).to.equal('cancelled');
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
    const lost = await shop.nicepay.cancel(full(tid, 'r4b', 'B')).catch((e: unknown) => e);
    expect(lost).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    const report = await shop.nicepay.settle();
    expect((shop.sandbox.ledger.get(tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([6_000]);
    expect(report.settled.filter((x) => x.tid === tid).map((x) => x.outcome)).to.deep.equal(['never-charged']);
  });
});

describe('full cancels of one TID settled by two instances at once', function () {
  this.timeout(60_000);
  it('two lost full cancels, one done at the gateway, settled at once by two instances: one kept, one never-charged', async () => {
    const inner = memoryStore();
    let slow = false;
    // A durable store's write takes a moment (here 50 ms) once settlement runs.
    const store: LedgerStore = {
      ...inner,
      write: async (key, token, w, release) => {
        if (slow) await new Promise((r) => setTimeout(r, 50));
        return inner.write(key, token, w, release);
      },
    };
    const one = await startShop({ nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    const two = await startShop({ sandbox: one.sandbox, nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    try {
      const tid = await paid(one, 'r3d', 6_000);
      one.sandbox.faults.inject({ target: 'cancel', kind: 'status-500' });
      expect(await one.nicepay.cancel(full(tid, 'r3d', 'A')).catch((e: unknown) => e)).to.include({
        code: 'NICEPAY_OUTCOME_UNKNOWN',
      });
      one.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect(await one.nicepay.cancel(full(tid, 'r3d', 'B')).catch((e: unknown) => e)).to.include({
        code: 'NICEPAY_OUTCOME_UNKNOWN',
      });
      slow = true;
      const [a, b] = await Promise.all([one.nicepay.settle(), two.nicepay.settle()]);
      const outcomes = [...a.settled, ...b.settled]
        .filter((x) => x.tid === tid)
        .map((x) => x.outcome)
        .sort();
      expect((one.sandbox.ledger.get(tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([6_000]);
      expect(outcomes).to.deep.equal(['kept', 'never-charged']);
    } finally {
      await two.close();
      await one.close();
    }
  });
});

describe('a settled cancel answers its repeats as long as its tally names it', function () {
  this.timeout(60_000);
  it('the same cancel repeated with its key a day after settlement kept it reads cancelled, and nothing is sent', async () => {
    let offset = 0;
    const store = memoryStore({ now: () => Date.now() + offset });
    const shop = await startShop({ nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    try {
      const tid = await paid(shop, 'r5', 6_000);
      shop.sandbox.faults.inject({ target: 'cancel', kind: 'status-500' }); // the gateway cancels; the answer is lost
      expect(await shop.nicepay.cancel(full(tid, 'r5', 'refund-1-0')).catch((e: unknown) => e)).to.include({
        code: 'NICEPAY_OUTCOME_UNKNOWN',
      });
      // Settled by `express-nicepay settle` (cron, another process) or while the shop was closing: no event reached the shop.
      const report = await shop.nicepay.settle();
      expect(report.settled.map((x) => x.outcome)).to.deep.equal(['kept']);
      offset += 25 * 60 * 60 * 1000; // the operator presses "resolve" the next day
      const again = await shop.nicepay.cancel(full(tid, 'r5', 'refund-1-0')).catch((e: unknown) => e);
      expect((shop.sandbox.ledger.get(tid)?.cancels ?? []).length).to.equal(1);
      expect(again).to.include({ status: 'cancelled' });
    } finally {
      await shop.close();
    }
  });
});

describe('a partial cancel refused for its tally', function () {
  this.timeout(60_000);
  it('retried by the caller as told, is sent (not left open needing attention)', async () => {
    let offset = 0;
    const inner = memoryStore({ now: () => Date.now() + offset });
    let fail = true;
    const store: LedgerStore = {
      ...inner,
      acquire: (key, ms, initial) =>
        fail && key.startsWith('cancels:') ? Promise.reject(new Error('store down')) : inner.acquire(key, ms, initial),
      remove: (key, token) => (fail ? Promise.reject(new Error('store down')) : inner.remove(key, token)),
    };
    const shop = await startShop({ nicepay: { store, settle: { intervalMs: 3_600_000 } } });
    try {
      const tid = await paid(shop, 'r4c', 6_000);
      const part = {
        tid,
        moid: 'r4c',
        amount: 1_000,
        reason: '부분 환불',
        partial: true,
        remainingAmount: 6_000,
        idempotencyKey: 'P',
      };
      const refused = await shop.nicepay.cancel(part).catch((e: unknown) => e);
      expect(refused).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });
      fail = false;
      offset += 31_000;
      const retry = await shop.nicepay.cancel(part).catch((e: unknown) => e);
      expect(retry, JSON.stringify(retry)).to.include({ status: 'cancelled' });
    } finally {
      await shop.close();
    }
  });
});
