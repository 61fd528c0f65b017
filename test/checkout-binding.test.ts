/**
 * A TxTid is bound to its AuthToken (issue 18 item 2). The auth-return Signature covers
 * AuthToken+MID+Amt, not TxTid, so a buyer can post another buyer's TxTid with their own
 * genuine token. Such a return never gets the other buyer's stored result, and never blocks
 * the rightful buyer. Reproduced through the public API against the sandbox.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/store/memory-store.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn: a TxTid is bound to its AuthToken', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop();
  });
  after(() => shop.close());

  const post = (fields: Record<string, string | undefined>, contentType: string) =>
    request(shop.app).post('/pay/return').set('content-type', contentType).send(encodeForm(fields, 'euc-kr').toString('latin1'));

  async function authFor(moid: string, amount: number, buyerName: string) {
    shop.orders.set(moid, amount);
    return shop.sandbox.authenticate({ moid, amount, method: 'CARD', buyerName });
  }

  it("a return with another buyer's TxTid and the attacker's own token gets 409, not the victim's result", async () => {
    const victim = await authFor('victim-1', 10_000, '피해자');
    const paid = await post(victim.fields, victim.contentType);
    expect(paid.body).to.include({ status: 'approved', duplicate: false });
    const attacker = await authFor('attacker-1', 10_000, '공격자');
    const forged = await post({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType);
    expect(forged.status).to.equal(409);
    expect(forged.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
    expect(JSON.stringify(forged.body)).to.not.include('피해자');
    expect(JSON.stringify(forged.body)).to.not.include(paid.body.payment.card.maskedNumber);
    // Refused before the gateway: the victim's TID saw one approval, and the victim's own
    // duplicate still gets their result.
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(1);
    const again = await post(victim.fields, victim.contentType);
    expect(again.body).to.include({ status: 'approved', duplicate: true, moid: 'victim-1' });
    // And the attacker's own payment is untouched by the attempt.
    const own = await post(attacker.fields, attacker.contentType);
    expect(own.body).to.include({ status: 'approved', moid: 'attacker-1' });
  });

  it('a forged return posted first never blocks the rightful buyer, nor stores a decline for them', async () => {
    const victim = await authFor('victim-2', 20_000, '피해자');
    const attacker = await authFor('attacker-2', 20_000, '공격자');
    const first = await post({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType);
    expect(first.body.status, JSON.stringify(first.body)).to.not.equal('approved');
    const rightful = await post(victim.fields, victim.contentType);
    expect(rightful.status).to.equal(200);
    expect(rightful.body).to.include({ status: 'approved', duplicate: false, moid: 'victim-2' });
    expect(rightful.body.payment.buyerName).to.equal('피해자');
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.status).to.equal('approved');
    // The attacker's replay gets only its own earlier answer, without a gateway call, and a
    // third token on the now-owned TID is refused with 409.
    const calls = shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls;
    const replay = await post({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType);
    expect(replay.body).to.deep.equal(first.status === 200 ? { ...first.body, duplicate: true } : first.body);
    expect(JSON.stringify(replay.body)).to.not.include('피해자');
    const third = await authFor('attacker-3', 20_000, '제삼자');
    const late = await post({ ...third.fields, TxTid: victim.fields.TxTid }, third.contentType);
    expect(late.status).to.equal(409);
    expect(late.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(calls);
  });

  it('several declined tokens in a row: each replay gets its own answer, and the rightful buyer still pays', async () => {
    const victim = await authFor('victim-5', 5_000, '피해자');
    const forgeries = [];
    for (let i = 0; i < 3; i++) {
      const a = await authFor(`attacker-5-${i}`, 5_000, `공격자${i}`);
      const res = await post({ ...a.fields, TxTid: victim.fields.TxTid }, a.contentType);
      expect(res.body.status, JSON.stringify(res.body)).to.not.equal('approved');
      forgeries.push({ a, res });
    }
    const rightful = await post(victim.fields, victim.contentType);
    expect(rightful.body).to.include({ status: 'approved', duplicate: false, moid: 'victim-5' });
    const calls = shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls;
    for (const { a, res } of forgeries) {
      const replay = await post({ ...a.fields, TxTid: victim.fields.TxTid }, a.contentType);
      expect(replay.body).to.deep.equal(res.status === 200 ? { ...res.body, duplicate: true } : res.body);
    }
    expect((await post(victim.fields, victim.contentType)).body).to.include({ status: 'approved', duplicate: true });
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(calls);
  });

  it("the forged return's record expiring first changes nothing: the buyer's replay is served, a third token refused, no gateway call", async () => {
    let now = 1_000_000;
    const timed = await startShop({ sandbox: shop.sandbox, nicepay: { store: memoryStore({ now: () => now }) }, route: { resultTtlMs: 60_000 } });
    try {
      const postTo = (fields: Record<string, string | undefined>, contentType: string) =>
        request(timed.app).post('/pay/return').set('content-type', contentType).send(encodeForm(fields, 'euc-kr').toString('latin1'));
      timed.orders.set('victim-7', 7_000).set('attacker-7', 7_000).set('third-7', 7_000);
      const victim = await shop.sandbox.authenticate({ moid: 'victim-7', amount: 7_000, method: 'CARD', buyerName: '피해자' });
      const attacker = await shop.sandbox.authenticate({ moid: 'attacker-7', amount: 7_000, method: 'CARD', buyerName: '공격자' });
      expect((await postTo({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType)).body.status).to.not.equal('approved');
      now += 30_000;
      expect((await postTo(victim.fields, victim.contentType)).body).to.include({ status: 'approved', duplicate: false });
      const calls = shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls;
      now += 40_000; // the forged attempt's record has expired; the buyer's has not
      expect((await postTo(victim.fields, victim.contentType)).body).to.include({ status: 'approved', duplicate: true });
      const third = await shop.sandbox.authenticate({ moid: 'third-7', amount: 7_000, method: 'CARD', buyerName: '제삼자' });
      const late = await postTo({ ...third.fields, TxTid: victim.fields.TxTid }, third.contentType);
      expect(late.status).to.equal(409);
      expect(late.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
      expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(calls);
    } finally {
      await timed.close();
    }
  });
});
