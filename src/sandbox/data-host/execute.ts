import { accountKey, balanceOf, type DataHostState } from './state.js';

/**
 * Runs the payouts whose execution time has come (11:00 KST of the payout day; the gateway
 * pays between 11:00 and 14:00). Evaluated lazily, on every data host call and facade
 * read, against the virtual clock, in seq order: a closed account or a short balance fails
 * the payout with errReason; a success debits the balance (lastcl 10). The account paid to
 * is the sub-merchant's one at execution.
 */
export function executePayouts(ds: DataHostState, now: Date, due: (settlmntDt: string, now: Date) => boolean): void {
  for (const p of ds.payouts) {
    if (p.status !== '요청' || !due(p.settlmntDt, now)) continue;
    const sub = ds.subMerchants.get(`${p.mid} ${p.subId}`);
    if (sub) {
      p.bankCd = sub.bankCd;
      p.accntNo = sub.accntNo;
      p.accntNm = sub.accntNm;
    }
    const bal = balanceOf(ds, p.mid);
    if (ds.closedAccounts.has(accountKey(p.bankCd, p.accntNo))) {
      p.status = '실패';
      p.errReason = '입금불가 계좌 (해지 계좌)';
    } else if (bal.remainAmt < p.amount) {
      p.status = '실패';
      p.errReason = '잔액 부족';
    } else {
      bal.remainAmt -= p.amount;
      bal.last = { lastcl: '10', amount: p.amount, date: p.settlmntDt };
      p.status = '성공';
    }
  }
}
