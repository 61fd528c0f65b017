/**
 * The payment ledger against the attacks an outsider can mount on the public surface: a flood
 * of forged returns, a replay naming another order after the store forgot, a stranger's token on
 * a victim's TxTid, a refunded order's replay. Each time the shop's record of money must not
 * move for any order the gateway did not say it was about.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore } from '../src/store/memory-store.js';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { startShop, type TestShop } from './helpers/shop.js';

const post = (shop: TestShop, fields: Record<string, string | undefined>, contentType: string) =>
  request(shop.app)
    .post('/pay/return')
    .set('content-type', contentType)
    .send(encodeForm(fields, 'euc-kr').toString('latin1'));

/** A made-up TxTid of the test merchant's shape, one per `n`. */
const madeUpTid = (n: number): string => `nicepay00m0101261127${String(n).padStart(10, '0')}`;

describe('ledger: a flood of forged returns evicts no money record', function () {
  this.timeout(120_000);

  it('500 forged returns against a store bounded at 50 keys leave nothing behind; the billing and key-in records stay, and resubmitting their Moids charges nothing again', async () => {
    const store = memoryStore({ maxEntries: 50 });
    const shop = await startShop({ nicepay: { store } });
    try {
      const { bid } = await registered(shop);
      const charge = await shop.nicepay.billing.charge({
        bid,
        moid: 'sub-flood-1',
        amount: 29_900,
        goodsName: '정기 구독',
      });
      expect(charge.status).to.equal('approved');
      const keyin = await shop.nicepay.keyin({
        moid: 'keyin-flood-1',
        amount: 12_000,
        goodsName: '키인 상품',
        card: { number: '4111111111111111', expiry: '3012' },
      });
      expect(keyin.status).to.equal('approved');
      // One genuine authentication of the attacker's own, posted with made-up TxTids: each is
      // signed (the Signature covers AuthToken + MID + Amt, not the TxTid), so each reaches the
      // gateway, which refuses the token for that TID.
      shop.orders.set('attacker-flood', 1_000);
      const own = await shop.sandbox.authenticate({ moid: 'attacker-flood', amount: 1_000, method: 'CARD' });
      const answers = new Map<string, number>();
      for (let i = 0; i < 500; i++) {
        const res = await post(shop, { ...own.fields, TxTid: madeUpTid(i) }, own.contentType);
        answers.set(`${res.status} ${res.body.code}`, (answers.get(`${res.status} ${res.body.code}`) ?? 0) + 1);
      }
      expect([...answers]).to.deep.equal([['400 NICEPAY_RETURN_INVALID', 500]]);
      expect(await store.get(`approval:nicepay00m:${madeUpTid(0)}`)).to.equal(undefined);
      expect(JSON.parse((await store.get('billing:nicepay00m:sub-flood-1'))!.value)).to.include({ state: 'recorded' });
      expect(JSON.parse((await store.get('keyin:nicepay00m:keyin-flood-1'))!.value)).to.include({ state: 'recorded' });
      const chargedBefore = shop.sandbox.ledger.byMoid('nicepay00m', 'sub-flood-1').length;
      const again = await shop.nicepay.billing.charge({
        bid,
        moid: 'sub-flood-1',
        amount: 29_900,
        goodsName: '정기 구독',
      });
      expect(again).to.include({ status: 'approved', duplicate: true, tid: charge.tid });
      const keyinAgain = await shop.nicepay.keyin({
        moid: 'keyin-flood-1',
        amount: 12_000,
        goodsName: '키인 상품',
        card: { number: '4111111111111111', expiry: '3012' },
      });
      expect(keyinAgain).to.include({ status: 'approved', duplicate: true, tid: keyin.tid });
      expect(shop.sandbox.ledger.byMoid('nicepay00m', 'sub-flood-1')).to.have.length(chargedBefore);
      expect(
        shop.sandbox.ledger.byMoid('nicepay00m', 'keyin-flood-1').filter((e) => e.status === 'approved'),
      ).to.have.length(1);
    } finally {
      await shop.close();
    }
  });

  it('a store full of live money records refuses new work with 503 NICEPAY_STORE_FULL rather than drop one', async () => {
    const store = memoryStore({ maxEntries: 2 });
    const shop = await startShop({ nicepay: { store } });
    try {
      const card = { number: '4111111111111111', expiry: '3012' };
      for (const moid of ['full-1', 'full-2'])
        expect((await shop.nicepay.keyin({ moid, amount: 1_000, goodsName: '상품', card })).status).to.equal(
          'approved',
        );
      const refused = await shop.nicepay
        .keyin({ moid: 'full-3', amount: 1_000, goodsName: '상품', card })
        .catch((e: unknown) => e);
      expect(refused).to.include({ code: 'NICEPAY_STORE_FULL', status: 503 });
      expect(shop.sandbox.ledger.byMoid('nicepay00m', 'full-3')).to.have.length(0);
      for (const moid of ['full-1', 'full-2'])
        expect(JSON.parse((await store.get(`keyin:nicepay00m:${moid}`))!.value)).to.include({ state: 'recorded' });
    } finally {
      await shop.close();
    }
  });
});

