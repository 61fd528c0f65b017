import { expect } from 'chai';
import request from 'supertest';
import { type CancelResult, createNicepay, type LedgerStore, memoryStore } from '../src/index.js';
import { fromKst } from '../src/wire/kst.js';
import { startLifecycleShop, MERCHANT_KEY, MID, type LifecycleShop } from './helpers/lifecycle-shop.js';

function cancelled(r: CancelResult): Extract<CancelResult, { status: 'cancelled' | 'refund-pending' }> {
  if (r.status === 'refused') throw new Error(`refused ${r.code} ${r.message}`);
  return r;
}

/** The refund of a paid 30,000-won virtual account to its buyer's account. */
function refund(shop: LifecycleShop, paid: { tid: string; moid: string }): Promise<CancelResult> {
  return shop.nicepay.cancel({
    tid: paid.tid,
    moid: paid.moid,
    amount: 30_000,
    reason: '환불',
    refundAccount: { number: '123-456-789012', bankCode: '004', holder: '김철수' },
  });
}

describe('lifecycle: window, cancel, status and deposit notices against the sandbox', () => {
  let shop: LifecycleShop;
  before(async () => {
    shop = await startLifecycleShop();
  });
  after(async () => {
    await shop.close();
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY.slice(0, 16));
  });

  describe('paymentWindow', () => {
    it('signs the window in KST from the injected clock, whatever TZ says', () => {
      const np = createNicepay({
        mid: MID,
        merchantKey: MERCHANT_KEY,
        baseUrl: 'https://webapi.nicepay.co.kr',
        clock: () => fromKst(2019, 11, 14, 1, 20, 0),
      });
      const w = np.paymentWindow({
        moid: 'order-1',
        amount: 1004,
        goodsName: '나이스 상품',
        returnUrl: 'https://shop.example/pay/return',
        buyer: { name: '홍길동', tel: '010-1234-5678' },
        payMethod: ['CARD', 'VBANK'],
      });
      expect(w.EdiDate).to.equal('20191114012000');
      expect(w.SignData).to.match(/^[0-9a-f]{64}$/);
      expect(w).to.include({
        MID,
        Amt: '1004',
        Moid: 'order-1',
        GoodsName: '나이스 상품',
        CharSet: 'euc-kr',
        BuyerTel: '01012345678',
        PayMethod: 'CARD,VBANK',
        ReturnURL: 'https://shop.example/pay/return',
      });
      expect(w).to.not.have.property('VbankExpDate');
    });

    it('checks byte limits in the window charset and names the field, never the value', () => {
      const euc = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'https://webapi.nicepay.co.kr' });
      const utf = createNicepay({
        mid: MID,
        merchantKey: MERCHANT_KEY,
        baseUrl: 'https://webapi.nicepay.co.kr',
        charset: 'utf-8',
      });
      const goodsName = '가'.repeat(15); // 30 bytes in EUC-KR, 45 in UTF-8: the limit is 40
      expect(
        euc.paymentWindow({ moid: 'o', amount: 1, goodsName, returnUrl: 'https://s.example/r' }).GoodsName,
      ).to.equal(goodsName);
      let err: { code?: string; field?: string; message?: string } = {};
      try {
        utf.paymentWindow({ moid: 'o', amount: 1, goodsName, returnUrl: 'https://s.example/r' });
      } catch (e) {
        err = e as typeof err;
      }
      expect(err.code).to.equal('NICEPAY_FIELD_INVALID');
      expect(err.field).to.equal('GoodsName');
      expect(err.message).to.include('45 bytes in utf-8').and.not.include('가');
      expect(() =>
        euc.paymentWindow({ moid: 'o', amount: 0, goodsName: 'x', returnUrl: 'https://s.example/r' }),
      ).to.throw(/amount/);
      expect(() => euc.paymentWindow({ moid: 'o', amount: 1, goodsName: 'x', returnUrl: '/relative' })).to.throw(
        /returnUrl/,
      );
      expect(() =>
        euc.paymentWindow({ moid: 'o', amount: 1, goodsName: '😀 emoji', returnUrl: 'https://s.example/r' }),
      ).to.throw(/GoodsName has characters euc-kr cannot encode/);
      expect(() =>
        createNicepay({
          mid: MID,
          merchantKey: MERCHANT_KEY,
          baseUrl: 'https://x.example',
          charset: 'latin1' as 'utf-8',
        }),
      ).to.throw(/option charset/);
    });

    it("with ediType 'KV' refuses echoed text holding & or = (naming the option), and leaves it alone for JSON", () => {
      const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'https://webapi.nicepay.co.kr' });
      const order = { moid: 'o', amount: 1, goodsName: 'A&B 세트', returnUrl: 'https://s.example/r' };
      expect(np.paymentWindow(order).GoodsName).to.equal('A&B 세트');
      expect(np.paymentWindow({ ...order, ediType: 'JSON' }).GoodsName).to.equal('A&B 세트');
      const refused = (
        o: Parameters<typeof np.paymentWindow>[0],
      ): { code?: string; field?: string; message: string } => {
        try {
          np.paymentWindow(o);
        } catch (e) {
          return e as { code?: string; field?: string; message: string };
        }
        throw new Error('not refused');
      };
      const goods = refused({ ...order, ediType: 'KV' });
      expect([goods.code, goods.field]).to.deep.equal(['NICEPAY_FIELD_INVALID', 'goodsName']);
      expect(goods.message).to.include("use ediType 'JSON'");
      expect(refused({ ...order, goodsName: 'x', mallReserved: 'a=b', ediType: 'KV' }).field).to.equal('mallReserved');
      expect(refused({ ...order, goodsName: 'x', buyer: { name: '홍&길동' }, ediType: 'KV' }).field).to.equal(
        'buyer.name',
      );
      expect(np.paymentWindow({ ...order, goodsName: '나이스 상품', ediType: 'KV' }).GoodsName).to.equal('나이스 상품');
      expect(refused({ ...order, ediType: 'XML' as 'KV' }).field).to.equal('ediType');
    });

    it('writes a Date vbankExpiry as YYYYMMDDHHmm KST', () => {
      const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'https://webapi.nicepay.co.kr' });
      const w = np.paymentWindow({
        moid: 'o',
        amount: 1,
        goodsName: 'x',
        returnUrl: 'https://s.example/r',
        vbankExpiry: fromKst(2026, 12, 1, 23, 59),
      });
      expect(w.VbankExpDate).to.equal('202612012359');
      expect(() =>
        np.paymentWindow({
          moid: 'o',
          amount: 1,
          goodsName: 'x',
          returnUrl: 'https://s.example/r',
          vbankExpiry: '2026-12-01',
        }),
      ).to.throw(/VbankExpDate/);
    });
  });

  describe('cancel', () => {
    it('cancels a card payment fully and the ledger and status show it', async () => {
      const paid = await shop.pay('CARD', 1004);
      expect((await shop.nicepay.status(paid.tid)).status).to.equal('approved');
      const r = cancelled(
        await shop.nicepay.cancel({ tid: paid.tid, moid: paid.moid, amount: 1004, reason: '고객 요청 취소' }),
      );
      expect(r).to.include({
        status: 'cancelled',
        code: '2001',
        cancelledAmount: 1004,
        remainingAmount: 0,
        duplicate: false,
      });
      expect(r.cancelledAt).to.be.instanceOf(Date);
      const entry = shop.sandbox.ledger.get(paid.tid)!;
      expect(entry.status).to.equal('cancelled');
      expect(entry.cancels).to.have.length(1);
      expect(entry.cancels![0]).to.include({ amount: 1004, remaining: 0, reason: '고객 요청 취소' });
      const s = await shop.nicepay.status(paid.tid);
      expect(s.status).to.equal('cancelled');
      expect(s.authCode).to.match(/^\d{8}$/);
      expect(s.authDate).to.be.instanceOf(Date);
    });

    it('partial, then full of the rest, then one too many', async () => {
      const paid = await shop.pay('CARD', 1004);
      const balance = () => shop.sandbox.dataHost.balance(MID).remainAmt;
      const before = balance();
      const a = cancelled(
        await shop.nicepay.cancel({ tid: paid.tid, moid: paid.moid, amount: 500, reason: 'partial', partial: true }),
      );
      expect(a).to.include({ cancelledAmount: 500, remainingAmount: 504 });
      expect((await shop.nicepay.status(paid.tid)).status).to.equal('approved'); // a partial cancel does not show
      const b = cancelled(
        await shop.nicepay.cancel({
          tid: paid.tid,
          moid: paid.moid,
          amount: 504,
          reason: 'rest',
          remainingAmount: 504,
        }),
      );
      expect(b).to.include({ cancelledAmount: 504, remainingAmount: 0 });
      const c = await shop.nicepay.cancel({
        tid: paid.tid,
        moid: paid.moid,
        amount: 100,
        reason: 'again',
        partial: true,
      });
      expect(c).to.include({ status: 'refused', code: '2015', reason: 'already-cancelled' });
      expect(before - balance()).to.equal(1004); // the payout balance gave back what was cancelled
      expect(shop.sandbox.ledger.get(paid.tid)!.cancels!.map((x) => x.amount)).to.deep.equal([500, 504]);
    });

    it('refunds a paid virtual account to a refund account (2225), after the deposit notice', async () => {
      const issued = await shop.pay('VBANK', 30_000, '김철수');
      expect(issued.status).to.equal('awaiting-deposit');
      await shop.sandbox.deposit(issued.tid, { depositor: '김철수' });
      expect(shop.deposits.map((d) => d.tid)).to.include(issued.tid);
      const notice = shop.deposits.find((d) => d.tid === issued.tid)!;
      expect(notice).to.include({ moid: issued.moid, amount: 30_000, depositorName: '김철수', bankName: '우리은행' });
      expect(notice.raw).to.not.have.property('MerchantKey');
      const noRefund = await shop.nicepay.cancel({
        tid: issued.tid,
        moid: issued.moid,
        amount: 30_000,
        reason: '환불',
      });
      expect(noRefund).to.include({ status: 'refused', code: '2221', reason: 'refund-account-required' });
      const r = cancelled(await refund(shop, issued));
      expect(r).to.include({ status: 'refund-pending', code: '2225', remainingAmount: 0 });
      expect(shop.sandbox.ledger.get(issued.tid)!.cancels![0]!.refundAccount).to.deep.equal({
        bankCode: '004',
        number: '****9012',
        holder: '김철수',
      });
    });
  });

  describe('status', () => {
    it('reports not-found for a TID the gateway never approved', async () => {
      const s = await shop.nicepay.status(`${MID}01011911140118081234`);
      expect(s).to.include({ status: 'not-found', authCode: undefined, authDate: undefined });
    });

    it('reports a net-cancelled approval as cancelled and a declined one as not-found', async () => {
      shop.sandbox.faults.inject({ target: 'approve', kind: 'html' }); // answer lost: the client net-cancels
      const moid = `ORDER-NC-${Date.now()}`;
      shop.orders.set(moid, { amount: 1004 });
      const auth = await shop.sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
      const res = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(res.status).to.equal(502);
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)!.status).to.equal('net-cancelled');
      expect((await shop.nicepay.status(auth.fields.TxTid!)).status).to.equal('cancelled');

      shop.sandbox.faults.inject({ target: 'approve', kind: 'decline' });
      const declined = await shop.pay('CARD', 1004);
      expect(declined.status).to.equal('declined');
      expect((await shop.nicepay.status(declined.tid)).status).to.equal('not-found');
    });

    it('reports an issued, unpaid virtual account as not-found (status 9), and approved once paid', async () => {
      const issued = await shop.pay('VBANK', 10_000);
      expect((await shop.nicepay.status(issued.tid)).status).to.equal('not-found');
      await shop.sandbox.deposit(issued.tid);
      expect((await shop.nicepay.status(issued.tid)).status).to.equal('approved');
    });
  });
});

