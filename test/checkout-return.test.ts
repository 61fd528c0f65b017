import { expect } from 'chai';
import request from 'supertest';
import { encodeForm } from '../src/wire/form-codec.js';
import { memoryStore, NicepayConfigError, NicepayHookError, type CheckoutResult } from '../src/index.js';
import { createSandbox } from '../src/sandbox/index.js';
import { startShop, MERCHANT_KEY, MID, type ShopOptions, type TestShop } from './helpers/shop.js';

let seq = 0;
const newMoid = (): string => `order-${Date.now()}-${++seq}`;

/** Authenticates in the sandbox for a fresh order of `amount` and posts the return. */
async function pay(
  shop: TestShop,
  opts: {
    method?: 'CARD' | 'BANK' | 'VBANK' | 'CELLPHONE';
    amount?: number;
    buyerName?: string;
    goodsName?: string;
    charset?: 'euc-kr' | 'utf-8';
  } = {},
) {
  const moid = newMoid();
  const amount = opts.amount ?? 1004;
  shop.orders.set(moid, amount);
  const auth = await shop.sandbox.authenticate({
    moid,
    amount,
    method: opts.method ?? 'CARD',
    buyerName: opts.buyerName,
    goodsName: opts.goodsName,
    charset: opts.charset,
  });
  const res = await request(shop.app)
    .post('/pay/return')
    .set('content-type', auth.contentType)
    .send(auth.body.toString('latin1'));
  return { moid, auth, res, result: res.body as CheckoutResult };
}