describe('ledger: a replay naming another order after the store forgot the TID', () => {
  for (const processedNamesOrder of [false, true]) {
    it(`is answered 409 NICEPAY_ALREADY_PROCESSED and records nothing for the other order (already-processed answers ${processedNamesOrder ? 'name the paid order' : 'name no order'})`, async () => {
      const sandbox = createSandbox({ processedNamesOrder });
      await sandbox.listen(0);
      const first = await startShop({ sandbox });
      const restarted = await startShop({ sandbox });
      try {
        first.orders.set('order-a', 15_000);
        const auth = await sandbox.authenticate({ moid: 'order-a', amount: 15_000, method: 'CARD' });
        expect((await post(first, auth.fields, auth.contentType)).body).to.include({
          status: 'approved',
          moid: 'order-a',
        });
        // The store forgot (a restart on memoryStore): the buyer replays their own genuine
        // return with another order's Moid of the same amount.
        restarted.orders.set('order-a', 15_000).set('order-b', 15_000);
        const replay = await post(restarted, { ...auth.fields, Moid: 'order-b' }, auth.contentType);
        expect(replay.status).to.equal(409);
        expect(replay.body.code).to.equal('NICEPAY_ALREADY_PROCESSED');
        expect(restarted.approved).to.have.length(0);
        expect(await restarted.nicepay.unsettled()).to.deep.equal([]);
        expect(sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      } finally {
        await first.close();
        await restarted.close();
        await sandbox.close();
      }
    });
  }

  it("is recovered for its own order only when the gateway's signed answer names it: onApproved runs once more, recovered", async () => {
    const sandbox = createSandbox({ processedNamesOrder: true });
    await sandbox.listen(0);
    const first = await startShop({ sandbox });
    const restarted = await startShop({ sandbox });
    try {
      first.orders.set('order-c', 8_000);
      restarted.orders.set('order-c', 8_000);
      const auth = await sandbox.authenticate({ moid: 'order-c', amount: 8_000, method: 'CARD' });
      expect((await post(first, auth.fields, auth.contentType)).body).to.include({ status: 'approved' });
      const replay = await post(restarted, auth.fields, auth.contentType);
      expect(replay.status).to.equal(200);
      expect(replay.body).to.include({ status: 'approved', recovered: true, moid: 'order-c' });
      expect(restarted.approved.map((a) => a.moid)).to.deep.equal(['order-c']);
      expect(sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
    } finally {
      await first.close();
      await restarted.close();
      await sandbox.close();
    }
  });
});

describe("ledger: a stranger's token on a victim's TxTid", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
  });
  after(() => sandbox.close());

  it("before a restart: 409 NICEPAY_DUPLICATE_MISMATCH without a gateway call; after one: 400 NICEPAY_RETURN_INVALID; the victim's paid order is untouched either way", async () => {
    const shop = await startShop({ sandbox });
    const restarted = await startShop({ sandbox });
    try {
      for (const s of [shop, restarted]) s.orders.set('victim-x', 20_000).set('stranger-x', 20_000);
      const victim = await sandbox.authenticate({
        moid: 'victim-x',
        amount: 20_000,
        method: 'CARD',
        buyerName: '피해자',
      });
      expect((await post(shop, victim.fields, victim.contentType)).body).to.include({ status: 'approved' });
      const stranger = await sandbox.authenticate({ moid: 'stranger-x', amount: 20_000, method: 'CARD' });
      const forged = { ...stranger.fields, TxTid: victim.fields.TxTid, Moid: 'victim-x' };
      const calls = sandbox.ledger.get(victim.fields.TxTid!)!.approvalCalls;
      const before = await post(shop, forged, stranger.contentType);
      expect(before.status).to.equal(409);
      expect(before.body.code).to.equal('NICEPAY_DUPLICATE_MISMATCH');
      expect(sandbox.ledger.get(victim.fields.TxTid!)!.approvalCalls).to.equal(calls);
      const after = await post(restarted, forged, stranger.contentType);
      expect(after.status).to.equal(400);
      expect(after.body.code).to.equal('NICEPAY_RETURN_INVALID');
      expect(JSON.stringify(after.body)).to.not.match(/declined|피해자/);
      expect(restarted.approved).to.have.length(0);
      expect(await restarted.nicepay.unsettled()).to.deep.equal([]);
      expect(sandbox.ledger.get(victim.fields.TxTid!)?.status).to.equal('approved');
    } finally {
      await shop.close();
      await restarted.close();
    }
  });

  it('before the victim paid: the stranger gets 400 NICEPAY_RETURN_INVALID, nothing is recorded, and the victim still pays', async () => {
    const shop = await startShop({ sandbox });
    try {
      shop.orders.set('victim-y', 9_000).set('stranger-y', 9_000);
      const victim = await sandbox.authenticate({ moid: 'victim-y', amount: 9_000, method: 'CARD' });
      const stranger = await sandbox.authenticate({ moid: 'stranger-y', amount: 9_000, method: 'CARD' });
      const forged = await post(
        shop,
        { ...stranger.fields, TxTid: victim.fields.TxTid, Moid: 'victim-y' },
        stranger.contentType,
      );
      expect(forged.status).to.equal(400);
      expect(forged.body.code).to.equal('NICEPAY_RETURN_INVALID');
      const paid = await post(shop, victim.fields, victim.contentType);
      expect(paid.body).to.include({ status: 'approved', moid: 'victim-y', duplicate: false });
    } finally {
      await shop.close();
    }
  });
});

