/**
 * The checkout client of interface A without Express (src/approval/checkout-client.ts): the
 * charset a return is decoded by, the flow over loopback against the sandbox with an opaque
 * request value, and the record a TID's approval leaves in the idempotency store (the
 * gateway's answer bytes under a JSON header: a duplicate must read back exactly what the
 * first request parsed, in every CharSet and EdiType, through a store that holds JavaScript
 * strings (memory) or UTF-8 (Redis)).
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import request from 'supertest';
import { createCheckoutClient } from '../src/approval/checkout-client.js';
import { type CheckoutRecord, parseRecord, serializeRecord } from '../src/approval/checkout-record.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { createSandbox } from '../src/sandbox/index.js';
import { MERCHANT_KEY, MID, startShop } from './helpers/shop.js';
import { latin1Text } from '../src/wire/charset.js';
import { parseGatewayBody } from '../src/wire/response-body.js';

const order = { moid: '주문-1', tid: 'nicepay00m01012611230900001234', amount: 1004, tokenDigest: 'ab'.repeat(32) };

/** What a Redis round trip does to the text: UTF-8 out, UTF-8 back. */
const viaUtf8 = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

describe('checkout record', () => {
  it('a committed EUC-KR JSON answer reads back byte for byte, Korean and CP949-only syllables included', () => {
    const answer = iconv.encode('{"ResultCode":"3001","ResultMsg":"카드 결제 성공","BuyerName":"똠햏","Amt":"1004","X":"a\\nb"}', 'cp949');
    const raw = parseGatewayBody(answer, 'euc-kr', 'JSON');
    const record: CheckoutRecord = { kind: 'committed', method: 'CARD', raw, answer: latin1Text(answer), ...order };
    for (const text of [serializeRecord(record, 'euc-kr', 'JSON'), viaUtf8(serializeRecord(record, 'euc-kr', 'JSON'))]) {
      const back = parseRecord(text);
      expect(back).to.include({ kind: 'committed', ...order });
      expect(back.kind === 'committed' && back.method).to.equal('CARD');
      expect(back.kind !== 'failed' && Buffer.from(back.answer, 'latin1').equals(answer)).to.equal(true);
      expect({ ...(back.kind !== 'failed' ? back.raw : {}) }).to.deep.equal({ ...raw });
      expect(back.kind !== 'failed' && back.raw.BuyerName).to.equal('똠햏');
    }
  });

  it('a declined UTF-8 KV answer reads back with its own charset and format', () => {
    const answer = Buffer.from('ResultCode=3011&ResultMsg=한도초과&MallReserved=a&b', 'utf8');
    const raw = parseGatewayBody(answer, 'utf-8', 'KV');
    const back = parseRecord(serializeRecord({ kind: 'declined', raw, answer: latin1Text(answer), ...order }, 'utf-8', 'KV'));
    expect(back.kind).to.equal('declined');
    expect({ ...(back.kind === 'declined' ? back.raw : {}) }).to.deep.equal({ ResultCode: '3011', ResultMsg: '한도초과', MallReserved: 'a&b' });
  });

  it('the header line is the JSON of the order fields, whatever the Moid holds (quotes, newlines, Korean)', () => {
    const answer = Buffer.from('{"ResultCode":"3001"}');
    const raw = parseGatewayBody(answer, 'utf-8', 'JSON');
    for (const moid of ['주문"1"', 'a\nb\\c', '\u2028', 'plain']) {
      const record: CheckoutRecord = { kind: 'committed', method: 'VBANK', raw, answer: latin1Text(answer), ...order, moid };
      const text = serializeRecord(record, 'utf-8', 'JSON');
      const firstLine = text.slice(0, text.indexOf('\n'));
      expect(JSON.parse(firstLine)).to.deep.equal({ kind: 'committed', moid, tid: order.tid, amount: order.amount, tokenDigest: order.tokenDigest, charset: 'utf-8', ediType: 'JSON', method: 'VBANK' });
      expect(firstLine).to.equal(JSON.stringify({ kind: 'committed', moid, tid: order.tid, amount: order.amount, tokenDigest: order.tokenDigest, charset: 'utf-8', ediType: 'JSON', method: 'VBANK' }));
      expect(parseRecord(text)).to.include({ kind: 'committed', moid });
    }
  });

  it('the stored text is the header line and the answer bytes one latin1 character each (the format records already kept use)', () => {
    const cases = [
      { kind: 'committed', method: 'CARD', charset: 'euc-kr', ediType: 'JSON', bytes: iconv.encode('{"ResultCode":"3001","ResultMsg":"카드 결제 성공"}', 'cp949') },
      { kind: 'declined', charset: 'utf-8', ediType: 'KV', bytes: Buffer.from('ResultCode=3011&ResultMsg=한도초과', 'utf8') },
    ] as const;
    for (const c of cases) {
      const method = 'method' in c ? { method: c.method } : {};
      const header = { kind: c.kind, moid: order.moid, tid: order.tid, amount: order.amount, tokenDigest: order.tokenDigest, charset: c.charset, ediType: c.ediType, ...method };
      const stored = JSON.stringify(header) + '\n' + c.bytes.toString('latin1');
      const raw = parseGatewayBody(c.bytes, c.charset, c.ediType);
      const record = { kind: c.kind, ...method, raw, answer: latin1Text(c.bytes), ...order } as CheckoutRecord;
      expect(serializeRecord(record, c.charset, c.ediType)).to.equal(stored);
      const back = parseRecord(viaUtf8(stored));
      expect(back).to.include({ kind: c.kind, ...order });
      expect({ ...(back.kind !== 'failed' ? back.raw : {}) }).to.deep.equal({ ...raw });
    }
  });

  it('a failed outcome (no answer) reads back with its code, message and net-cancel result', () => {
    const failed: CheckoutRecord = { kind: 'failed', code: 'NICEPAY_OUTCOME_UNKNOWN', message: 'net cancel FAILED: reconcile', netCancel: 'failed', resultCode: '3001', ...order };
    expect(parseRecord(viaUtf8(serializeRecord(failed, 'euc-kr', 'JSON')))).to.deep.equal(failed);
  });

  it('refuses a record it did not write instead of guessing', () => {
    expect(() => parseRecord('not json')).to.throw(SyntaxError);
    expect(() => parseRecord(JSON.stringify({ kind: 'committed', ...order }))).to.throw(/incomplete/);
    expect(() => parseRecord(JSON.stringify({ kind: 'committed', ...order, charset: 'euc-kr', ediType: 'JSON' }) + '\n{}')).to.throw(/incomplete/);
  });
});

