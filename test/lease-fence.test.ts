/**
 * A holder paused longer than its lease between writing a record and sending its request (a
 * stalled event loop, a stopped process) may have lost the key to another process's settler,
 * which may already have closed the record as never charged. It must not send then: it looks at
 * its lease once more just before the request leaves, and sends nothing when it lost it.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Nicepay } from '../src/index.js';
import { memoryStore } from '../src/store/memory-store.js';
import type { LedgerStore } from '../src/store/types.js';
import { ledgerRecord, otherProcess, pausingStore } from './helpers/ledger-store.js';
import { MID, postReturn, startShop, type TestShop } from './helpers/shop.js';

/** The buyer pays a 1,500-won order by card and the window's return reaches the shop. */
async function payByCard(shop: TestShop, moid: string) {
  shop.orders.set(moid, 1_500);
  const auth = await shop.sandbox.authenticate({ moid, amount: 1_500, method: 'CARD' });
  return { tid: auth.fields.TxTid!, res: await postReturn(shop, auth) };
}

describe('a holder that lost its lease before its request left', () => {
  it('sends nothing: the other process settled the record as never charged, and the gateway holds no approval', async () => {
    let other: Nicepay | undefined;
    // One store shared by two processes. The first approval's holder "pauses" right after its
    // record is written: the store's clock runs past the lease, and the other process settles.
    const { store, paused, clock } = pausingStore('approval:', () => other!.settle());
    const shop = await startShop({ nicepay: { store, settle: false, clock } });
    other = otherProcess(shop.sandbox.url, store, clock);
    try {
      const { tid, res } = await payByCard(shop, 'paused-1');
      expect(paused()).to.equal(true);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body).to.include({ code: 'NICEPAY_IN_PROGRESS' });
      expect(res.body.message).to.include('not sent');
      // The other process's word stands, and the gateway agrees: nothing was approved.
      expect(await ledgerRecord(store, `approval:${MID}:${tid}`)).to.include({ state: 'never-charged' });
      expect(shop.sandbox.ledger.get(tid)?.approvalCalls ?? 0).to.equal(0);
      expect(shop.sandbox.ledger.committed().filter((e) => e.tid === tid)).to.deep.equal([]);
      expect(shop.approved).to.deep.equal([]);
    } finally {
      await other.close();
      await shop.close();
    }
  });

  for (const answer of ['verified', 'lost'] as const) {
    it(`a holder paused between its last renewal and sending, whose record another process closed as never charged, reverses the charge it then made itself (its answer ${answer}), and says so`, async () => {
      let other: Nicepay | undefined;
      const { store, paused, clock } = pausingStore('approval:', () => other!.settle(), true, 'confirm');
      const shop = await startShop({ nicepay: { store, settle: false, clock } });
      other = otherProcess(shop.sandbox.url, store, clock);
      // The gateway commits; its answer reaches the holder, or is lost on the way.
      if (answer === 'lost') shop.sandbox.faults.inject({ target: 'approve', kind: 'drop', commit: true });
      try {
        const { tid, res } = await payByCard(shop, `paused-at-send-${answer}`);
        expect(paused()).to.equal(true);
        // The other process found nothing at the gateway and closed the record; then the request left.
        expect(await ledgerRecord(store, `approval:${MID}:${tid}`)).to.include({ state: 'never-charged' });
        expect(shop.sandbox.ledger.get(tid)?.approvalCalls).to.equal(1);
        // Nobody looks at a closed record again: the holder reversed its own charge, so the gateway
        // agrees with the ledger, and the caller is told it was reversed.
        expect(shop.sandbox.ledger.committed().filter((e) => e.tid === tid)).to.deep.equal([]);
        expect(res.status, JSON.stringify(res.body)).to.equal(502);
        expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
        expect(shop.approved).to.deep.equal([]);
      } finally {
        await other.close();
        await shop.close();
      }
    });
  }

  it("a holder paused with the gateway's answer in hand, whose record another process kept meanwhile, tells its caller the payment the ledger holds", async () => {
    let other: Nicepay | undefined;
    const recordedByOther: string[] = [];
    const { store, paused, clock } = pausingStore('approval:', () => other!.settle(), true, 'commit');
    const shop = await startShop({ nicepay: { store, settle: false, clock } });
    other = otherProcess(shop.sandbox.url, store, clock);
    // The other process runs the same route, whose hook settlement runs for the payment.
    other.checkoutReturn({ expectedAmount: () => 1_500, onApproved: (r) => void recordedByOther.push(r.tid) });
    try {
      const { tid, res } = await payByCard(shop, 'paused-with-answer');
      expect(paused()).to.equal(true);
      expect(await ledgerRecord(store, `approval:${MID}:${tid}`)).to.include({ state: 'recorded' });
      expect(recordedByOther).to.deep.equal([tid]);
      // Not "being settled, may be reversed": the ledger kept it, and the caller is told so.
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ status: 'approved', tid });
      expect(shop.sandbox.ledger.committed().filter((e) => e.tid === tid)).to.have.length(1);
    } finally {
      await other.close();
      await shop.close();
    }
  });

  it('a holder paused past its lease whose key nobody took sends as it would have: its lease is renewed, the approval is paid once', async () => {
    // Run out, and nobody takes it over.
    const { store, paused, clock } = pausingStore('approval:');
    const shop = await startShop({ nicepay: { store, settle: false, clock } });
    try {
      const { tid, res } = await payByCard(shop, 'paused-alone-1');
      expect(paused()).to.equal(true);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ status: 'approved', tid });
      expect(shop.sandbox.ledger.get(tid)).to.include({ status: 'approved', approvalCalls: 1 });
      expect(shop.approved.map((a) => a.tid)).to.deep.equal([tid]);
    } finally {
      await shop.close();
    }
  });

  it('sends nothing when the store does not answer that last look: 503 NICEPAY_STORE_UNAVAILABLE, and the gateway holds no approval', async () => {
    const inner = memoryStore();
    let failExtend = true;
    const store: LedgerStore = {
      ...inner,
      extend: (key, token, leaseMs) =>
        failExtend ? Promise.reject(new Error('connection lost')) : inner.extend(key, token, leaseMs),
    };
    const shop = await startShop({ nicepay: { store, settle: false } });
    try {
      shop.orders.set('store-down-1', 1_500);
      const auth = await shop.sandbox.authenticate({ moid: 'store-down-1', amount: 1_500, method: 'CARD' });
      const tid = auth.fields.TxTid!;
      const post = () =>
        request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      const res = await post();
      expect(res.status, JSON.stringify(res.body)).to.equal(503);
      expect(res.body).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });
      expect(shop.sandbox.ledger.get(tid)?.approvalCalls ?? 0).to.equal(0);
      // The lease was given back with nothing sent: the buyer's retry, once the store answers, pays.
      failExtend = false;
      const retry = await post();
      expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
      expect(retry.body).to.include({ status: 'approved', tid });
      expect(shop.sandbox.ledger.get(tid)).to.include({ status: 'approved', approvalCalls: 1 });
    } finally {
      await shop.close();
    }
  });
});
