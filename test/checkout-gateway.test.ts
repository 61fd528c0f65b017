/**
 * What the middleware does when the gateway's answer cannot be used or the gateway cannot be
 * reached: net cancel where money may have moved, nothing cached when nothing was sent.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createSandbox, type FaultKind } from '../src/sandbox/index.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';
import { MERCHANT_KEY, startShop, type TestShop } from './helpers/shop.js';

let seq = 0;

async function payWithFault(shop: TestShop, kind: FaultKind, extra: { delayMs?: number; commit?: boolean } = {}) {
  const moid = `fault-${kind}-${++seq}`;
  shop.orders.set(moid, 2_000);
  const auth = await shop.sandbox.authenticate({ moid, amount: 2_000, method: 'CARD' });
  shop.sandbox.faults.inject({ target: 'approve', kind, ...extra });
  const post = () => request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
  // A delay is never waited for: the client's deadline is jumped to once the sandbox stalls.
  const res = kind === 'delay' ? await pastClientDeadline(shop.sandbox, post) : await post();
  return { res, tid: auth.fields.TxTid!, moid, auth };
}

describe('checkoutReturn when the approval answer cannot be trusted', () => {
  let shop: TestShop;
  before(async () => {
    // Deadlines a loaded machine meets; the delay case jumps past them (pastClientDeadline).
    shop = await startShop({ nicepay: { timeouts: { connectMs: 5_000, responseMs: 5_000 } } });
  });
  afterEach(() => shop.sandbox.faults.clear());
  after(async () => {
    await shop.close();
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY);
  });

  const cases: Array<{ kind: FaultKind; code: string; extra?: { delayMs?: number; commit?: boolean } }> = [
    { kind: 'delay', code: 'NICEPAY_OUTCOME_UNKNOWN', extra: { delayMs: 600_000 } },
    { kind: 'status-500', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'html', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'drop', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'truncate', code: 'NICEPAY_OUTCOME_UNKNOWN' },
    { kind: 'bad-signature', code: 'NICEPAY_ANSWER_UNVERIFIED' },
    { kind: 'alter-amount', code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH' },
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

describe('checkoutReturn when the gateway cannot be reached', () => {
  it('reports 503 UNREACHABLE, caches nothing, and a retry approves once the gateway is back', async () => {
    const sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    const port = Number(new URL(url).port);
    const shop = await startShop({ sandbox });
    try {
      shop.orders.set('down', 1004);
      const auth = await sandbox.authenticate({ moid: 'down', amount: 1004, method: 'BANK' });
      await sandbox.close();
      const first = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(first.status).to.equal(503);
      expect(first.body).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', netCancel: 'not-attempted' });
      await sandbox.listen(port);
      const second = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(second.status).to.equal(200);
      expect(second.body).to.include({ status: 'approved', duplicate: false });
      expect(sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
    } finally {
      await shop.close();
      await sandbox.close();
    }
  });
});
