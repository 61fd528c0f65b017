/**
 * A return the middleware cannot trust is refused before any gateway call, with a clear 4xx
 * that changes nothing: bad bodies and fields, swapped or foreign gateway endpoints (SSRF),
 * a PayMethod outside the four.
 */
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { createNicepay } from '../src/index.js';
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
    request(shop.app)
      .post('/pay/return')
      .set('content-type', type)
      .send(typeof body === 'string' ? body : body.toString('latin1'));

  it('413 for a body over the limit', async () => {
    const res = await post(`AuthResultCode=0000&x=${'a'.repeat(20_000)}`);
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('NICEPAY_BODY_TOO_LARGE');
  });

  it('415 for another media type or charset, or a header naming two charsets (it can be read two ways)', async () => {
    expect((await post('{}', 'application/json')).body.code).to.equal('NICEPAY_CONTENT_TYPE_UNSUPPORTED');
    for (const type of [
      'application/x-www-form-urlencoded; charset=latin1',
      'application/x-www-form-urlencoded; charset=euc-kr; charset=utf-8',
      'application/x-www-form-urlencoded; charset=euc-kr; charset="euc-kr"',
    ]) {
      const res = await post('a=b', type);
      expect(res.status, type).to.equal(415);
      expect(res.body.code, type).to.equal('NICEPAY_CHARSET_UNSUPPORTED');
    }
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
    expect(seen.message).to.include('mount checkoutReturn() before express.urlencoded()');
  });
});

describe('checkoutReturn refuses a return aimed at the wrong endpoint or method', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop();
  });
  after(() => shop.close());

  async function authFor(moid: string, amount = 1004) {
    shop.orders.set(moid, amount);
    return shop.sandbox.authenticate({ moid, amount, method: 'CARD' });
  }
  const post = (app: TestShop['app'], type: string, body: Buffer) =>
    request(app).post('/pay/return').set('content-type', type).send(body.toString('latin1'));

  it('refuses swapped or foreign endpoints on the trusted host (path checked, not just host)', async () => {
    const auth = await authFor('path-swap');
    const swaps = [
      { NextAppURL: auth.fields.NetCancelURL!, NetCancelURL: auth.fields.NextAppURL! },
      { NextAppURL: auth.fields.NextAppURL!.replace('pay_process.jsp', 'other.jsp') },
    ];
    for (const swap of swaps) {
      const res = await post(shop.app, auth.contentType, encodeForm({ ...auth.fields, ...swap }, 'euc-kr'));
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
    }
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });

  it('refuses a PayMethod outside the four before approving', async () => {
    const auth = await authFor('bad-method');
    const res = await post(shop.app, auth.contentType, encodeForm({ ...auth.fields, PayMethod: 'SSG_BANK' }, 'euc-kr'));
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'NICEPAY_FIELD_INVALID' });
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});

describe('checkoutReturn and NextAppURL / NetCancelURL (SSRF)', () => {
  let shop: TestShop;
  let hits = 0;
  let trap: import('node:http').Server;
  let trapUrl = '';
  before(async () => {
    shop = await startShop();
    const http = await import('node:http');
    trap = http.createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    trapUrl = `http://127.0.0.1:${(trap.address() as import('node:net').AddressInfo).port}`;
  });
  after(async () => {
    await shop.close();
    await new Promise((r) => trap.close(r));
  });

  for (const field of ['NextAppURL', 'NetCancelURL'] as const) {
    it(`refuses a ${field} on an untrusted host; that host receives nothing`, async () => {
      const moid = `ssrf-${field}`;
      shop.orders.set(moid, 1004);
      const auth = await shop.sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
      const { encodeForm } = await import('../src/wire/form-codec.js');
      const body = encodeForm({ ...auth.fields, [field]: `${trapUrl}/webapi/pay_process.jsp` }, 'euc-kr');
      const res = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(body.toString('latin1'));
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
      expect(res.body.message).to.include(field).and.not.include(trapUrl);
      expect(hits).to.equal(0);
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
    });
  }

  it('refuses another scheme and embedded credentials on the trusted host', async () => {
    const moid = 'ssrf-scheme';
    shop.orders.set(moid, 1004);
    const auth = await shop.sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
    const { encodeForm } = await import('../src/wire/form-codec.js');
    const next = new URL(auth.fields.NextAppURL!);
    for (const bad of [next.href.replace('http:', 'https:'), next.href.replace('//', '//user:pw@')]) {
      const body = encodeForm({ ...auth.fields, NextAppURL: bad }, 'euc-kr');
      const res = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(body.toString('latin1'));
      expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
    }
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});