describe('checkout client: the charset of the return (issue 18 item 9)', () => {
  const client = (charset: 'euc-kr' | 'utf-8') =>
    createCheckoutClient(createContext(resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', charset })), { expectedAmount: () => 1 });
  const form = 'application/x-www-form-urlencoded';

  it('decodes a return that names no charset (as browsers post it) by the window charset', () => {
    expect(client('euc-kr').bodyCharset(form, undefined)).to.equal('euc-kr');
    expect(client('utf-8').bodyCharset(form, undefined)).to.equal('utf-8');
    expect(client('utf-8').bodyCharset(`${form}; charset="UTF-8"`, 'identity')).to.equal('utf-8');
    expect(client('euc-kr').bodyCharset(`${form};charset=cp949`, undefined)).to.equal('euc-kr');
  });

  it('refuses a declared charset that contradicts the window, an unknown one, another type or an encoding (415)', () => {
    const cases: Array<[ReturnType<typeof client>, string | undefined, string | undefined, string]> = [
      [client('euc-kr'), `${form}; charset=utf-8`, undefined, 'NICEPAY_CHARSET_UNSUPPORTED'],
      [client('utf-8'), `${form}; charset=euc-kr`, undefined, 'NICEPAY_CHARSET_UNSUPPORTED'],
      [client('euc-kr'), `${form}; charset=latin1`, undefined, 'NICEPAY_CHARSET_UNSUPPORTED'],
      [client('euc-kr'), 'application/json', undefined, 'NICEPAY_CONTENT_TYPE_UNSUPPORTED'],
      [client('euc-kr'), undefined, undefined, 'NICEPAY_CONTENT_TYPE_UNSUPPORTED'],
      [client('euc-kr'), form, 'gzip', 'NICEPAY_CONTENT_TYPE_UNSUPPORTED'],
    ];
    for (const [c, type, encoding, code] of cases) {
      let err: unknown;
      try {
        c.bodyCharset(type, encoding);
      } catch (e) {
        err = e;
      }
      expect(err, String(type)).to.include({ code, status: 415 });
    }
  });

  it('over Express: a UTF-8 window posts its return without a charset, and the route reads its Korean', async () => {
    const shop = await startShop({ nicepay: { charset: 'utf-8' } });
    try {
      shop.orders.set('utf8-nocharset', 1_004);
      const auth = await shop.sandbox.authenticate({ moid: 'utf8-nocharset', amount: 1_004, method: 'CARD', buyerName: '김똠햏', charset: 'utf-8' });
      const res = await request(shop.app).post('/pay/return').set('content-type', 'application/x-www-form-urlencoded').send(auth.body.toString('latin1'));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.payment.buyerName).to.equal('김똠햏');
    } finally {
      await shop.close();
    }
  });
});

describe('checkout client without Express', () => {
  it('completes a return from its bytes and charset; the request value only reaches the hooks', async () => {
    const sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    const ctx = createContext(resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: url }));
    const req = { shop: 'opaque' };
    const seen: unknown[] = [];
    try {
      const client = createCheckoutClient<typeof req>(ctx, {
        expectedAmount: (moid, r) => (seen.push(r), moid === 'no-express' ? 2_000 : undefined),
        onApproved: (result, r) => void seen.push(r, result.tid),
      });
      const auth = await sandbox.authenticate({ moid: 'no-express', amount: 2_000, method: 'BANK' });
      const charset = client.bodyCharset(auth.contentType, undefined);
      const result = await client.complete(auth.body, charset, req);
      expect(result).to.include({ status: 'approved', moid: 'no-express', tid: auth.fields.TxTid, duplicate: false });
      expect(seen).to.deep.equal([req, req, auth.fields.TxTid]);
      const again = await client.complete(auth.body, charset, req);
      expect(again).to.include({ status: 'approved', duplicate: true });
      const unknown = await sandbox.authenticate({ moid: 'not-an-order', amount: 2_000, method: 'CARD' });
      const err = await client.complete(unknown.body, charset, req).catch((e: unknown) => e);
      expect(err).to.include({ code: 'NICEPAY_UNKNOWN_ORDER', status: 404 });
    } finally {
      await closeContext(ctx);
      await sandbox.close();
    }
  });
});