describe('ledger: a second window opened for a paid order', () => {
  it("is refused 409 NICEPAY_MOID_CHARGED_BEFORE, never a decline of the paid order: the gateway's A127 charged nothing", async () => {
    const sandbox = createSandbox();
    await sandbox.listen(0);
    const shop = await startShop({ sandbox });
    try {
      shop.orders.set('paid-once', 15_000);
      const buyer = await sandbox.authenticate({ moid: 'paid-once', amount: 15_000, method: 'CARD' });
      expect((await post(shop, buyer.fields, buyer.contentType)).body).to.include({ status: 'approved' });
      // Anyone may open the window for a known order (the shop's checkout page is public).
      const stranger = await sandbox.authenticate({ moid: 'paid-once', amount: 15_000, method: 'CARD' });
      const res = await post(shop, stranger.fields, stranger.contentType);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('NICEPAY_MOID_CHARGED_BEFORE');
      expect(JSON.stringify(res.body)).to.not.include('declined');
      expect(shop.approved.map((r) => r.tid)).to.deep.equal([buyer.fields.TxTid]);
      expect(sandbox.ledger.byMoid('nicepay00m', 'paid-once').map((e) => e.status)).to.deep.equal([
        'approved',
        'declined',
      ]);
      // Nothing was recorded for the stranger's TxTid: its repeat reaches the gateway, which
      // burnt the token (I003), and is answered as a duplicate of nobody's order.
      const again = await post(shop, stranger.fields, stranger.contentType);
      expect([again.status, again.body.code]).to.deep.equal([409, 'NICEPAY_ALREADY_PROCESSED']);
      expect(await shop.nicepay.unsettled()).to.deep.equal([]);
    } finally {
      await shop.close();
      await sandbox.close();
    }
  });
});

describe("ledger: a refunded order's own return replayed", () => {
  it('is never answered as a fresh decline: a duplicate of the payment while the ledger holds it, 409 NICEPAY_ALREADY_PROCESSED after a restart forgot it', async () => {
    const sandbox = createSandbox();
    await sandbox.listen(0);
    const shop = await startShop({ sandbox });
    const restarted = await startShop({ sandbox });
    try {
      for (const s of [shop, restarted]) s.orders.set('refunded-1', 5_000);
      const auth = await sandbox.authenticate({ moid: 'refunded-1', amount: 5_000, method: 'CARD' });
      const paid = await post(shop, auth.fields, auth.contentType);
      expect(paid.body).to.include({ status: 'approved' });
      const refund = await shop.nicepay.cancel({
        tid: auth.fields.TxTid!,
        moid: 'refunded-1',
        amount: 5_000,
        reason: '고객 요청',
      });
      expect(refund.status).to.equal('cancelled');
      const replay = await post(shop, auth.fields, auth.contentType);
      expect(replay.body).to.include({ status: 'approved', duplicate: true, moid: 'refunded-1' });
      const afterRestart = await post(restarted, auth.fields, auth.contentType);
      expect(afterRestart.status).to.equal(409);
      expect(afterRestart.body.code).to.equal('NICEPAY_ALREADY_PROCESSED');
      expect(restarted.approved).to.have.length(0);
      expect(sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('cancelled');
    } finally {
      await shop.close();
      await restarted.close();
      await sandbox.close();
    }
  });
});

/** Registers the billing test card and returns its BID. */
async function registered(shop: TestShop): Promise<{ bid: string }> {
  const r = await shop.nicepay.billing.register({
    moid: 'reg-flood',
    card: { number: '4111111111111111', expYear: '30', expMonth: '12' },
  });
  if (r.status !== 'registered') throw new Error(`registration refused: ${JSON.stringify(r)}`);
  return { bid: r.bid };
}
