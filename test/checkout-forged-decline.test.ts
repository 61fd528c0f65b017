/**
 * A decline names the order the gateway answered for. The auth return's Moid is unsigned: a
 * buyer who authenticated an order of their own can post that return with a victim's Moid and
 * a made-up TxTid. The gateway declines the unknown TID; the result must not say that the
 * victim's order was declined. Reproduced through the public API against the sandbox.
 */
import { expect } from 'chai';
import request from 'supertest';
import { encodeForm } from '../src/wire/form-codec.js';
import { startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn: a decline names the gateway\'s order, not the form\'s', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop();
  });
  after(() => shop.close());

  const post = (fields: Record<string, string | undefined>, contentType: string) =>
    request(shop.app).post('/pay/return').set('content-type', contentType).send(encodeForm(fields, 'euc-kr').toString('latin1'));

  it("the attacker's own authentication posted with the victim's Moid and a made-up TxTid gets 400, no decline of the victim's order", async () => {
    shop.orders.set('victim-d1', 15_000);
    shop.orders.set('attacker-d1', 15_000);
    const victim = await shop.sandbox.authenticate({ moid: 'victim-d1', amount: 15_000, method: 'CARD' });
    const attacker = await shop.sandbox.authenticate({ moid: 'attacker-d1', amount: 15_000, method: 'CARD' });
    const madeUp = attacker.fields.TxTid!.slice(0, -4) + '9999';
    const forged = await post({ ...attacker.fields, Moid: 'victim-d1', TxTid: madeUp }, attacker.contentType);
    expect(forged.status).to.equal(400);
    expect(forged.body.code).to.equal('NICEPAY_DECLINE_ORDER_MISMATCH');
    expect(JSON.stringify(forged.body)).to.not.include('"declined"');
    // Replayed with other made-up TxTids: refused each time, never a result about the victim.
    for (const suffix of ['9998', '9997']) {
      const again = await post({ ...attacker.fields, Moid: 'victim-d1', TxTid: attacker.fields.TxTid!.slice(0, -4) + suffix }, attacker.contentType);
      expect(again.status).to.equal(400);
      expect(again.body.code).to.equal('NICEPAY_DECLINE_ORDER_MISMATCH');
    }
    // The victim still pays their order.
    const paid = await post(victim.fields, victim.contentType);
    expect(paid.body).to.include({ status: 'approved', moid: 'victim-d1' });
  });

  it("another buyer's real TxTid with the attacker's token and Moid: the decline is about the victim's TID, so it is refused", async () => {
    shop.orders.set('victim-d2', 7_000);
    shop.orders.set('attacker-d2', 7_000);
    const victim = await shop.sandbox.authenticate({ moid: 'victim-d2', amount: 7_000, method: 'CARD' });
    const attacker = await shop.sandbox.authenticate({ moid: 'attacker-d2', amount: 7_000, method: 'CARD' });
    const forged = await post({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType);
    expect(forged.status).to.equal(400);
    expect(forged.body.code).to.equal('NICEPAY_DECLINE_ORDER_MISMATCH');
    expect(JSON.stringify(forged.body)).to.not.include('victim-d2');
  });

  it('a genuine decline still names its order: status declined with the gateway\'s Moid', async () => {
    shop.orders.set('genuine-d3', 9_000);
    const auth = await shop.sandbox.authenticate({ moid: 'genuine-d3', amount: 9_000, method: 'CARD', decline: true });
    const res = await post(auth.fields, auth.contentType);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'declined', moid: 'genuine-d3', duplicate: false });
    expect(res.body.raw.Moid).to.equal('genuine-d3');
  });
});
