/**
 * A misspelt option name that JavaScript (or an options object built elsewhere) passes to a
 * money call is refused before anything is sent: silently dropped, it charged a card without
 * recording it, refunded twice, or paid a sub-merchant twice. Over loopback against the
 * sandbox, on its frozen virtual clock (Monday 2026-11-23 09:00 KST, before the payout cut-off).
 */
import { expect } from 'chai';
import type { CancelInput, CashReceiptInput, KeyinInput, PayoutRequestInput } from '../src/index.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_MID, type DataHostRig, seller, startDataHost } from './helpers/data-host.js';
import { countGatewayCalls, expectUnknownInput, expectUnknownOption, refusal } from './helpers/unknown-key.js';

const CARD = { number: '4111111111111111', expiry: '2912' };

describe('a misspelt option of a money call is refused, nothing sent', () => {
  let rig: DataHostRig;
  let calls: ReturnType<typeof countGatewayCalls>;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { settle: false });
  });
  afterEach(async () => {
    calls?.stop();
    await rig.close();
  });
  /** Starts counting gateway calls: whatever the test did before is not counted. */
  const watch = (): void => {
    calls = countGatewayCalls();
  };

  it('checkoutReturn({ onApprove }) fails at creation: no route would charge a card whose hook never runs', () => {
    const hook = () => undefined;
    expectUnknownOption(() => rig.nicepay.checkoutReturn({ expectedAmount: () => 1004, onApprove: hook } as never), {
      field: 'onApprove',
      caller: 'checkoutReturn()',
      hint: 'onApproved',
    });
    // The corrected spelling is a route.
    expect(rig.nicepay.checkoutReturn({ expectedAmount: () => 1004, onApproved: hook })).to.be.a('function');
  });

  it('cancel({ idempotencykey }) is refused: a second partial refund is not answered as a repeat of the first', async () => {
    const paid = await rig.nicepay.keyin({ moid: 'order-7', amount: 3000, goodsName: '주문', card: CARD });
    if (paid.status !== 'approved') throw new Error(`expected an approval, got ${paid.status}`);
    const refund = { tid: paid.tid, moid: 'order-7', amount: 1000, reason: '부분 환불', partial: true };
    const first = await rig.nicepay.cancel({ ...refund, idempotencyKey: 'refund-1' });
    expect(first).to.include({ status: 'cancelled', duplicate: false });
    watch();
    const typo = { ...refund, idempotencykey: 'refund-2' } as unknown as CancelInput;
    expectUnknownInput(await refusal(() => rig.nicepay.cancel(typo)), {
      field: 'idempotencykey',
      caller: 'cancel()',
      hint: 'idempotencyKey',
    });
    expect(calls.count(), 'gateway calls').to.equal(0);
    expect(rig.sandbox.ledger.get(paid.tid)!.cancels ?? []).to.have.length(1);
    // The refusal lost nothing: the second refund, spelt right, is a refund of its own.
    const second = await rig.nicepay.cancel({ ...refund, idempotencyKey: 'refund-2' });
    expect(second).to.include({ status: 'cancelled', duplicate: false });
    expect(rig.sandbox.ledger.get(paid.tid)!.cancels ?? []).to.have.length(2);
  });

  it('payout.request({ dupCheck: false, idempotencykey }) twice is refused twice: nothing is paid out, let alone twice', async () => {
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    watch();
    const typo = {
      subId: 's1',
      amount: 500,
      dupCheck: false,
      idempotencykey: 'invoice-9',
    } as unknown as PayoutRequestInput;
    for (let i = 0; i < 2; i++) {
      expectUnknownInput(await refusal(() => rig.nicepay.payout.request(typo)), {
        field: 'idempotencykey',
        caller: 'payout.request()',
        hint: 'idempotencyKey',
      });
    }
    expect(calls.count(), 'gateway calls').to.equal(0);
    expect(rig.sandbox.dataHost.payouts(DATA_MID)).to.deep.equal([]);
    expect(await rig.nicepay.unsettled(), 'ledger records').to.deep.equal([]);
  });

  it('keyin({ onApprove }) is refused: the card is not charged with a hook that would never run', async () => {
    watch();
    const typo = { moid: 'order-8', amount: 1000, goodsName: '주문', card: CARD, onApprove: () => undefined };
    expectUnknownInput(await refusal(() => rig.nicepay.keyin(typo as unknown as KeyinInput)), {
      field: 'onApprove',
      caller: 'keyin()',
      hint: 'onApproved',
    });
    expect(calls.count(), 'gateway calls').to.equal(0);
    expect(rig.sandbox.ledger.byMoid(DATA_MID, 'order-8')).to.deep.equal([]);
  });

  it('cashReceipt.issue({ vatt }) is refused: no receipt is issued with a VAT the shop did not mean', async () => {
    watch();
    const typo = {
      moid: 'cash-1',
      amount: 11000,
      goodsName: '무통장 주문',
      type: 'income-deduction',
      identity: '010-9876-5432',
      supply: 10000,
      vat: 1000,
      vatt: 1000,
    } as unknown as CashReceiptInput;
    expectUnknownInput(await refusal(() => rig.nicepay.cashReceipt.issue(typo)), {
      field: 'vatt',
      caller: 'cashReceipt.issue()',
      hint: 'vat',
    });
    expect(calls.count(), 'gateway calls').to.equal(0);
    expect(rig.sandbox.ledger.byMoid(DATA_MID, 'cash-1')).to.deep.equal([]);
  });
});
