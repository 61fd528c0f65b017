/**
 * A wrong merchant key is obvious everywhere: whenever the gateway answers that the request's
 * signature does not verify (A211, 1641, W007), the message asks whether merchantKey is the
 * one of this MID, in cancel, status and key-in alike (the pipeline's answer reading).
 */
import { expect } from 'chai';
import { createNicepay, type Nicepay, NicepayGatewayError } from '../src/index.js';
import { startLifecycleShop, MID, type LifecycleShop } from './helpers/lifecycle-shop.js';
import { rejectedWith } from './helpers/rejected.js';

const HINT = 'is merchantKey the one of this MID?';
const FUTURE = '2912';

describe('a wrong merchant key, as every flow reports it', () => {
  let shop: LifecycleShop;
  let wrong: Nicepay;
  before(async () => {
    shop = await startLifecycleShop();
    wrong = createNicepay({
      mid: MID,
      merchantKey: 'not-the-key-of-this-mid-0123456789',
      baseUrl: shop.sandbox.url,
      clock: () => shop.sandbox.clock.now(),
    });
  });
  after(async () => {
    await wrong.close();
    await shop.close();
  });

  it('cancel(): refused, and the message asks about merchantKey', async () => {
    const paid = await shop.pay('CARD', 1000);
    const r = await wrong.cancel({ tid: paid.tid, moid: paid.moid, amount: 1000, reason: 'r' });
    expect(r).to.include({ status: 'refused', code: 'A211' });
    expect(r.message).to.include(HINT);
    expect(shop.sandbox.ledger.get(paid.tid)!.status).to.equal('approved');
  });

  it('status(): NICEPAY_QUERY_REFUSED whose message asks about merchantKey', async () => {
    const paid = await shop.pay('CARD', 1000);
    const err = await rejectedWith(wrong.status(paid.tid), NicepayGatewayError);
    expect(err).to.include({ code: 'NICEPAY_QUERY_REFUSED', resultCode: 'A211' });
    expect(err.message).to.include(HINT);
  });

  it("keyin(): declined with the gateway's code, and the message asks about merchantKey", async () => {
    const r = await wrong.keyin({
      moid: `hint-${Date.now()}`,
      amount: 1004,
      goodsName: 'g',
      card: { number: '4111111111111111', expiry: FUTURE },
    });
    expect(r.status).to.equal('declined');
    if (r.status !== 'declined') return;
    expect(r.code).to.equal('1641');
    expect(r.message).to.include(HINT);
  });
});
