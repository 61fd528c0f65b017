import { expect } from 'chai';
import request from 'supertest';
import type { FaultKind } from '../src/sandbox/index.js';
import { MERCHANT_KEY, startShop, type TestShop } from './helpers/shop.js';

let seq = 0;

async function payWithFault(shop: TestShop, kind: FaultKind, extra: { delayMs?: number; commit?: boolean } = {}) {
  const moid = `fault-${kind}-${++seq}`;
  shop.orders.set(moid, 2_000);
  const auth = await shop.sandbox.authenticate({ moid, amount: 2_000, method: 'CARD' });
  shop.sandbox.faults.inject({ target: 'approve', kind, ...extra });
  const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
  return { res, tid: auth.fields.TxTid!, moid, auth };
}

describe('checkoutReturn when the approval answer cannot be trusted', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop({ nicepay: { timeouts: { connectMs: 500, responseMs: 400 } } });
  });
  afterEach(() => shop.sandbox.faults.clear());
  after(async () => {
    await shop.close();
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY);
  });

  const cases: Array<{ kind: FaultKind; code: string; extra?: { delayMs?: number; commit?: boolean } }> = [
    { kind: 'delay', code: 'NICEPAY_OUTCOME_UNKNOWN', extra: { delayMs: 1_500 } },
    { kind: 'status-500', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'html', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'drop', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'truncate', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'bad-signature', code: 'NICEPAY_SIGNATURE_MISMATCH' },
    { kind: 'alter-amount', code: 'NICEPAY_AMOUNT_MISMATCH' },
  ];
  for (const c of cases) {
    it(`${c.kind}: net-cancels, reports ${c.code}, and the gateway keeps nothing`, async () => {
      const { res, tid } = await payWithFault(shop, c.kind, c.extra);
      expect(res.status).to.equal(502);
      expect(res.body.code).to.equal(c.code);
      expect(res.body.netCancel).to.equal('succeeded');
      const err = shop.errors.at(-1) as { tid?: string; outcomeUnknown?: boolean; message: string };
      expect(err.tid).to.equal(tid);
      expect(err.outcomeUnknown).to.equal(false);
      expect(err.message).to.match(/net cancel succeeded/);
      expect(shop.sandbox.ledger.get(tid)?.status).to.equal('net-cancelled');
      expect(shop.approved.some((a) => a.tid === tid)).to.equal(false);
    });
  }

  it('says so when the net cancel itself fails: outcome unknown, TID to reconcile', async () => {
    shop.sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    const { res, tid } = await payWithFault(shop, 'status-500');
    expect(res.status).to.equal(502);
    expect(res.body.netCancel).to.equal('failed');
    const err = shop.errors.at(-1) as { outcomeUnknown?: boolean; message: string };
    expect(err.outcomeUnknown).to.equal(true);
    expect(err.message).to.include(tid);
    expect(err.message).to.include('the status inquiry reports the TID as approved');
    expect(shop.sandbox.ledger.get(tid)?.status).to.equal('approved');
  });

  it('a duplicate of a failed approval gets the same error, not a second approval', async () => {
    const { res, tid, auth } = await payWithFault(shop, 'html');
    expect(res.body.code).to.equal('NICEPAY_OUTCOME_UNKNOWN');
    const again = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    expect(again.status).to.equal(502);
    expect(again.body.code).to.equal('NICEPAY_OUTCOME_UNKNOWN');
    expect(again.body.netCancel).to.equal('succeeded');
    expect(shop.sandbox.ledger.get(tid)?.approvalCalls).to.equal(1);
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
      const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(body.toString('latin1'));
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
      const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(body.toString('latin1'));
      expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
    }
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});
