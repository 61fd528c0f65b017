import { randomInt } from 'node:crypto';
import { kstDate8, kstTimestamp14 } from '../../wire/kst.js';
import { cashReceiptIds } from '../approval/util.js';
import type { LedgerCancel, LedgerEntry, LedgerStatus } from '../ledger.js';
import type { SandboxState } from '../types.js';
import { balanceOf, dataHostState, mask } from './state.js';

/**
 * Feeds the data host from the sandbox's approvals (Ledger.onChange):
 * - an entry becoming 'approved' credits its amount as settlement money (lastcl 00) and,
 *   for BANK / VBANK with a cash receipt asked for, records the receipt;
 * - 'net-cancelled' after 'approved' debits the amount back and cancels the receipt.
 */
export function feedFromLedger(state: SandboxState): void {
  state.ledger.onChange((entry: LedgerEntry, previous: LedgerStatus | undefined) => {
    const ds = dataHostState(state);
    const when = state.clock.now();
    if (entry.status === 'approved' && previous !== 'approved') {
      const bal = balanceOf(ds, entry.mid);
      bal.remainAmt += entry.amount;
      bal.last = { lastcl: '00', amount: entry.amount, date: kstDate8(when) };
      if (entry.cashReceipt && (entry.method === 'BANK' || entry.method === 'VBANK')) {
        const t = kstTimestamp14(entry.approvedAt ?? when);
        // The receipt the approval answer (BANK) or the deposit notice (VBANK) names.
        const receipt = cashReceiptIds(state, entry);
        ds.receipts.push({
          mid: entry.mid,
          tid: receipt.tid,
          orgTid: entry.tid,
          orgSvcCd: entry.method === 'BANK' ? '02' : '03',
          moid: entry.moid,
          goodsNm: entry.goodsName,
          goodsAmt: entry.amount,
          appDt: t.slice(0, 8),
          appTm: t.slice(8),
          ccDt: '',
          ccTm: '',
          stateCd: '0',
          appNo: receipt.authCode,
          ccNo: '',
          ordNm: entry.buyerName,
          identity: mask(entry.cashReceipt.identity),
          status: '0',
          reqFlg: entry.cashReceipt.type === 'income-deduction' ? '1' : '2',
        });
      }
    } else if (entry.status === 'net-cancelled' && previous === 'approved') {
      const bal = balanceOf(ds, entry.mid);
      bal.remainAmt -= entry.amount;
      const t = kstTimestamp14(entry.cancelledAt ?? when);
      for (const r of ds.receipts) {
        if (r.orgTid === entry.tid && r.stateCd === '0') {
          r.stateCd = '1';
          r.ccDt = t.slice(0, 8);
          r.ccTm = t.slice(8);
          r.ccNo = String(randomInt(100_000_000, 999_999_999));
        }
      }
    }
  });
}

/**
 * Feeds the data host one accepted cancel or refund (cancel_process.jsp without NetCancel), so
 * reconciliation follows every event of the ledger, not only net cancels. A cancel that leaves
 * nothing marks the transaction's receipts cancelled (stateCd 1, ccDt/ccTm, ccNo); a partial one
 * adds a cancel record of the cancelled amount beside the approval (stateCd 1, the approval's
 * appDt, the cancel's ccDt): the sandbox's choice, the spec shows no partial-cancel record. The
 * payout balance is debited by the caller (cancel-process.ts), once per cancel.
 */
export function feedCancel(state: SandboxState, entry: LedgerEntry, cancel: LedgerCancel): void {
  const ds = dataHostState(state);
  const originals = ds.receipts.filter((r) => r.orgTid === entry.tid && r.stateCd === '0' && r.ccDt === '');
  if (originals.length === 0) return;
  const t = kstTimestamp14(cancel.at);
  const ccNo = (): string => String(randomInt(100_000_000, 999_999_999));
  if (cancel.remaining === 0 && !entry.cancels?.some((c) => c !== cancel && c.partial)) {
    for (const r of originals) Object.assign(r, { stateCd: '1', ccDt: t.slice(0, 8), ccTm: t.slice(8), ccNo: ccNo() });
    return;
  }
  const first = originals[0]!;
  ds.receipts.push({
    ...first,
    stateCd: '1',
    goodsAmt: cancel.amount,
    ccDt: t.slice(0, 8),
    ccTm: t.slice(8),
    ccNo: ccNo(),
  });
}
