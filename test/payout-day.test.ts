import { expect } from 'chai';
import { fromKst } from '../src/wire/kst.js';
import { NicepayDataApiError, NicepayRequestError, NicepayScheduleError } from '../src/errors/index.js';
import { DATA_MID, rejection, startDataHost, type DataHostRig } from './helpers/data-host.js';

/*
 * A whole payout day on the sandbox's virtual clock, through createNicepay over loopback.
 * Monday 2026-11-23 KST. Every instant is built with fromKst, so this file passes under any
 * TZ; payout-tz.test.ts runs it under UTC, Asia/Seoul and America/Los_Angeles.
 */

const DAY = '20261123';
const sub = (subId: string, accntNo: string, accntNm = '홍길동') => ({
  subId, subNm: `상점 ${subId}`, subCoNo: `12345678${subId.length}0`, bankCd: '004', accntNo, accntNm, memo: '테스트',
});

describe('payout: a whole payout day on the virtual clock', () => {
  let rig: DataHostRig;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 22, 20, 0)); // Sunday evening
  });
  afterEach(() => rig.close());

  it('register, request, cancel one, execute at 11:00, results from 16:00', async () => {
    const { nicepay, sandbox } = rig;
    sandbox.dataHost.addAccountHolder('004', '111-222', '홍길동');
    sandbox.dataHost.addAccountHolder('004', '333-444', '김철수');
    sandbox.dataHost.addAccountHolder('004', '555-666', '이영희');
    sandbox.dataHost.deposit(DATA_MID, 50_000);

    const reg = await nicepay.payout.registerSubMerchant(sub('seller-a', '111-222'));
    expect(reg).to.include({ mid: DATA_MID, subId: 'seller-a', reqType: '0' });
    await nicepay.payout.registerSubMerchant(sub('seller-b', '333-444', '김철수'));
    await nicepay.payout.registerSubMerchant(sub('seller-c', '555-666', '이영희'));
    await nicepay.payout.registerSubMerchant(sub('seller-d', '777-888', '박민수'));

    // Balance after the deposit: lastCl 01 (the sandbox spells it like the official example).
    const bal = await nicepay.payout.balance();
    expect(bal.remainAmt).to.equal(50_000);
    expect(bal.last).to.deep.equal({ kind: 'deposit', lastcl: '01', amount: 50_000, date: '20261122' });

    rig.at(2026, 11, 23, 9, 0); // Monday 09:00
    const a = await nicepay.payout.request({ subId: 'seller-a', amount: 30_000 });
    expect(a).to.include({ subId: 'seller-a', settlmntDt: DAY, amount: 30_000, dupCheck: true });
    expect(a.seq).to.match(/^\d{20}$/);
    const b = await nicepay.payout.request({ subId: 'seller-b', amount: 40_000, settlmntDt: DAY, accntDesc: '11월 정산' });
    const c = await nicepay.payout.request({ subId: 'seller-c', amount: 5_000, dupCheck: false });
    expect(c.dupCheck).to.equal(false);
    const d = await nicepay.payout.request({ subId: 'seller-d', amount: 1_000 });
    sandbox.dataHost.closeAccount('004', '777-888'); // closed before execution

    // The same seller again on the same day with the duplicate check is the recorded payout:
    // answered from the ledger without sending, and refused when it names another amount.
    const dup = await rejection(nicepay.payout.request({ subId: 'seller-a', amount: 1 }));
    expect(dup).to.be.instanceOf(NicepayRequestError);
    expect(dup).to.include({ code: 'NICEPAY_DUPLICATE_MISMATCH', field: 'amount' });
    expect(a.duplicate).to.equal(false);
    expect(await nicepay.payout.request({ subId: 'seller-a', amount: 30_000 })).to.include({ seq: a.seq, amount: 30_000, duplicate: true });

    rig.at(2026, 11, 23, 10, 29, 59);
    const cancelled = await nicepay.payout.cancel({ subId: 'seller-c', settlmntDt: DAY, seq: c.seq });
    expect(cancelled).to.include({ seq: c.seq, amount: 5_000, subId: 'seller-c', settlmntDt: DAY });

    // Before 11:00 nothing has been paid.
    rig.at(2026, 11, 23, 10, 59, 59);
    expect((await nicepay.payout.balance()).remainAmt).to.equal(50_000);

    // 11:00: seq order — a (30,000) succeeds, b (40,000) exceeds the 20,000 left, d's account is closed.
    rig.at(2026, 11, 23, 11, 0);
    const after = await nicepay.payout.balance();
    expect(after.remainAmt).to.equal(20_000);
    expect(after.last).to.deep.equal({ kind: 'payout', lastcl: '10', amount: 30_000, date: DAY });

    // A completed payout cannot be reverted (and 10:30 has passed anyway): 1107 from the gateway.
    const late = await rejection(nicepay.payout.cancel({ subId: 'seller-a', settlmntDt: DAY, seq: a.seq }));
    expect(late).to.be.instanceOf(NicepayScheduleError);
    expect(late.rule).to.equal('cancel-cutoff');

    rig.at(2026, 11, 23, 15, 59, 59);
    const early = await rejection(nicepay.payout.results({ settlmntDt: DAY }));
    expect(early).to.be.instanceOf(NicepayScheduleError);
    expect(early.rule).to.equal('results-not-ready');

    rig.at(2026, 11, 23, 16, 0);
    const res = await nicepay.payout.results({ settlmntDt: DAY });
    expect(res).to.include({ totCnt: 4, succCnt: 1, failCnt: 2, remainAmt: 20_000 });
    const bySeq = new Map(res.items.map((i) => [i.seq, i]));
    expect(bySeq.get(a.seq)).to.include({ status: 'succeeded', statusNm: '성공', amount: 30_000, subId: 'seller-a', errReason: '', bankCd: '004', accntNm: '홍길동', subCoNm: '상점 seller-a' });
    expect(bySeq.get(a.seq)!.accntNo).to.include('*');
    expect(bySeq.get(a.seq)!.accntNo).to.not.equal('111-222');
    expect(bySeq.get(b.seq)).to.include({ status: 'failed', statusNm: '실패', amount: 40_000 });
    expect(bySeq.get(b.seq)!.errReason).to.include('잔액');
    expect(bySeq.get(c.seq)).to.include({ status: 'deleted', statusNm: '삭제' });
    expect(bySeq.get(d.seq)).to.include({ status: 'failed' });
    expect(bySeq.get(d.seq)!.errReason).to.include('해지');
    expect(res.items.map((i) => i.rowNo)).to.deep.equal([1, 2, 3, 4]);

    const one = await nicepay.payout.results({ settlmntDt: DAY, subId: 'seller-b' });
    expect(one.items.map((i) => i.seq)).to.deep.equal([b.seq]);
  });

  it('settlement money from approvals feeds the balance; a net cancel takes it back', async () => {
    const { sandbox, nicepay } = rig;
    const now = sandbox.clock.now();
    sandbox.ledger.add({
      tid: 'nictest04m01012611222000001234', mid: DATA_MID, moid: 'order-1', amount: 12_000, method: 'CARD', status: 'authenticated',
      source: 'keyin', goodsName: '책', buyerName: '구매자', createdAt: now, approvalCalls: 0, extra: {},
    });
    sandbox.ledger.update('nictest04m01012611222000001234', 'approved', now);
    let bal = await nicepay.payout.balance();
    expect(bal.remainAmt).to.equal(12_000);
    expect(bal.last).to.include({ kind: 'settlement', lastcl: '00', amount: 12_000 });
    sandbox.ledger.update('nictest04m01012611222000001234', 'net-cancelled', now);
    bal = await nicepay.payout.balance();
    expect(bal.remainAmt).to.equal(0);
  });

  it('updateSubMerchant changes the account but never the business number', async () => {
    const { sandbox, nicepay } = rig;
    rig.at(2026, 11, 23, 9, 0);
    sandbox.dataHost.addAccountHolder('088', '999', '새주인');
    await nicepay.payout.registerSubMerchant(sub('seller-a', '111-222'));
    const upd = await nicepay.payout.updateSubMerchant({ ...sub('seller-a', '999'), bankCd: '088', accntNm: '새주인', subNm: '새 이름' });
    expect(upd).to.include({ reqType: '1', subId: 'seller-a' });
    expect(sandbox.dataHost.subMerchants(DATA_MID)[0]).to.include({ bankCd: '088', accntNo: '999', subNm: '새 이름' });
    const err = await rejection(nicepay.payout.updateSubMerchant({ ...sub('seller-a', '999'), bankCd: '088', accntNm: '새주인', subCoNo: '9999999999' }));
    expect(err).to.be.instanceOf(NicepayDataApiError);
    expect(err.resCode).to.equal('1111'); // the sandbox's own code: the facts list none for this
    expect(sandbox.dataHost.subMerchants(DATA_MID)[0]!.subCoNo).to.equal(sub('seller-a', '').subCoNo);
  });
});
