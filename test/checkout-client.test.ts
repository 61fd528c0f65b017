/**
 * The checkout client of interface A without Express (src/approval/checkout-client.ts): the
 * charset a return is decoded by, the flow over loopback against the sandbox with an opaque
 * request value, and the record a TID's approval leaves in the idempotency store (the
 * gateway's answer bytes under a JSON header: a duplicate must read back exactly what the
 * first request parsed, in every CharSet and EdiType, through a store that holds JavaScript
 * strings (memory) or UTF-8 (Redis)).
 */
import { expect } from 'chai';
import request from 'supertest';
import { createCheckoutClient } from '../src/approval/checkout-client.js';
import { approvalKind } from '../src/approval/operation.js';
import { type LedgerRecord, parseRecord, serializeRecord } from '../src/pipeline/ledger-record.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { createSandbox } from '../src/sandbox/index.js';
import { MERCHANT_KEY, MID, startShop } from './helpers/shop.js';

describe('the ledger record (one format for every operation)', () => {
  const record: LedgerRecord = {
    v: 1,
    op: 'approval',
    state: 'recorded',
    mid: MID,
    tid: 'nicepay00m01012611230900001234',
    moid: '주문"1"\n똠',
    amount: 1004,
    binding: 'ab'.repeat(32),
    hook: 'resolved',
    data: { method: 'CARD' },
    fields: JSON.parse(
      '{"ResultCode":"3001","ResultMsg":"카드 결제 성공","BuyerName":"똠햏","X":"a\\nb","__proto__":"own"}',
    ) as Record<string, string>,
    at: 1,
    attempts: 0,
  };

  it('reads back exactly through a store that keeps JavaScript strings (memory) or UTF-8 (SQLite, Redis)', () => {
    for (const text of [serializeRecord(record), Buffer.from(serializeRecord(record), 'utf8').toString('utf8')]) {
      const back = parseRecord(text);
      expect(back).to.deep.equal(JSON.parse(serializeRecord(record)));
      expect(back.fields?.BuyerName).to.equal('똠햏');
      expect(Object.hasOwn(back.fields!, '__proto__')).to.equal(true);
    }
  });

  it('refuses text it did not write instead of guessing', () => {
    expect(() => parseRecord('not json')).to.throw(SyntaxError);
    expect(() => parseRecord(JSON.stringify({ kind: 'committed' }))).to.throw(/not a ledger record/);
    expect(() => parseRecord(JSON.stringify({ ...record, v: 2 }))).to.throw(/not a ledger record/);
  });
});

describe('checkout client: the charset of the return', () => {
  const client = (charset: 'euc-kr' | 'utf-8') => {
    const ctx = createContext(
      resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', charset }),
    );
    return createCheckoutClient(ctx, approvalKind(ctx), { expectedAmount: () => 1 });
  };
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
      const auth = await shop.sandbox.authenticate({
        moid: 'utf8-nocharset',
        amount: 1_004,
        method: 'CARD',
        buyerName: '김똠햏',
        charset: 'utf-8',
      });
      const res = await request(shop.app)
        .post('/pay/return')
        .set('content-type', 'application/x-www-form-urlencoded')
        .send(auth.body.toString('latin1'));
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
      const client = createCheckoutClient<typeof req>(ctx, approvalKind(ctx), {
        expectedAmount: (moid, r) => {
          seen.push(r);
          return moid === 'no-express' ? 2_000 : undefined;
        },
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