describe('lifecycle: what the ledger keeps of a refund', () => {
  it('keeps the refund account while the refund is open and drops it from the record that closes it', async () => {
    // Every record text the store is given, in order.
    const written: string[] = [];
    const inner = memoryStore();
    const store: LedgerStore = {
      ...inner,
      acquire: (key, leaseMs, initial) => {
        if (initial) written.push(initial.value);
        return inner.acquire(key, leaseMs, initial);
      },
      write: (key, token, write, release) => {
        written.push(write.value);
        return inner.write(key, token, write, release);
      },
    };
    const shop = await startLifecycleShop({ store });
    try {
      const issued = await shop.pay('VBANK', 30_000, '김철수');
      await shop.sandbox.deposit(issued.tid, { depositor: '김철수' });
      written.length = 0;
      const r = cancelled(await refund(shop, issued));
      expect(r).to.include({ status: 'refund-pending', code: '2225' });
      // Records are JSON; a tally's entries (ledger keys) are not.
      const records = written
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as { op?: string; state?: string; data?: Record<string, string> })
        .filter((x) => x.op === 'cancel');
      expect(records.map((x) => x.state)).to.deep.equal(['sending', 'recorded']);
      // Written open: settlement could send the refund again with it.
      expect(records[0]!.data).to.include({
        refundNumber: '123456789012',
        refundBankCode: '004',
        refundHolder: '김철수',
      });
      // Closed: none of it is kept for the record's 35 days.
      expect(records[1]!.data).to.not.have.any.keys('refundNumber', 'refundBankCode', 'refundHolder');
      expect(JSON.stringify(records[1])).to.not.include('123456789012');
    } finally {
      await shop.close();
    }
  });
});
