import { expect } from 'chai';
import request from 'supertest';
import { startShop, type TestShop } from './helpers/shop.js';

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
          const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
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
