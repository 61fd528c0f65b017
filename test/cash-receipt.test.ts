import { expect } from 'chai';
import { createNicepay, type Nicepay } from '../src/nicepay.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { fromKst } from '../src/wire/kst.js';
import { captureLogger, type Captured } from './helpers/capture.js';

/* nicepay.cashReceipt against the sandbox over loopback, its clock frozen on a KST morning. */
const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const START = fromKst(2026, 11, 23, 10, 0, 0);
const PHONE = '010-9876-5432';

describe('nicepay.cashReceipt over the sandbox', function () {
  this.timeout(20_000);
  let sandbox: Sandbox;
  let nicepay: Nicepay;
  let log: Captured;

  beforeEach(async () => {
    sandbox = createSandbox({ clock: () => START });
    sandbox.clock.freeze();
    sandbox.clock.set(START);
    await sandbox.listen(0);
    log = captureLogger();
    nicepay = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dataUrl: sandbox.url,
      clock: () => sandbox.clock.now(),
      timeouts: { connectMs: 1_000, responseMs: 1_500 },
      logger: log.logger,
    });
  });
  afterEach(async () => {
    await nicepay.close();
    await sandbox.close();
  });

  const order = {
    moid: 'bank-100',
    amount: 11000,
    goodsName: '무통장 주문',
    type: 'income-deduction' as const,
    identity: PHONE,
    supply: 10000,
    vat: 1000,
  };
  const receiptCalls = (): number => sandbox.ledger.entries().filter((e) => e.extra.service === 'cash-receipt').length;
  const recon = () =>
    nicepay.recon.cashReceipts({ usrId: `${MID}admin`, dt: '20261123', orgSvcCd: '04', idCl: '2', searchID: MID });

  it('issues a receipt (7001) with a TID of MID + 04 + 01 + KST time, listed by reconciliation (orgSvcCd 04) and cancelled with the ordinary cancel', async () => {
    const r = await nicepay.cashReceipt.issue(order);
    expect(r.status).to.equal('issued');
    if (r.status !== 'issued') return;
    expect(r.tid).to.match(/^nictest04m0401261123100000[0-9A-Za-z]{4}$/);
    expect(r.authCode).to.match(/^\d+$/);
    expect(r.authDate?.toISOString()).to.equal(START.toISOString());
    const listed = await recon();
    expect(listed.items).to.have.length(1);
    expect(listed.items[0]).to.include({
      tid: r.tid,
      orgSvcCd: '04',
      goodsAmt: 11000,
      state: 'approval',
      purpose: 'income-deduction',
      moid: 'bank-100',
    });
    expect(listed.items[0]!.identity).to.not.include('98765432');

    const c = await nicepay.cancel({ tid: r.tid, moid: 'bank-100', amount: 11000, reason: '주문 취소' });
    expect(c.status).to.equal('cancelled');
    const after = await recon();
    expect(after.items[0]).to.include({ tid: r.tid, state: 'cancel', ccDt: '20261123' });
  });

  it('refuses amounts that do not add up, a wrong identity and oversized text before sending', async () => {
    for (const [bad, field] of [
      [{ vat: 900 }, 'amount'],
      [{ type: 'expense-proof' as const }, 'identity'],
      [{ goodsName: '가'.repeat(21) }, 'goodsName'],
      [{ supply: 10000.5 }, 'supply'],
    ] as const) {
      const err = await nicepay.cashReceipt.issue({ ...order, ...bad }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, field).to.include({ code: 'NICEPAY_FIELD_INVALID', field });
    }
    expect(receiptCalls()).to.equal(0);
  });

  it('issues once per Moid: concurrent repeats share one call, a different amount or identity is refused', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => nicepay.cashReceipt.issue(order)));
    expect(receiptCalls()).to.equal(1);
    expect(new Set(results.map((r) => r.tid)).size).to.equal(1);
    const err = await nicepay.cashReceipt.issue({ ...order, identity: '01011112222' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.have.property('code', 'NICEPAY_DUPLICATE_MISMATCH');
    expect(receiptCalls()).to.equal(1);
  });

  it('a lost answer is an unknown outcome reversed at once (the receipt the gateway issued is cancelled); every repeat is told so and nothing is issued twice', async () => {
    sandbox.faults.inject({ target: 'cash-receipt', kind: 'drop', commit: true });
    const err = await nicepay.cashReceipt.issue(order).then(
      () => undefined,
      (e: unknown) => e,
    );
    log.record(err);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'reversed', outcomeUnknown: false });
    const again = await nicepay.cashReceipt.issue(order).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(again).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'reversed' });
    expect(receiptCalls()).to.equal(1);
    const listed = (await recon()).items;
    expect(listed, 'the receipt the lost answer issued, and its cancel').to.have.length(1);
    expect(listed[0]).to.include({ moid: 'bank-100', state: 'cancel' });
  });

  it('a refusal is a result; the identity never reaches a log line', async () => {
    sandbox.faults.inject({ target: 'cash-receipt', kind: 'decline', resultCode: '7099', resultMsg: '발급 거절' });
    const r = await nicepay.cashReceipt.issue(order);
    expect(r).to.include({ status: 'refused', code: '7099' });
    await nicepay.cashReceipt.issue({ ...order, moid: 'bank-101' });
    expect(log.lines.length).to.be.greaterThan(0);
    expect(log.text()).to.not.match(/9876.?5432/);
  });
});
