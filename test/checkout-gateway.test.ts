/**
 * What the middleware does when the gateway's answer cannot be used or the gateway cannot be
 * reached: net cancel where money may have moved (settlement finishes what it could not),
 * nothing recorded when nothing was sent.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createSandbox, type FaultKind } from '../src/sandbox/index.js';
import { memoryStore } from '../src/store/memory-store.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';
import { ledgerRecord } from './helpers/ledger-store.js';
import { MERCHANT_KEY, MID, startShop, type TestShop } from './helpers/shop.js';

let seq = 0;

async function payWithFault(shop: TestShop, kind: FaultKind, extra: { delayMs?: number; commit?: boolean } = {}) {
  const moid = `fault-${kind}-${++seq}`;
  shop.orders.set(moid, 2_000);
  const auth = await shop.sandbox.authenticate({ moid, amount: 2_000, method: 'CARD' });
  shop.sandbox.faults.inject({ target: 'approve', kind, ...extra });
  const post = () =>
    request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
  // A delay is never waited for: the client's deadline is jumped to once the sandbox stalls.
  const res = kind === 'delay' ? await pastClientDeadline(shop.sandbox, post) : await post();
  return { res, tid: auth.fields.TxTid!, moid, auth };
}

describe('checkoutReturn when the approval answer cannot be trusted', () => {
  let shop: TestShop;
  const store = memoryStore();
  before(async () => {
    // Deadlines a loaded machine meets; the delay case jumps past them (pastClientDeadline).
    // No automatic settler: the test settles when it says so.
    shop = await startShop({ nicepay: { store, settle: false, timeouts: { connectMs: 5_000, responseMs: 5_000 } } });
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
      expect(shop.errors.at(-1)).to.include({ code: c.code, tid, settlement: 'reversed', outcomeUnknown: false });
      expect(await ledgerRecord(store, `approval:${MID}:${tid}`)).to.include({ state: 'reversed' });
      expect(shop.sandbox.ledger.get(tid)?.status).to.equal('net-cancelled');
      expect(shop.approved.some((a) => a.tid === tid)).to.equal(false);
    });
  }

  it('says so when the net cancel itself fails: outcome unknown, being settled; settlement reverses it and a repeat then says reversed', async () => {
    shop.sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    const { res, tid, auth } = await payWithFault(shop, 'status-500');
    expect(res.status).to.equal(502);
    expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'failed' });
    const err = shop.errors.at(-1) as { message: string };
    expect(err).to.include({ tid, settlement: 'pending', outcomeUnknown: true });
    expect(err.message).to.include(tid);
    expect(shop.sandbox.ledger.get(tid)?.status).to.equal('approved');
    const key = `approval:${MID}:${tid}`;
    expect(await ledgerRecord(store, key)).to.include({ state: 'reversing', reversalTried: true });
    // Settlement asks the gateway, finds it holds the payment, and cancels the whole amount.
    const report = await shop.nicepay.settle();
    expect(report.settled).to.deep.include({
      operation: 'approval',
      mid: MID,
      tid,
      moid: auth.fields.Moid,
      amount: 2_000,
      outcome: 'reversed',
    });
    expect(shop.sandbox.ledger.get(tid)?.status).to.equal('cancelled');
    expect(await ledgerRecord(store, key)).to.include({ state: 'reversed' });
    const again = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(again.status).to.equal(502);
    expect(shop.errors.at(-1)).to.include({
      code: 'NICEPAY_OUTCOME_UNKNOWN',
      settlement: 'reversed',
      outcomeUnknown: false,
    });
    expect(shop.sandbox.ledger.get(tid)?.approvalCalls).to.equal(1);
    expect(shop.approved.some((a) => a.tid === tid)).to.equal(false);
  });

  it('a duplicate of a failed approval gets the same error, not a second approval', async () => {
    const { res, tid, auth } = await payWithFault(shop, 'html');
    expect(res.body.code).to.equal('NICEPAY_OUTCOME_UNKNOWN');
    const again = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(again.status).to.equal(502);
    expect(again.body.code).to.equal('NICEPAY_OUTCOME_UNKNOWN');
    expect(again.body.netCancel).to.equal('succeeded');
    expect(shop.sandbox.ledger.get(tid)?.approvalCalls).to.equal(1);
  });
});

describe('checkoutReturn when the gateway cannot be reached', () => {
  /** A shop whose gateway went down after the buyer authenticated; `run` gets the return to post and a way back up. */
  async function withGatewayDown(
    run: (
      shop: TestShop,
      post: () => Promise<request.Response>,
      up: () => Promise<void>,
      tid: string,
      store: ReturnType<typeof memoryStore>,
    ) => Promise<void>,
  ): Promise<void> {
    const sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    const port = Number(new URL(url).port);
    const store = memoryStore();
    const shop = await startShop({ sandbox, nicepay: { store } });
    try {
      shop.orders.set('down', 1004);
      const auth = await sandbox.authenticate({ moid: 'down', amount: 1004, method: 'BANK' });
      await sandbox.close();
      const post = () =>
        request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      await run(shop, post, async () => void (await sandbox.listen(port)), auth.fields.TxTid!, store);
    } finally {
      await shop.close();
      await sandbox.close();
    }
  }

  it('reports 503 UNREACHABLE, records nothing, and a retry approves once the gateway is back', async () => {
    await withGatewayDown(async (shop, post, up, tid, store) => {
      const first = await post();
      expect(first.status).to.equal(503);
      expect(first.body.code).to.equal('NICEPAY_GATEWAY_UNREACHABLE');
      expect(shop.errors.at(-1)).to.include({ outcomeUnknown: false });
      expect(await store.get(`approval:${MID}:${tid}`)).to.equal(undefined);
      await up();
      const second = await post();
      expect(second.status).to.equal(200);
      expect(second.body).to.include({ status: 'approved', duplicate: false });
      expect(shop.sandbox.ledger.get(tid)?.approvalCalls).to.equal(1);
    });
  });

  it("an unreachable gateway's error says no net cancel was attempted (netCancel: 'not-attempted')", async () => {
    await withGatewayDown(async (shop, post) => {
      const res = await post();
      expect(res.body).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', netCancel: 'not-attempted' });
      expect(shop.errors.at(-1)).to.include({ netCancel: 'not-attempted' });
    });
  });
});
