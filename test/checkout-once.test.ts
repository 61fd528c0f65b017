/**
 * Nothing is approved twice: concurrent and later duplicates of one return get the first
 * request's result, across instances sharing a store. A state the ledger could not record is
 * never acted on: the buyer is told the last state it did record, and settlement finishes the
 * payment from there.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/index.js';
import { flakyStore } from './helpers/ledger-store.js';
import { MID, startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn: nothing approved twice', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop();
  });
  after(() => shop.close());

  it('20 concurrent duplicates of one return: one approval, one onApproved, the same result for all', async () => {
    const moid = 'dup-20';
    shop.orders.set(moid, 30_000);
    const auth = await shop.sandbox.authenticate({ moid, amount: 30_000, method: 'CARD' });
    const server = shop.app.listen(0, '127.0.0.1');
    try {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          request(server).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1')),
        ),
      );
      for (const r of responses) {
        expect(r.status).to.equal(200);
        expect(r.body.status).to.equal('approved');
        expect(r.body.payment.authCode).to.equal(responses[0]!.body.payment.authCode);
      }
      expect(responses.filter((r) => r.body.duplicate === false)).to.have.length(1);
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
      expect(shop.approved.filter((a) => a.tid === auth.fields.TxTid)).to.have.length(1);
    } finally {
      server.close();
    }
  });

  it('a duplicate after completion returns the cached result with duplicate: true', async () => {
    const moid = 'dup-seq';
    shop.orders.set(moid, 1_000);
    const auth = await shop.sandbox.authenticate({ moid, amount: 1_000, method: 'BANK' });
    const first = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    const second = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(first.body.status).to.equal('approved');
    expect(second.body).to.deep.equal({ ...first.body, duplicate: true });
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
  });

  it('when onApproved throws, the approval is net-cancelled and duplicates get the same error', async () => {
    const failing = await startShop({
      sandbox: shop.sandbox,
      route: {
        onApproved: () => {
          throw new Error('database down');
        },
      },
    });
    failing.orders.set('hook-fail', 7_000);
    const auth = await shop.sandbox.authenticate({ moid: 'hook-fail', amount: 7_000, method: 'CARD' });
    const res = await request(failing.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    const again = await request(failing.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    await failing.close();
    expect(res.status).to.equal(500);
    expect(res.body.code).to.equal('NICEPAY_HOOK_FAILED');
    expect(res.body.netCancel).to.equal('succeeded');
    expect(again.body.code).to.equal('NICEPAY_HOOK_FAILED');
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('net-cancelled');
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
  });

  it('a ledger record this instance cannot read is 503 NICEPAY_STORE_UNAVAILABLE naming the key, and nothing is sent', async () => {
    const store = memoryStore();
    const other = await startShop({ sandbox: shop.sandbox, nicepay: { store } });
    other.orders.set('unreadable', 2_000);
    const auth = await shop.sandbox.authenticate({ moid: 'unreadable', amount: 2_000, method: 'CARD' });
    // As if another instance, on another version, had finished this TID and written its own format.
    const key = `approval:${auth.fields.MID}:${auth.fields.TxTid}`;
    const held = await store.acquire(key, 10_000);
    if (held.state !== 'acquired') throw new Error('expected to take the key');
    await store.write(key, held.token, { value: '{"format":"from elsewhere"}', open: false, keepMs: 60_000 }, true);
    const res = await request(other.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    await other.close();
    expect(res.status).to.equal(503);
    expect(res.body.code).to.equal('NICEPAY_STORE_UNAVAILABLE');
    // A 5xx message is the operator's, not the buyer's: it names the key in the error passed on.
    expect((other.errors.at(-1) as Error).message).to.include(key);
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});

describe('checkoutReturn when the store cannot write the next state', () => {
  /** A shop on a store whose writes fail as `fails` says; the route's onApproved is also settlement's. */
  async function flakyShop(fails: Parameters<typeof flakyStore>[0]) {
    const flaky = flakyStore(fails);
    const shop = await startShop({ nicepay: { store: flaky.store, settle: false } });
    shop.orders.set('unstored-1', 1004);
    const auth = await shop.sandbox.authenticate({ moid: 'unstored-1', amount: 1004, method: 'CARD' });
    const post = () =>
      request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    return { flaky, shop, auth, post, tid: auth.fields.TxTid!, key: `approval:${MID}:${auth.fields.TxTid}` };
  }
  const logLines = (shop: TestShop) =>
    shop.captured.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

  it('when no write succeeds: the hook does not run, nothing is reversed, the buyer is told the outcome is being settled, and the TID is logged', async () => {
    const { flaky, shop, post, tid } = await flakyShop(() => true);
    try {
      const res = await post();
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'not-attempted' });
      expect(shop.errors.at(-1)).to.include({ tid, settlement: 'pending', outcomeUnknown: true });
      expect(shop.approved).to.have.length(0);
      expect(shop.sandbox.ledger.get(tid)?.status).to.equal('approved');
      const line = logLines(shop).find((l) => String(l.msg).includes('could not be written'));
      expect(line).to.include({ level: 'error', tid, moid: 'unstored-1', step: 'store', error: 'write lost' });
    } finally {
      await shop.close();
      await flaky.store.close?.();
    }
  });

  it("when the approval cannot be recorded before the hook: the hook does not run and nothing is reversed; once the store answers and the lease ran out, the buyer's retry settles it: the hook runs once and the retry is the approval", async () => {
    const { flaky, shop, post, tid, key } = await flakyShop((next) => next.state === 'committed');
    try {
      const res = await post();
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'not-attempted' });
      expect(shop.errors.at(-1)).to.include({ tid, settlement: 'pending', outcomeUnknown: true });
      expect(shop.approved).to.have.length(0);
      expect(await flaky.record(key)).to.include({ state: 'sending' });
      // The store answers again and the dead request's lease expires: the buyer's retry finds
      // the record open and due, learns the gateway holds the payment and runs onApproved.
      flaky.recover();
      flaky.advance(31_000);
      const retry = await post();
      expect(retry.status).to.equal(200);
      expect(retry.body).to.include({ status: 'approved', tid, duplicate: true, recovered: true });
      expect(shop.approved.map((a) => a.tid)).to.deep.equal([tid]);
      expect(await flaky.record(key)).to.include({ state: 'recorded', hook: 'resolved' });
      expect((await shop.nicepay.settle()).settled.filter((s) => s.tid === tid)).to.deep.equal([]);
      expect((await post()).body).to.include({ status: 'approved', tid, duplicate: true });
      expect(shop.approved).to.have.length(1);
      expect(shop.sandbox.ledger.get(tid)?.status).to.equal('approved');
      expect(shop.sandbox.ledger.get(tid)?.approvalCalls).to.equal(1);
    } finally {
      await shop.close();
      await flaky.store.close?.();
    }
  });

  it('when the final write fails after the hook resolved: the buyer is told the last recorded state (committed: HOOK_FAILED, pending), never a result the ledger does not hold', async () => {
    const { flaky, shop, post, tid, key } = await flakyShop((next) => next.state === 'recorded');
    try {
      const res = await post();
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted' });
      expect(shop.errors.at(-1)).to.include({ tid, settlement: 'pending', outcomeUnknown: true });
      expect(await flaky.record(key)).to.include({ state: 'committed' });
      expect(shop.sandbox.ledger.get(tid)?.status).to.equal('approved');
      // Settlement finishes it from the committed record: the hook runs again (at least once).
      flaky.recover();
      flaky.advance(31_000);
      const report = await shop.nicepay.settle();
      expect(report.settled).to.deep.include({
        operation: 'approval',
        mid: MID,
        tid,
        moid: 'unstored-1',
        amount: 1004,
        outcome: 'kept',
      });
      expect(shop.approved.map((a) => a.tid)).to.deep.equal([tid, tid]);
      expect((await post()).body).to.include({ status: 'approved', tid, duplicate: true });
      expect(shop.sandbox.ledger.get(tid)?.status).to.equal('approved');
    } finally {
      await shop.close();
      await flaky.store.close?.();
    }
  });
});
