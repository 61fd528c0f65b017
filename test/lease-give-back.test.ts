/**
 * A holder whose ledger write fails moves the record no more, so it gives its lease back: the
 * buyer's retry, once the store answers again, goes on from the last state written at once,
 * instead of waiting behind a lease nobody renews until it expires (30 s) and being told
 * "in progress" meanwhile.
 */
import { expect } from 'chai';
import request from 'supertest';
import { flakyStore } from './helpers/ledger-store.js';
import { MID, startShop } from './helpers/shop.js';

describe('a holder whose ledger write failed gives its lease back', () => {
  it("the buyer's retry, with no lease expiring, settles the approval at once: approved, recovered, onApproved once, one approval at the gateway", async () => {
    const flaky = flakyStore((next) => next.state === 'committed');
    const shop = await startShop({ nicepay: { store: flaky.store, settle: false } });
    try {
      shop.orders.set('give-back-1', 1_500);
      const auth = await shop.sandbox.authenticate({ moid: 'give-back-1', amount: 1_500, method: 'CARD' });
      const tid = auth.fields.TxTid!;
      const post = () =>
        request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));

      const first = await post();
      expect(first.status).to.equal(502);
      expect(first.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
      expect(await flaky.record(`approval:${MID}:${tid}`)).to.include({ state: 'sending' });

      // The store answers again; the store's clock has not moved, so no lease expired.
      flaky.recover();
      const retry = await post();
      expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
      expect(retry.body).to.include({ status: 'approved', tid, duplicate: true, recovered: true });
      expect(shop.approved.map((a) => a.tid)).to.deep.equal([tid]);
      expect(await flaky.record(`approval:${MID}:${tid}`)).to.include({ state: 'recorded', hook: 'resolved' });
      expect(shop.sandbox.ledger.get(tid)).to.include({ status: 'approved', approvalCalls: 1 });
    } finally {
      await shop.close();
      await flaky.store.close?.();
    }
  });
});
