import { expect } from 'chai';
import request from 'supertest';
import { trustedGatewayUrl } from '../src/approval/trusted-url.js';
import { resolveConfig } from '../src/config.js';
import { NicepayRequestError } from '../src/errors/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { startShop } from './helpers/shop.js';

const config = resolveConfig({ mid: 'nicepay00m', merchantKey: 'k'.repeat(88), baseUrl: 'https://webapi.nicepay.co.kr' });
const NEXT = 'https://webapi.nicepay.co.kr/webapi/pay_process.jsp';
const CANCEL = 'https://webapi.nicepay.co.kr/webapi/cancel_process.jsp';

function refusal(fn: () => unknown): NicepayRequestError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(NicepayRequestError);
    expect((err as NicepayRequestError).code).to.equal('NICEPAY_UNTRUSTED_URL');
    return err as NicepayRequestError;
  }
  throw new Error('expected a refusal');
}

describe('trustedGatewayUrl: only the exact documented endpoints', () => {
  it('accepts the two endpoints on the configured scheme and a trusted host', () => {
    expect(trustedGatewayUrl(NEXT, 'NextAppURL', config).href).to.equal(NEXT);
    expect(trustedGatewayUrl(CANCEL, 'NetCancelURL', config).href).to.equal(CANCEL);
  });

  it('refuses a swapped pair', () => {
    expect(refusal(() => trustedGatewayUrl(NEXT, 'NetCancelURL', config)).field).to.equal('NetCancelURL');
    expect(refusal(() => trustedGatewayUrl(CANCEL, 'NextAppURL', config)).field).to.equal('NextAppURL');
  });

  it('refuses any other path, even one that ends in the endpoint name', () => {
    for (const path of ['/no/such/path/pay_process.jsp', '/pay_process.jsp', '/webapi/pay_process.jsp/', '/webapi//pay_process.jsp', '/WEBAPI/pay_process.jsp', '/x/webapi/pay_process.jsp']) {
      refusal(() => trustedGatewayUrl(`https://webapi.nicepay.co.kr${path}`, 'NextAppURL', config));
    }
  });

  it('refuses a query (even an empty one), a fragment, credentials, another scheme or host', () => {
    for (const value of [
      `${NEXT}?a=1`, `${NEXT}?`, `${NEXT}#x`, `${NEXT}#`,
      'https://user:pw@webapi.nicepay.co.kr/webapi/pay_process.jsp',
      'http://webapi.nicepay.co.kr/webapi/pay_process.jsp',
      'https://evil.example/webapi/pay_process.jsp',
      'https://webapi.nicepay.co.kr.evil.example/webapi/pay_process.jsp',
      '/webapi/pay_process.jsp',
    ]) {
      const err = refusal(() => trustedGatewayUrl(value, 'NextAppURL', config));
      expect(err.message).to.not.include('evil').and.not.include('pw');
    }
  });
});

