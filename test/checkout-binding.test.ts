/**
 * A TxTid is bound to its AuthToken. The auth-return Signature covers AuthToken+MID+Amt, not
 * TxTid, so a buyer can post another buyer's TxTid with their own genuine token. Before the
 * rightful buyer paid, the gateway refuses that token for the TID (not issued together): the
 * return is nobody's order and leaves no ledger record. Once the rightful buyer paid, the
 * record's binding (the token's digest) refuses every other token without a gateway call.
 * Reproduced through the public API against the sandbox.
 */
import { expect } from 'chai';
import request from 'supertest';
import { AUTH_TOKEN_TTL_MS, createSandbox } from '../src/sandbox/index.js';
import { memoryStore } from '../src/store/memory-store.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { MID, startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn: a TxTid is bound to its AuthToken', () => {
  let shop: TestShop;
  const store = memoryStore();
  before(async () => {
    shop = await startShop({ nicepay: { store } });
  });
  after(() => shop.close());

  const post = (fields: Record<string, string | undefined>, contentType: string) =>
    request(shop.app)
      .post('/pay/return')
      .set('content-type', contentType)
      .send(encodeForm(fields, 'euc-kr').toString('latin1'));

  async function authFor(moid: string, amount: number, buyerName: string) {
    shop.orders.set(moid, amount);
    return shop.sandbox.authenticate({ moid, amount, method: 'CARD', buyerName });
  }
  const recordOf = (tid: string | undefined) => store.get(`approval:${MID}:${tid}`);

  /** A forged return the gateway refuses: 400 RETURN_INVALID about nobody's order, and nothing in the ledger. */
  async function expectNobodys(
    res: { status: number; body: { code?: string; status?: string } },
    tid: string | undefined,
  ): Promise<void> {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.code).to.equal('NICEPAY_RETURN_INVALID');
    expect(res.body.status).to.equal(undefined);
    expect(await recordOf(tid)).to.equal(undefined);
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

  it("a forged return posted first is refused by the gateway as nobody's order and leaves nothing: the rightful buyer pays, and the forger's replay is then 409 without a gateway call", async () => {
    const victim = await authFor('victim-2', 20_000, '피해자');
    const attacker = await authFor('attacker-2', 20_000, '공격자');
    const first = await post({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType);
    await expectNobodys(first, victim.fields.TxTid);
    expect(JSON.stringify(first.body)).to.not.include('피해자');
    const rightful = await post(victim.fields, victim.contentType);
    expect(rightful.status).to.equal(200);
    expect(rightful.body).to.include({ status: 'approved', duplicate: false, moid: 'victim-2' });
    expect(rightful.body.payment.buyerName).to.equal('피해자');
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.status).to.equal('approved');
    expect(JSON.parse((await recordOf(victim.fields.TxTid))!.value)).to.include({
      state: 'recorded',
      moid: 'victim-2',
    });
    // The TID is now the rightful buyer's: the forger's replay and a third token are refused
    // by the record's binding, before the gateway.
    const calls = shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls;
    const third = await authFor('attacker-3', 20_000, '제삼자');
    for (const [fields, contentType] of [
      [attacker.fields, attacker.contentType],
      [third.fields, third.contentType],
    ] as const) {
      const late = await post({ ...fields, TxTid: victim.fields.TxTid }, contentType);
      expect(late.status).to.equal(409);
      expect(late.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
      expect(JSON.stringify(late.body)).to.not.include('피해자');
    }
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(calls);
  });

  it('several forged tokens in a row each leave nothing; the rightful buyer still pays, and every replay after is 409 without a gateway call', async () => {
    const victim = await authFor('victim-5', 5_000, '피해자');
    const forgeries = [];
    for (let i = 0; i < 3; i++) {
      const a = await authFor(`attacker-5-${i}`, 5_000, `공격자${i}`);
      await expectNobodys(await post({ ...a.fields, TxTid: victim.fields.TxTid }, a.contentType), victim.fields.TxTid);
      forgeries.push(a);
    }
    const rightful = await post(victim.fields, victim.contentType);
    expect(rightful.body).to.include({ status: 'approved', duplicate: false, moid: 'victim-5' });
    const calls = shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls;
    for (const a of forgeries) {
      const replay = await post({ ...a.fields, TxTid: victim.fields.TxTid }, a.contentType);
      expect([replay.status, replay.body.code]).to.deep.equal([409, 'NICEPAY_DUPLICATE_MISMATCH']);
    }
    expect((await post(victim.fields, victim.contentType)).body).to.include({ status: 'approved', duplicate: true });
    expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(calls);
  });

  it("the rightful buyer's record, not a forged attempt before it, answers later tokens for as long as it is kept: the buyer's replay is served, a third token refused, no gateway call", async () => {
    let now = 1_000_000;
    const timedStore = memoryStore({ now: () => now });
    const timed = await startShop({
      sandbox: shop.sandbox,
      nicepay: { store: timedStore },
      route: { resultTtlMs: 60_000 },
    });
    try {
      const postTo = (fields: Record<string, string | undefined>, contentType: string) =>
        request(timed.app)
          .post('/pay/return')
          .set('content-type', contentType)
          .send(encodeForm(fields, 'euc-kr').toString('latin1'));
      timed.orders.set('victim-7', 7_000).set('attacker-7', 7_000).set('third-7', 7_000);
      const victim = await shop.sandbox.authenticate({
        moid: 'victim-7',
        amount: 7_000,
        method: 'CARD',
        buyerName: '피해자',
      });
      const attacker = await shop.sandbox.authenticate({
        moid: 'attacker-7',
        amount: 7_000,
        method: 'CARD',
        buyerName: '공격자',
      });
      const key = `approval:${MID}:${victim.fields.TxTid}`;
      expect(
        (await postTo({ ...attacker.fields, TxTid: victim.fields.TxTid }, attacker.contentType)).body.code,
      ).to.equal('NICEPAY_RETURN_INVALID');
      expect(await timedStore.get(key)).to.equal(undefined);
      now += 30_000;
      expect((await postTo(victim.fields, victim.contentType)).body).to.include({
        status: 'approved',
        duplicate: false,
      });
      const calls = shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls;
      now += 40_000; // 70 s after the forged attempt, 40 s into the buyer's 60 s record
      expect((await postTo(victim.fields, victim.contentType)).body).to.include({
        status: 'approved',
        duplicate: true,
      });
      const third = await shop.sandbox.authenticate({
        moid: 'third-7',
        amount: 7_000,
        method: 'CARD',
        buyerName: '제삼자',
      });
      const late = await postTo({ ...third.fields, TxTid: victim.fields.TxTid }, third.contentType);
      expect(late.status).to.equal(409);
      expect(late.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
      expect(shop.sandbox.ledger.get(victim.fields.TxTid!)?.approvalCalls).to.equal(calls);
    } finally {
      await timed.close();
    }
  });
});

describe('checkoutReturn: a token the gateway no longer accepts', () => {
  it("a return whose AuthToken expired at the gateway (W011) is 400 NICEPAY_RETURN_INVALID, nobody's order: nothing recorded, not a decline", async () => {
    const sandbox = createSandbox();
    await sandbox.listen(0);
    const store = memoryStore();
    const shop = await startShop({ sandbox, nicepay: { store } });
    try {
      shop.orders.set('late-1', 4_000);
      const auth = await sandbox.authenticate({ moid: 'late-1', amount: 4_000, method: 'CARD' });
      sandbox.clock.advance(AUTH_TOKEN_TTL_MS + 1_000);
      const res = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.code).to.equal('NICEPAY_RETURN_INVALID');
      expect(shop.errors.at(-1)).to.include({ field: 'AuthToken' });
      expect(await store.get(`approval:${MID}:${auth.fields.TxTid}`)).to.equal(undefined);
      expect(await store.open(10)).to.deep.equal([]);
      expect(sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('authenticated');
      expect(shop.approved).to.have.length(0);
    } finally {
      await shop.close();
      await sandbox.close();
    }
  });
});
