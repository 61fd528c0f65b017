/**
 * Nothing is approved twice: concurrent and later duplicates of one return get the first
 * request's result, across instances sharing a store, and a result the store could not keep
 * is still the buyer's.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/index.js';
import { secretDigest } from '../src/util/secret-digest.js';
import { MERCHANT_KEY, startShop, type TestShop } from './helpers/shop.js';

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
        Array.from({ length: 20 }, () => request(server).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'))),
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
    const first = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    const second = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    expect(first.body.status).to.equal('approved');
    expect(second.body).to.deep.equal({ ...first.body, duplicate: true });
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
  });

  it('when onApproved throws, the approval is net-cancelled and duplicates get the same error', async () => {
    const failing = await startShop({ sandbox: shop.sandbox, route: { onApproved: () => { throw new Error('database down'); } } });
    failing.orders.set('hook-fail', 7_000);
    const auth = await shop.sandbox.authenticate({ moid: 'hook-fail', amount: 7_000, method: 'CARD' });
    const res = await request(failing.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    const again = await request(failing.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
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
    const res = await request(other.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    await other.close();
    expect(res.status).to.equal(503);
    expect(res.body.code).to.equal('NICEPAY_STORE_UNAVAILABLE');
    expect(res.body.message).to.include(key);
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});

describe('checkoutReturn when the store cannot write the result', () => {
  it('answers the buyer with the approval it made, and logs the TID whose result was not stored', async () => {
    const store = memoryStore();
    const shop = await startShop({ nicepay: { store: { ...store, write: () => Promise.reject(new Error('write lost')) } } });
    try {
      shop.orders.set('unstored-1', 1004);
      const auth = await shop.sandbox.authenticate({ moid: 'unstored-1', amount: 1004, method: 'CARD' });
      const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ status: 'approved', tid: auth.fields.TxTid });
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      const line = shop.captured.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => String(l.msg).includes('could not be written'));
      expect(line).to.include({ level: 'error', tid: auth.fields.TxTid, moid: 'unstored-1', step: 'store', error: 'write lost' });
    } finally {
      await shop.close();
    }
  });
});

describe('checkoutReturn when the store fails between the approval and the hook', () => {
  it('the payment is kept, never reversed (another instance may be recording it): HOOK_FAILED now, and the retry once the store answers recovers it and runs the hook', async () => {
    const store = memoryStore();
    let down = true;
    // Every key but the hook's works: the store fails just after the gateway committed.
    const failing = { ...store, acquire: (key: string, ttl: number) => (down && key.startsWith('hook:') ? Promise.reject(new Error('node down')) : store.acquire(key, ttl)) };
    const shop = await startShop({ nicepay: { store: failing } });
    try {
      shop.orders.set('hook-store-1', 1004);
      const auth = await shop.sandbox.authenticate({ moid: 'hook-store-1', amount: 1004, method: 'CARD' });
      const post = () => request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      const res = await post();
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted' });
      expect(shop.approved).to.have.length(0);
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      // The store answers again; the buyer's retry records the payment the gateway holds.
      down = false;
      const retry = await post();
      expect(retry.status).to.equal(200);
      expect(retry.body).to.include({ status: 'approved', recovered: true, tid: auth.fields.TxTid });
      expect(shop.approved).to.have.length(1);
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(2);
    } finally {
      await shop.close();
    }
  });
});
