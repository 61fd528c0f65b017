/**
 * A TxTid is bound to its AuthToken (issue 18 item 2). The auth-return Signature covers
 * AuthToken+MID+Amt, not TxTid, so a buyer can post another buyer's TxTid with their own
 * genuine token. Such a return never gets the other buyer's stored result, and never blocks
 * the rightful buyer. Reproduced through the public API against the sandbox.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/store/memory-store.js';
import type { IdempotencyStore } from '../src/store/types.js';
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

  it('another token arriving while an approval is in flight waits for it, then gets 409 without a gateway call', async () => {
    let release!: () => void;
    const hookHeld = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inHook = new Promise<void>((resolve) => (entered = resolve));
    // The forged return finds the TID's key held, and waits on it rather than being answered.
    const store = memoryStore();
    let sawBusy!: () => void;
    const busy = new Promise<void>((resolve) => (sawBusy = resolve));
    const watched: IdempotencyStore = {
      ...store,
      acquire: async (key, ttl) => {
        const got = await store.acquire(key, ttl);
        if (got.state === 'busy') sawBusy();
        return got;
      },
    };
    const held = await startShop({ sandbox: shop.sandbox, nicepay: { store: watched }, route: { onApproved: () => (entered(), hookHeld) } });
    try {
      held.orders.set('victim-4', 4_000).set('attacker-4', 4_000);
      const victim = await shop.sandbox.authenticate({ moid: 'victim-4', amount: 4_000, method: 'CARD', buyerName: '피해자' });
      const attacker = await shop.sandbox.authenticate({ moid: 'attacker-4', amount: 4_000, method: 'CARD', buyerName: '공격자' });
      const postTo = (fields: Record<string, string | undefined>) =>
        request(held.app).post('/pay/return').set('content-type', victim.contentType).send(encodeForm(fields, 'euc-kr').toString('latin1')).then((r) => r);
      const paying = postTo(victim.fields);
      await inHook;
      const forged = postTo({ ...attacker.fields, TxTid: victim.fields.TxTid });
      await busy;
      release();
      const [paid, refused] = await Promise.all([paying, forged]);
      expect(paid.body).to.include({ status: 'approved', duplicate: false, moid: 'victim-4' });
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
      expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(1);
    } finally {
      release();
      await held.close();
    }
  });

  it('several declined tokens in a row: each replay gets its own answer, the rightful buyer still pays, and a TID declined for 16 other tokens is refused', async () => {
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

    // A TID that sixteen other genuine tokens were declined on is not tried a seventeenth time.
    const target = await authFor('victim-6', 6_000, '피해자');
    for (let i = 0; i < 16; i++) {
      const a = await authFor(`attacker-6-${i}`, 6_000, '공격자');
      expect((await post({ ...a.fields, TxTid: target.fields.TxTid }, a.contentType)).body.status).to.not.equal('approved');
    }
    const tried = shop.sandbox.ledger.get(target.fields.TxTid!)?.approvalCalls;
    const late = await post(target.fields, target.contentType);
    expect(late.status).to.equal(409);
    expect(late.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
    expect(shop.sandbox.ledger.get(target.fields.TxTid!)?.approvalCalls).to.equal(tried);
  });
});
