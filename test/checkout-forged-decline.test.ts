/**
 * A decline names the order the gateway answered for. The auth return's Moid is unsigned: a
 * buyer who authenticated an order of their own can post that return with a victim's Moid.
 * With a made-up or another buyer's TxTid the gateway refuses the token for that TID: nobody's
 * order (400 RETURN_INVALID). With the buyer's own TxTid, a decline names the buyer's own order,
 * not the victim's (400 DECLINE_ORDER_MISMATCH). Either way nothing is recorded and the victim's
 * order is untouched. Reproduced through the public API against the sandbox.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/store/memory-store.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { MID, startShop, type TestShop } from './helpers/shop.js';

describe("checkoutReturn: a decline names the gateway's order, not the form's", () => {
  let shop: TestShop;
  const store = memoryStore();
  before(async () => {
    shop = await startShop({ nicepay: { store } });
  });
  after(() => shop.close());
  const recordOf = (tid: string | undefined) => store.get(`approval:${MID}:${tid}`);

  const post = (fields: Record<string, string | undefined>, contentType: string) =>
    request(shop.app)
      .post('/pay/return')
      .set('content-type', contentType)
      .send(encodeForm(fields, 'euc-kr').toString('latin1'));

  it("the attacker's own authentication posted with the victim's Moid and a made-up TxTid is 400 RETURN_INVALID, nobody's order: no decline of the victim's order, nothing recorded", async () => {
    shop.orders.set('victim-d1', 15_000);
    shop.orders.set('attacker-d1', 15_000);
    const victim = await shop.sandbox.authenticate({ moid: 'victim-d1', amount: 15_000, method: 'CARD' });
    const attacker = await shop.sandbox.authenticate({ moid: 'attacker-d1', amount: 15_000, method: 'CARD' });
    const madeUp = `${attacker.fields.TxTid!.slice(0, -4)}9999`;
    const forged = await post({ ...attacker.fields, Moid: 'victim-d1', TxTid: madeUp }, attacker.contentType);
    expect(forged.status).to.equal(400);
    expect(forged.body.code).to.equal('NICEPAY_RETURN_INVALID');
    expect(JSON.stringify(forged.body)).to.not.include('"declined"');
    expect(await recordOf(madeUp)).to.equal(undefined);
    // Replayed with other made-up TxTids: refused each time, never a result about the victim.
    for (const suffix of ['9998', '9997']) {
      const tid = attacker.fields.TxTid!.slice(0, -4) + suffix;
      const again = await post({ ...attacker.fields, Moid: 'victim-d1', TxTid: tid }, attacker.contentType);
      expect(again.status).to.equal(400);
      expect(again.body.code).to.equal('NICEPAY_RETURN_INVALID');
      expect(await recordOf(tid)).to.equal(undefined);
    }
    // The victim still pays their order.
    const paid = await post(victim.fields, victim.contentType);
    expect(paid.body).to.include({ status: 'approved', moid: 'victim-d1' });
  });

  it("another buyer's real TxTid with the attacker's token and Moid is 400 RETURN_INVALID: the gateway refuses the token for that TID, and the victim's TID is left free for the victim", async () => {
    shop.orders.set('victim-d2', 7_000);
    shop.orders.set('attacker-d2', 7_000);
    const victim = await shop.sandbox.authenticate({ moid: 'victim-d2', amount: 7_000, method: 'CARD' });
    const attacker = await shop.sandbox.authenticate({ moid: 'attacker-d2', amount: 7_000, method: 'CARD' });
    const forged = await post({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType);
    expect(forged.status).to.equal(400);
    expect(forged.body.code).to.equal('NICEPAY_RETURN_INVALID');
    expect(JSON.stringify(forged.body)).to.not.include('victim-d2');
    expect(await recordOf(victim.fields.TxTid)).to.equal(undefined);
    expect((await post(victim.fields, victim.contentType)).body).to.include({
      status: 'approved',
      moid: 'victim-d2',
      duplicate: false,
    });
  });

  it("the attacker's own declined authentication posted with the victim's Moid is 400 DECLINE_ORDER_MISMATCH: the decline names the attacker's order, so it is nobody's result and nothing is recorded", async () => {
    shop.orders.set('victim-d4', 8_000);
    shop.orders.set('attacker-d4', 8_000);
    const attacker = await shop.sandbox.authenticate({
      moid: 'attacker-d4',
      amount: 8_000,
      method: 'CARD',
      decline: true,
    });
    const forged = await post({ ...attacker.fields, Moid: 'victim-d4' }, attacker.contentType);
    expect(forged.status, JSON.stringify(forged.body)).to.equal(400);
    expect(forged.body.code).to.equal('NICEPAY_DECLINE_ORDER_MISMATCH');
    expect(JSON.stringify(forged.body)).to.not.include('"declined"');
    expect(await recordOf(attacker.fields.TxTid)).to.equal(undefined);
    expect(shop.sandbox.ledger.get(attacker.fields.TxTid!)?.status).to.equal('declined');
    // The victim still pays their order.
    const victim = await shop.sandbox.authenticate({ moid: 'victim-d4', amount: 8_000, method: 'CARD' });
    expect((await post(victim.fields, victim.contentType)).body).to.include({ status: 'approved', moid: 'victim-d4' });
  });

  it("a decline that names no order at all is nobody's (400 DECLINE_ORDER_MISMATCH), never a decline of the order the form names", async () => {
    shop.orders.set('victim-d5', 6_000);
    const auth = await shop.sandbox.authenticate({ moid: 'victim-d5', amount: 6_000, method: 'CARD' });
    // A refusal about a TID the gateway has no transaction for carries no Moid.
    const madeUp = `${auth.fields.TxTid!.slice(0, -4)}9990`;
    shop.sandbox.faults.inject({ target: 'approve', kind: 'decline', resultCode: '3011' });
    const res = await post({ ...auth.fields, TxTid: madeUp }, auth.contentType);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.code).to.equal('NICEPAY_DECLINE_ORDER_MISMATCH');
    expect(await recordOf(madeUp)).to.equal(undefined);
    expect((await post(auth.fields, auth.contentType)).body).to.include({ status: 'approved', moid: 'victim-d5' });
  });

  it("a genuine decline still names its order: status declined with the gateway's Moid", async () => {
    shop.orders.set('genuine-d3', 9_000);
    const auth = await shop.sandbox.authenticate({ moid: 'genuine-d3', amount: 9_000, method: 'CARD', decline: true });
    const res = await post(auth.fields, auth.contentType);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'declined', moid: 'genuine-d3', duplicate: false });
    expect(res.body.raw.Moid).to.equal('genuine-d3');
    expect(JSON.parse((await recordOf(auth.fields.TxTid))!.value)).to.include({
      state: 'declined',
      moid: 'genuine-d3',
    });
  });
});
