import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createNicepay, NicepayConfigError } from '../src/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { MERCHANT_KEY, MID, startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn: bad input gets a clear 4xx and changes nothing', () => {
  let shop: TestShop;
  const ledgerCalls = () => shop.sandbox.ledger.entries().reduce((n, e) => n + e.approvalCalls, 0);
  before(async () => {
    shop = await startShop();
  });
  after(() => shop.close());

  const post = (body: string | Buffer, type = 'application/x-www-form-urlencoded') =>
    request(shop.app).post('/pay/return').set('content-type', type).send(typeof body === 'string' ? body : body.toString('latin1'));

  it('413 for a body over the limit', async () => {
    const res = await post('AuthResultCode=0000&x=' + 'a'.repeat(20_000));
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('NICEPAY_BODY_TOO_LARGE');
  });

  it('415 for another media type or charset', async () => {
    expect((await post('{}', 'application/json')).body.code).to.equal('NICEPAY_CONTENT_TYPE_UNSUPPORTED');
    const res = await post('a=b', 'application/x-www-form-urlencoded; charset=latin1');
    expect(res.status).to.equal(415);
    expect(res.body.code).to.equal('NICEPAY_CHARSET_UNSUPPORTED');
  });

  it('400 for malformed escapes, invalid EUC-KR bytes and duplicate keys', async () => {
    for (const body of ['MID=%ZZ', 'MID=%FF%FF', 'MID=a&MID=b']) {
      const res = await post(body);
      expect(res.status, body).to.equal(400);
      expect(res.body.code, body).to.equal('NICEPAY_BODY_MALFORMED');
    }
  });

  it('400 naming the field for a missing or oversized field, another MID, or a missing success field', async () => {
    const base = { AuthResultCode: '0000', MID, Moid: 'm1', Amt: '1004' };
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...base, MID: '' }, 'MID'],
      [{ ...base, MID: 'othermid0m' }, 'MID'],
      [{ ...base, Moid: 'x'.repeat(65) }, 'Moid'],
      [{ ...base, Moid: '가'.repeat(33) }, 'Moid'],
      [base, 'AuthToken'],
    ];
    for (const [fields, field] of cases) {
      const res = await post(encodeForm(fields, 'euc-kr'));
      expect(res.status, field).to.equal(400);
      expect(res.body.code, field).to.equal('NICEPAY_FIELD_INVALID');
      expect(res.body.message, field).to.include(field);
    }
    expect(ledgerCalls()).to.equal(0);
  });

  it('says plainly when another body parser already consumed the body', async () => {
    const nicepay = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: shop.sandbox.url });
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.post('/r', nicepay.checkoutReturn({ expectedAmount: () => 1 }), (_req, res) => res.end());
    let seen: { code?: string; message?: string } = {};
    app.use(((err, _req, res, _next) => {
      seen = err;
      res.status(err.status).end();
    }) as express.ErrorRequestHandler);
    const res = await request(app).post('/r').type('form').send('a=b');
    await nicepay.close();
    expect(res.status).to.equal(500);
    expect(seen.code).to.equal('NICEPAY_BODY_ALREADY_PARSED');
    expect(seen.message).to.match(/before express\.urlencoded/);
  });
});
