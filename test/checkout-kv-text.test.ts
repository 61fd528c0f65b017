/**
 * The shop's own text in a KV approval answer. The gateway echoes GoodsName, the buyer fields
 * and MallReserved unescaped, and the auth return carries none of them, so a window not opened
 * through paymentWindow can bring `&` and `=` into the answer. The reader (src/wire/kv.ts)
 * reads a repeated key the one way the answer allows; a genuine approval is never net-cancelled
 * for its echoed text. Through checkoutReturn against the sandbox, and readKv on its own.
 */
import { expect } from 'chai';
import request from 'supertest';
import { readKv } from '../src/wire/kv.js';
import { startShop, type TestShop } from './helpers/shop.js';

const kv = (text: string) => readKv(Buffer.from(text, 'utf8'), 'utf-8');
const TID = 'nicepay00m01012611270748537W39';
const OTHER_TID = 'nicepay00m01012611270748539999';

describe('checkoutReturn with ediType KV: the shop text the answer echoes', () => {
  for (const charset of ['euc-kr', 'utf-8'] as const) {
    describe(`answers in ${charset}`, () => {
      let shop: TestShop;
      before(async () => {
        shop = await startShop({ route: { responseCharset: charset, ediType: 'KV' } });
      });
      after(() => shop.close());

      const texts: Array<[string, { goodsName?: string; mallReserved?: string; buyerName?: string }]> = [
        ['MallReserved naming Amt', { mallReserved: 'x&Amt=5' }],
        ['MallReserved naming ResultCode', { mallReserved: 'x&ResultCode=3011' }],
        ['MallReserved naming TID', { mallReserved: 'x&TID=zz' }],
        ['MallReserved naming Moid', { mallReserved: 'order=1&Moid=2' }],
        ['GoodsName naming TID', { goodsName: '셔츠&TID=1' }],
        ['BuyerName naming Amt', { buyerName: '홍&Amt=1' }],
      ];
      for (const [name, text] of texts) {
        it(`${name}: approved once, read with the text as sent, never net-cancelled`, async () => {
          const moid = `kv-${charset}-${name.replace(/\W/g, '')}`;
          shop.orders.set(moid, 1004);
          const before = shop.approved.length;
          const auth = await shop.sandbox.authenticate({
            moid,
            amount: 1004,
            method: 'CARD',
            goodsName: text.goodsName ?? '셔츠',
            ...text,
          });
          const res = await request(shop.app)
            .post('/pay/return')
            .set('content-type', auth.contentType)
            .send(auth.body.toString('latin1'));
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body.status).to.equal('approved');
          expect(shop.approved.length).to.equal(before + 1);
          expect(shop.sandbox.ledger.get(res.body.tid)?.status).to.equal('approved');
          const raw = res.body.payment.raw as Record<string, string>;
          if (text.mallReserved) expect(raw.MallReserved).to.equal(text.mallReserved);
          if (text.goodsName) expect(raw.GoodsName).to.equal(text.goodsName);
          if (text.buyerName) expect(raw.BuyerName).to.equal(text.buyerName);
          expect(raw.Amt).to.equal('000000001004');
          // The stored answer reads back the same way for a resubmitted return.
          const again = await request(shop.app)
            .post('/pay/return')
            .set('content-type', auth.contentType)
            .send(auth.body.toString('latin1'));
          expect(again.body).to.include({ status: 'approved', duplicate: true, tid: res.body.tid });
          expect(again.body.payment.raw).to.deep.equal(raw);
        });
      }

      it('a text whose key the answer does not otherwise carry reads as a field of its own, and the payment stands', async () => {
        const moid = `kv-${charset}-stray`;
        shop.orders.set(moid, 1004);
        const auth = await shop.sandbox.authenticate({
          moid,
          amount: 1004,
          method: 'CARD',
          mallReserved: 'size=L&color=red',
        });
        const res = await request(shop.app)
          .post('/pay/return')
          .set('content-type', auth.contentType)
          .send(auth.body.toString('latin1'));
        expect(res.body.status).to.equal('approved');
        // What the reader cannot tell: `color=red` may be a field the gateway added.
        expect(res.body.payment.raw).to.include({ MallReserved: 'size=L', color: 'red' });
      });
    });
  }
});

describe('readKv: a repeated key in a KV answer', () => {
  it('reads the copy inside an echoed value as shop text, whether the echoed field comes after or before the gateway copy', () => {
    expect(kv(`ResultCode=3001&Amt=000000001004&TID=${TID}&MallReserved=x&Amt=5&CardCode=01`).fields).to.include({
      Amt: '000000001004',
      MallReserved: 'x&Amt=5',
      CardCode: '01',
    });
    expect(kv(`ResultCode=3001&MallReserved=x&Amt=5&Amt=000000001004&TID=${TID}`).fields).to.include({
      Amt: '000000001004',
      MallReserved: 'x&Amt=5',
      TID,
    });
  });

  it('keeps a decline a decline when a buyer field names ResultCode 3001', () => {
    expect(kv('ResultCode=3011&ResultMsg=refused&BuyerName=x&ResultCode=3001&GoodsName=g').fields).to.include({
      ResultCode: '3011',
      BuyerName: 'x&ResultCode=3001',
      GoodsName: 'g',
    });
  });

  it('is ambiguous when no copy can be echoed text (a repeat outside every echoed value)', () => {
    expect(kv('ResultCode=3011&ResultMsg=refused&TID=x&ResultCode=3001').ambiguous).to.be.a('string');
    expect(kv('ResultCode=3001&ResultCode=3011&MallReserved=x').ambiguous).to.be.a('string');
  });

  it('is ambiguous when either copy of a gateway field can be echoed text and both have its shape', () => {
    // TID after GoodsName, and again inside MallReserved: GoodsName may hold the first.
    const both = kv(`ResultCode=3001&GoodsName=g&TID=${TID}&PayMethod=CARD&MallReserved=x&TID=${OTHER_TID}`);
    expect(both.ambiguous).to.be.a('string');
    // The same with a copy that is no TID at all: the reading that takes it for one is dropped.
    expect(kv(`ResultCode=3001&GoodsName=g&TID=${TID}&PayMethod=CARD&MallReserved=x&TID=zz`).fields).to.include({
      TID,
      MallReserved: 'x&TID=zz',
      GoodsName: 'g',
    });
  });

  it('with what the answer must name (the TID sent), picks the one reading that names it: a look-alike TID in the shop text is shop text', () => {
    const text = `ResultCode=3001&GoodsName=g&TID=${TID}&PayMethod=CARD&MallReserved=x&TID=${OTHER_TID}`;
    expect(readKv(Buffer.from(text, 'utf8'), 'utf-8', { TID }).fields).to.include({
      TID,
      MallReserved: `x&TID=${OTHER_TID}`,
      GoodsName: 'g',
    });
    // Naming neither reading's TID leaves it ambiguous: the answer is not about what was sent.
    expect(readKv(Buffer.from(text, 'utf8'), 'utf-8', { TID: 'nicepay00m01012611270748530000' }).ambiguous).to.be.a(
      'string',
    );
  });

  it('reads an answer whose readings differ only in how two echoed values split', () => {
    const r = kv(`ResultCode=3001&BuyerName=b&GoodsName=z&GoodsName=g&TID=${TID}`);
    expect(r.fields).to.include({ ResultCode: '3001', TID });
    expect(`${r.fields!.BuyerName}&GoodsName=${r.fields!.GoodsName}`).to.equal('b&GoodsName=z&GoodsName=g');
  });
});
