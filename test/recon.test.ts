import { expect } from 'chai';
import { fromKst } from '../src/wire/kst.js';
import type { LedgerEntry } from '../src/sandbox/index.js';
import { DATA_MID, DATA_USR_ID, startDataHost, type DataHostRig } from './helpers/data-host.js';

/* Cash receipts from sandbox approvals, listed by /recon/api through createNicepay. */

function entry(
  tid: string,
  method: LedgerEntry['method'],
  amount: number,
  cashReceipt?: LedgerEntry['cashReceipt'],
): LedgerEntry {
  return {
    tid,
    mid: DATA_MID,
    moid: `moid-${tid}`,
    amount,
    method,
    status: 'authenticated',
    source: 'window',
    goodsName: '책',
    buyerName: '홍길동',
    createdAt: new Date(0),
    approvalCalls: 1,
    extra: {},
    ...(cashReceipt ? { cashReceipt } : {}),
  };
}

describe('recon: cash receipts', () => {
  let rig: DataHostRig;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 23, 30)); // 14:30 UTC: the KST date is what counts
  });
  afterEach(() => rig.close());

  const query = (over: Record<string, string> = {}) =>
    rig.nicepay.recon.cashReceipts({
      usrId: DATA_USR_ID,
      dt: '20261123',
      orgSvcCd: '02',
      idCl: '2',
      searchID: DATA_MID,
      ...over,
    } as never);

  it('lists BANK / VBANK approvals with a cash receipt under their own orgSvcCd and the receipt numbers the approval answered, typed, masked, and cancels them on net cancel', async () => {
    const { ledger, clock } = rig.sandbox;
    ledger.add(entry('T-BANK', 'BANK', 11_000, { type: 'income-deduction', identity: '01012345678' }));
    ledger.add(entry('T-VBANK', 'VBANK', 22_000, { type: 'expense-proof', identity: '1234567890' }));
    ledger.add(entry('T-CARD', 'CARD', 33_000));
    ledger.add(entry('T-NORCPT', 'BANK', 44_000));
    for (const tid of ['T-BANK', 'T-VBANK', 'T-CARD', 'T-NORCPT']) ledger.update(tid, 'approved', clock.now());

    const bank = await query();
    expect(bank).to.include({ reqDt: '20261123', authCl: '2', count: 1 });
    const r = bank.items[0]!;
    expect(r).to.include({
      appDt: '20261123',
      appTm: '233000',
      orgTid: 'T-BANK',
      orgSvcCd: '02',
      goodsAmt: 11_000,
      goodsNm: '책',
      moid: 'moid-T-BANK',
      state: 'approval',
      stateCd: '0',
      status: 'success',
      statusCd: '0',
      purpose: 'income-deduction',
      reqFlg: '1',
      ordNm: '홍길동',
      mid: DATA_MID,
    });
    expect(r.identity).to.include('*');
    expect(r.identity).to.not.equal('01012345678');
    // The receipt the approval answered (RcptTID, RcptAuthCode), under the same numbers.
    const bankReceipt = ledger.get('T-BANK')!.extra;
    expect(r.tid).to.have.length(30);
    expect([r.tid, r.appNo]).to.deep.equal([bankReceipt.rcptTid, bankReceipt.rcptAuthCode]);

    const vbank = await query({ orgSvcCd: '03' });
    expect(vbank.items.map((i) => [i.orgTid, i.purpose])).to.deep.equal([['T-VBANK', 'expense-proof']]);
    // 04 is a cash receipt on its own (billing-facts §2): none of these.
    expect((await query({ orgSvcCd: '04' })).count).to.equal(0);
    expect((await query({ dt: '20261122' })).count).to.equal(0);
    expect((await query({ searchID: 'nicepay00m' })).count).to.equal(0);

    rig.at(2026, 11, 24, 9, 15);
    ledger.update('T-BANK', 'net-cancelled', rig.sandbox.clock.now());
    const next = await query({ dt: '20261124' });
    expect(next.items[0]).to.include({
      orgTid: 'T-BANK',
      state: 'cancel',
      stateCd: '1',
      ccDt: '20261124',
      ccTm: '091500',
    });
    expect(next.items[0]!.ccNo).to.match(/^\d+$/);
  });

  it('an unknown usrId is refused with 1000', async () => {
    try {
      await query({ usrId: 'stranger' });
      expect.fail('expected a rejection');
    } catch (err) {
      expect(err).to.include({ resCode: '1000', reason: 'merchant-auth-failed', sid: '0301002' });
    }
  });
});