describe('trustedGatewayUrl: character for character', () => {
  it('refuses spellings a URL parser would normalise to the endpoint: case, default port, dot segments, backslashes, tabs, spaces', () => {
    for (const value of [
      'https://WEBAPI.nicepay.co.kr/webapi/pay_process.jsp',
      'HTTPS://webapi.nicepay.co.kr/webapi/pay_process.jsp',
      'https://webapi.nicepay.co.kr:443/webapi/pay_process.jsp',
      'https://webapi.nicepay.co.kr/x/../webapi/pay_process.jsp',
      'https://webapi.nicepay.co.kr/webapi/./pay_process.jsp',
      'https://webapi.nicepay.co.kr\\webapi\\pay_process.jsp',
      'https://webapi.nicepay.co.kr/webapi/pay_pro\tcess.jsp',
      ` ${NEXT}`, `${NEXT} `, `${NEXT}\n`,
    ]) {
      expect(new URL(value.trim()).href, value).to.equal(NEXT);
      const err = refusal(() => trustedGatewayUrl(value, 'NextAppURL', config));
      expect(err.message).to.include('must be exactly https://<trusted host>/webapi/pay_process.jsp');
    }
  });

  it('accepts each trusted host (dc1 and dc2) and says why anything else is refused', () => {
    const both = resolveConfig({ mid: 'nicepay00m', merchantKey: 'k'.repeat(88), baseUrl: 'https://dc1-api.nicepay.co.kr', trustedHosts: ['dc1-api.nicepay.co.kr', 'DC2-api.nicepay.co.kr'] });
    for (const host of ['dc1-api.nicepay.co.kr', 'dc2-api.nicepay.co.kr']) {
      expect(trustedGatewayUrl(`https://${host}/webapi/pay_process.jsp`, 'NextAppURL', both).href).to.equal(`https://${host}/webapi/pay_process.jsp`);
      expect(trustedGatewayUrl(`https://${host}/webapi/cancel_process.jsp`, 'NetCancelURL', both).pathname).to.equal('/webapi/cancel_process.jsp');
    }
    expect(refusal(() => trustedGatewayUrl('not a url', 'NextAppURL', both)).message).to.equal('NextAppURL is not an absolute URL');
    expect(refusal(() => trustedGatewayUrl('http://dc1-api.nicepay.co.kr/webapi/pay_process.jsp', 'NextAppURL', both)).message).to.equal('NextAppURL must use https');
    expect(refusal(() => trustedGatewayUrl('https://a:b@dc1-api.nicepay.co.kr/webapi/pay_process.jsp', 'NextAppURL', both)).message).to.equal('NextAppURL must not carry credentials');
    expect(refusal(() => trustedGatewayUrl('https://dc3-api.nicepay.co.kr/webapi/pay_process.jsp', 'NextAppURL', both)).message).to.include('not in trustedHosts');
  });
});

describe('checkoutReturn refuses a genuine return whose gateway URL is not the exact endpoint', () => {
  it('a trusted host with /no/such/path/pay_process.jsp, or with a query: no approval and no net cancel', async () => {
    const shop = await startShop();
    try {
      const root = shop.sandbox.url;
      const forged = [
        { NextAppURL: `${root}/no/such/path/pay_process.jsp` },
        { NextAppURL: `${root}/webapi/pay_process.jsp?x=1` },
        { NetCancelURL: `${root}/no/such/path/cancel_process.jsp` },
        { NetCancelURL: `${root}/webapi/cancel_process.jsp?x=1` },
      ];
      for (const [i, swap] of forged.entries()) {
        shop.orders.set(`exact-url-${i}`, 1004);
        const auth = await shop.sandbox.authenticate({ moid: `exact-url-${i}`, amount: 1004, method: 'CARD' });
        const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType)
          .send(encodeForm({ ...auth.fields, ...swap }, 'euc-kr').toString('latin1'));
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
        const entry = shop.sandbox.ledger.get(auth.fields.TxTid!)!;
        expect(entry.approvalCalls).to.equal(0);
        expect(entry.status).to.equal('authenticated');
        expect(entry.cancelledAt).to.equal(undefined);
      }
      expect(shop.approved).to.have.length(0);
    } finally {
      await shop.close();
    }
  });

  it('a paid buyer replaying their own return with a bad NextAppURL cannot get the payment net-cancelled', async () => {
    const shop = await startShop();
    // A second instance with its own store: the first instance's stored result is not there
    // (another process, or the result expired), so only the URL check stands in the way.
    const other = await startShop({ sandbox: shop.sandbox });
    try {
      shop.orders.set('paid-replay', 1004);
      other.orders.set('paid-replay', 1004);
      const auth = await shop.sandbox.authenticate({ moid: 'paid-replay', amount: 1004, method: 'CARD' });
      const paid = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(paid.status).to.equal(200);
      const replay = encodeForm({ ...auth.fields, NextAppURL: `${shop.sandbox.url}/no/such/path/pay_process.jsp` }, 'euc-kr');
      const res = await request(other.app).post('/pay/return').set('content-type', auth.contentType).send(replay.toString('latin1'));
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
      const entry = shop.sandbox.ledger.get(auth.fields.TxTid!)!;
      expect(entry.status).to.equal('approved');
      expect(entry.approvalCalls).to.equal(1);
      expect(entry.cancelledAt).to.equal(undefined);
    } finally {
      await other.close();
      await shop.close();
    }
  });
});