describe('checkoutReturn against the sandbox', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop();
  });
  after(async () => {
    await shop.close();
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY);
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY.slice(0, 16));
  });

  it('approves a card payment and attaches a typed result', async () => {
    const { res, result, moid } = await pay(shop, { method: 'CARD' });
    expect(res.status).to.equal(200);
    expect(result.status).to.equal('approved');
    if (result.status !== 'approved' || result.payment.method !== 'CARD') throw new Error('narrowing');
    expect(result.moid).to.equal(moid);
    expect(result.payment.amount).to.equal(1004);
    expect(result.payment.resultCode).to.equal('3001');
    expect(result.payment.card.maskedNumber).to.match(/\*/);
    // AuthDate is the gateway's clock (KST, to the second): the sandbox booked it at that second.
    const booked = shop.sandbox.ledger.get(result.tid)!.approvedAt!.getTime();
    expect(new Date(result.payment.approvedAt as unknown as string).getTime()).to.equal(booked - (booked % 1000));
    expect(result.payment.raw.Amt).to.equal('000000001004');
    expect(result.duplicate).to.equal(false);
    expect(shop.sandbox.ledger.get(result.tid)?.status).to.equal('approved');
  });

  it('approves a bank transfer (4000) and a cellphone payment (A000)', async () => {
    const bank = await pay(shop, { method: 'BANK' });
    expect(bank.result.status).to.equal('approved');
    if (bank.result.status !== 'approved' || bank.result.payment.method !== 'BANK') throw new Error('narrowing');
    expect(bank.result.payment.resultCode).to.equal('4000');
    expect(bank.result.payment.bank.name).to.be.a('string').and.not.equal('');
    const phone = await pay(shop, { method: 'CELLPHONE' });
    expect(phone.result.status).to.equal('approved');
    if (phone.result.status !== 'approved') throw new Error('narrowing');
    expect(phone.result.payment.method).to.equal('CELLPHONE');
    expect(phone.result.payment.resultCode).to.equal('A000');
  });

  it('reports a virtual account (4100) as awaiting-deposit with the account', async () => {
    const { result } = await pay(shop, { method: 'VBANK', amount: 55_000 });
    expect(result.status).to.equal('awaiting-deposit');
    if (result.status !== 'awaiting-deposit') throw new Error('narrowing');
    expect(result.payment.virtualAccount.accountNumber).to.match(/\d/);
    expect(new Date(result.payment.virtualAccount.expiresAt as unknown as string).getTime()).to.be.greaterThan(
      shop.sandbox.clock.now().getTime(),
    );
    expect(shop.sandbox.ledger.get(result.tid)?.status).to.equal('awaiting-deposit');
  });

  it('calls onApproved once per TID with the committed result', async () => {
    const before = shop.approved.length;
    const { result } = await pay(shop, { method: 'CARD' });
    expect(shop.approved.length).to.equal(before + 1);
    expect(shop.approved.at(-1)!.tid).to.equal(result.status === 'approved' ? result.tid : 'x');
  });

  it('gives auth-failed marked unverified, the posted text only under buyerPosted, and makes no gateway call', async () => {
    const moid = newMoid();
    shop.orders.set(moid, 1004);
    const auth = await shop.sandbox.authenticate({ moid, amount: 1004, method: 'CARD', cancel: true });
    const calls = shop.sandbox.ledger.entries().reduce((n, e) => n + e.approvalCalls, 0);
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('auth-failed');
    // Nothing in it may pass for the gateway's word: no top-level code or message.
    expect(res.body.verified).to.equal(false);
    expect(res.body).to.not.have.any.keys('code', 'message');
    expect(res.body.buyerPosted.authResultCode).to.not.equal('0000');
    expect(res.body.buyerPosted.authResultMsg).to.match(/[가-힣]/);
    expect(shop.sandbox.ledger.entries().reduce((n, e) => n + e.approvalCalls, 0)).to.equal(calls);
  });

  it('keeps CP949-only syllables (똠, 햏) intact from window to typed result, EUC-KR and UTF-8', async () => {
    const utf8 = await startShop({ sandbox: shop.sandbox, nicepay: { charset: 'utf-8' } });
    try {
      for (const [s, charset] of [
        [shop, 'euc-kr'],
        [utf8, 'utf-8'],
      ] as const) {
        const { result } = await pay(s, { buyerName: '김똠햏', goodsName: '뷁 세트', charset });
        if (result.status !== 'approved') throw new Error(`not approved: ${JSON.stringify(result)}`);
        expect(result.payment.buyerName).to.equal('김똠햏');
        expect(result.payment.goodsName).to.equal('뷁 세트');
      }
    } finally {
      await utf8.close();
    }
  });

  it('keeps unknown response fields verbatim in raw', async () => {
    const { result } = await pay(shop);
    if (result.status !== 'approved') throw new Error('not approved');
    const known = new Set([
      'ResultCode',
      'ResultMsg',
      'Amt',
      'MID',
      'Moid',
      'Signature',
      'TID',
      'PayMethod',
      'AuthCode',
      'AuthDate',
    ]);
    const extra = Object.keys(result.payment.raw).filter(
      (k) =>
        !known.has(k) &&
        !/^(Card|Acqu|Buyer|Goods|Mall|Cc|Click|Coupon|Point|Multi|Rcpt|MsgSource|CartData|ApproveCardQuota)/.test(k),
    );
    expect(extra.length).to.be.greaterThan(0);
  });

  it('refuses a return whose Amt was tampered (Signature no longer verifies): nothing approved', async () => {
    const moid = newMoid();
    shop.orders.set(moid, 50_000);
    const auth = await shop.sandbox.authenticate({ moid, amount: 50_000, method: 'CARD' });
    const body = encodeForm({ ...auth.fields, Amt: '500' }, 'euc-kr');
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(body.toString('latin1'));
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('NICEPAY_SIGNATURE_MISMATCH');
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });

  it('refuses a genuine cheap authentication for an expensive order (amount mismatch)', async () => {
    const moid = newMoid();
    shop.orders.set(moid, 50_000);
    const auth = await shop.sandbox.authenticate({ moid, amount: 100, method: 'CARD' });
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('NICEPAY_AMOUNT_MISMATCH');
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });

  it('answers 404 for an order the shop does not know', async () => {
    const auth = await shop.sandbox.authenticate({ moid: 'no-such-order', amount: 1004, method: 'CARD' });
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.status).to.equal(404);
    expect(res.body.code).to.equal('NICEPAY_UNKNOWN_ORDER');
  });

  it('reports declined with the gateway code and message when the gateway refuses', async () => {
    const moid = newMoid();
    shop.orders.set(moid, 1004);
    const auth = await shop.sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
    shop.sandbox.faults.inject({
      target: 'approve',
      kind: 'decline',
      resultCode: '3011',
      resultMsg: '카드사 승인 거절(한도초과)',
    });
    const before = shop.approved.length;
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'declined', code: '3011', message: '카드사 승인 거절(한도초과)' });
    expect(res.body.raw.ResultCode).to.equal('3011');
    expect(shop.approved.length).to.equal(before);
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('declined');
  });

  it("an expectedAmount returning what is not a positive integer is the shop hook's error (500 NICEPAY_HOOK_RESULT_INVALID), never a configuration error, and nothing is sent", async () => {
    const other = await startShop({ sandbox: shop.sandbox, route: { expectedAmount: () => 10.5 } });
    const auth = await shop.sandbox.authenticate({ moid: newMoid(), amount: 1004, method: 'CARD' });
    const res = await request(other.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    await other.close();
    expect(res.status).to.equal(500);
    expect(res.body.code).to.equal('NICEPAY_HOOK_RESULT_INVALID');
    expect(other.errors.at(-1)).to.be.instanceOf(NicepayHookError).and.not.be.instanceOf(NicepayConfigError);
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});

describe('checkoutReturn: a TID the gateway processed before, replayed to an instance whose store never saw it', () => {
  /** A sandbox whose "already processed" refusals name the order (processedNamesOrder), and one whose do not (the default). */
  let naming: TestShop;
  let silent: TestShop;
  before(async () => {
    const namingSandbox = createSandbox({ processedNamesOrder: true });
    await namingSandbox.listen(0);
    naming = await startShop({ sandbox: namingSandbox });
    silent = await startShop();
  });
  after(async () => {
    await naming.close();
    await naming.sandbox.close();
    await silent.close();
  });

  /** Another instance on the same sandbox with its own empty ledger, and its own hook. */
  async function otherInstance(base: TestShop, route: ShopOptions['route'] = {}) {
    const store = memoryStore();
    const other = await startShop({ sandbox: base.sandbox, nicepay: { store, settle: false }, route });
    const replay = (body: Buffer | string, contentType: string) =>
      request(other.app)
        .post('/pay/return')
        .set('content-type', contentType)
        .send(typeof body === 'string' ? body : body.toString('latin1'));
    return { other, store, replay };
  }

  it('an "already approved" answer whose signed fields name this order is recovered by the status inquiry: approved, recovered, onApproved runs, nothing reversed', async () => {
    const { result: first, auth } = await pay(naming);
    expect(first.status).to.equal('approved');
    const { other, store, replay } = await otherInstance(naming);
    try {
      other.orders.set(auth.fields.Moid!, 1004);
      const res = await replay(auth.body, auth.contentType);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        status: 'approved',
        recovered: true,
        tid: auth.fields.TxTid,
        moid: auth.fields.Moid,
        amount: 1004,
      });
      // Hooks are at-least-once per TID: the instance that never saw the payment hears of it.
      expect(other.approved.map((a) => a.tid)).to.deep.equal([auth.fields.TxTid]);
      expect(JSON.parse((await store.get(`approval:${MID}:${auth.fields.TxTid}`))!.value)).to.include({
        state: 'recorded',
        recovered: true,
        moid: auth.fields.Moid,
      });
      expect(naming.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
    } finally {
      await other.close();
    }
  });

  it('when the gateway\'s "already approved" names no order, the same replay is 409 ALREADY_PROCESSED: nothing recorded for the posted Moid, no hook, nothing changed', async () => {
    const { result: first, auth } = await pay(silent);
    expect(first.status).to.equal('approved');
    const { other, store, replay } = await otherInstance(silent);
    try {
      other.orders.set(auth.fields.Moid!, 1004);
      const res = await replay(auth.body, auth.contentType);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('NICEPAY_ALREADY_PROCESSED');
      expect(other.approved).to.have.length(0);
      expect(await store.get(`approval:${MID}:${auth.fields.TxTid}`)).to.equal(undefined);
      expect(await store.open(10)).to.deep.equal([]);
      expect(silent.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
    } finally {
      await other.close();
    }
  });

  it('a replay whose form names another order of the same amount is never recovered for it: the gateway names its own order, so 409 ALREADY_PROCESSED and nothing recorded', async () => {
    const { result: first, auth } = await pay(naming);
    expect(first.status).to.equal('approved');
    const { other, store, replay } = await otherInstance(naming);
    try {
      other.orders.set('someone-elses-order', 1004);
      const forged = encodeForm({ ...auth.fields, Moid: 'someone-elses-order' }, 'euc-kr');
      const res = await replay(forged, auth.contentType);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('NICEPAY_ALREADY_PROCESSED');
      expect(other.approved).to.have.length(0);
      expect(await store.get(`approval:${MID}:${auth.fields.TxTid}`)).to.equal(undefined);
      expect(await store.open(10)).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it('a recovered approval whose onApproved fails is reversed like any other: 500 HOOK_FAILED, settlement reversed, the gateway cancels it', async () => {
    const { result: first, auth } = await pay(naming);
    expect(first.status).to.equal('approved');
    const { other, store, replay } = await otherInstance(naming, {
      onApproved: () => Promise.reject(new Error('orders database down')),
    });
    try {
      other.orders.set(auth.fields.Moid!, 1004);
      const res = await replay(auth.body, auth.contentType);
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'succeeded' });
      expect(other.errors.at(-1)).to.include({ settlement: 'reversed', outcomeUnknown: false, tid: auth.fields.TxTid });
      expect(JSON.parse((await store.get(`approval:${MID}:${auth.fields.TxTid}`))!.value)).to.include({
        state: 'reversed',
        recovered: true,
      });
      expect(naming.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('net-cancelled');
    } finally {
      await other.close();
    }
  });

  it('an "already approved" virtual account is not recovered (the status inquiry cannot tell unpaid from none): 409 ALREADY_PROCESSED, nothing recorded, the account stays issued', async () => {
    const { result: first, auth } = await pay(naming, { method: 'VBANK' });
    expect(first.status).to.equal('awaiting-deposit');
    const { other, store, replay } = await otherInstance(naming);
    try {
      other.orders.set(auth.fields.Moid!, 1004);
      const res = await replay(auth.body, auth.contentType);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('NICEPAY_ALREADY_PROCESSED');
      expect(other.approved).to.have.length(0);
      expect(await store.get(`approval:${MID}:${auth.fields.TxTid}`)).to.equal(undefined);
      expect(naming.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('awaiting-deposit');
    } finally {
      await other.close();
    }
  });

  it('an "already processed" answer for a TID the gateway no longer holds approved is 409 ALREADY_PROCESSED, never approved or declined', async () => {
    const moid = newMoid();
    naming.orders.set(moid, 1004);
    const auth = await naming.sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
    // The approval commits, then its answer is lost: the shop net-cancels it.
    naming.sandbox.faults.inject({ target: 'approve', kind: 'drop', commit: true });
    const lost = await request(naming.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(lost.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
    // An instance whose store never saw it replays the return: the gateway says processed (I003).
    const { other, store, replay } = await otherInstance(naming);
    try {
      other.orders.set(moid, 1004);
      const res = await replay(auth.body, auth.contentType);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('NICEPAY_ALREADY_PROCESSED');
      expect(res.body).not.to.have.property('status');
      expect(other.approved).to.have.length(0);
      expect(await store.get(`approval:${MID}:${auth.fields.TxTid}`)).to.equal(undefined);
      expect(naming.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('net-cancelled');
    } finally {
      await other.close();
    }
  });
});

describe('checkoutReturn: every response CharSet x EdiType', () => {
  const combos = [
    { responseCharset: 'euc-kr', ediType: 'JSON' },
    { responseCharset: 'euc-kr', ediType: 'KV' },
    { responseCharset: 'utf-8', ediType: 'JSON' },
    { responseCharset: 'utf-8', ediType: 'KV' },
  ] as const;
  for (const route of combos) {
    describe(`${route.responseCharset} / ${route.ediType}`, () => {
      let shop: TestShop;
      before(async () => {
        shop = await startShop({ route });
      });
      after(() => shop.close());

      for (const method of ['CARD', 'BANK', 'VBANK', 'CELLPHONE'] as const) {
        it(`${method}: decoded by what was asked, Korean intact, Signature verified`, async () => {
          const moid = `fmt-${route.responseCharset}-${route.ediType}-${method}`;
          shop.orders.set(moid, 12_345);
          const auth = await shop.sandbox.authenticate({ moid, amount: 12_345, method, buyerName: '박똠햏' });
          const res = await request(shop.app)
            .post('/pay/return')
            .set('content-type', auth.contentType)
            .send(auth.body.toString('latin1'));
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body.status).to.equal(method === 'VBANK' ? 'awaiting-deposit' : 'approved');
          expect(res.body.payment.method).to.equal(method);
          expect(res.body.payment.amount).to.equal(12_345);
          expect(res.body.payment.buyerName).to.equal('박똠햏');
          expect(res.body.payment.resultMessage).to.match(/[가-힣]/);
        });
      }
    });
  }
});
