import { kstDate8, kstTimestamp14, parseKstTimestamp } from '../wire/kst.js';
import { balanceOf, dataHostState } from './data-host/state.js';
import { feedCancel } from './data-host/ledger-feed.js';
import type { LedgerCancel, LedgerEntry } from './ledger.js';
import type { SandboxState } from './types.js';
import { moduleSlot } from './module-state.js';

/**
 * The published test MIDs (gateway-facts, "Public test credentials"). lifecycle-facts 2:
 * "Test-MID transactions are cancelled automatically at 23:30 KST the same day": the sandbox
 * does the same for them unless told otherwise (SandboxMerchant.testAutoCancel).
 */
export const PUBLISHED_TEST_MIDS: ReadonlySet<string> = new Set(['nicepay00m', 'nictest04m']);

/** The reason booked on a test-merchant transaction the sandbox cancelled at 23:30 KST. */
export const TEST_AUTO_CANCEL_REASON = '테스트 거래 자동취소 (23:30 KST)';

/** ResultCode booked on the automatic cancel (the cancel code, 2001). */
const CANCELLED = '2001';

/**
 * When a transaction approved at `approvedAt` is cancelled: 23:30 KST of its KST day, or of the
 * next day when it was approved at or after 23:30 (the sweep of that day had already run).
 */
export function testCancelAt(approvedAt: Date): Date {
  const sameDay = parseKstTimestamp(`${kstDate8(approvedAt)}233000`)!;
  return approvedAt.getTime() < sameDay.getTime() ? sameDay : new Date(sameDay.getTime() + 24 * 60 * 60 * 1000);
}

/** Transactions waiting for their 23:30 cancel, and the earliest such moment (ms), per sandbox. */
interface AutoCancelState {
  pending: Set<LedgerEntry>;
  nextDue: number;
}

function autoCancelState(state: SandboxState): AutoCancelState {
  return moduleSlot<AutoCancelState>(state, 'test-auto-cancel', () => ({ pending: new Set(), nextDue: Infinity }));
}

/**
 * Follows the ledger (Ledger.onChange): a test merchant's transaction that becomes approved or
 * issued waits for its 23:30 cancel; the sweep then looks at those only, and at nothing before
 * the earliest is due, so a sandbox with many transactions pays nothing per request.
 */
export function trackTestCancels(state: SandboxState): void {
  state.ledger.onChange((entry) => {
    const committed = entry.status === 'approved' || entry.status === 'awaiting-deposit';
    const slot = autoCancelState(state);
    if (!committed || !state.merchants.get(entry.mid)?.testAutoCancel || entry.approvedAt === undefined) {
      slot.pending.delete(entry);
      return;
    }
    if (slot.pending.has(entry)) return;
    slot.pending.add(entry);
    slot.nextDue = Math.min(slot.nextDue, testCancelAt(entry.approvedAt).getTime());
  });
}

/**
 * Cancels every approved (or issued, unpaid) transaction of a test merchant whose 23:30 KST has
 * come on the virtual clock: the whole remaining amount, booked as a cancel with reason
 * {@link TEST_AUTO_CANCEL_REASON} at 23:30 itself, status 'cancelled', the payout balance and the
 * cash receipts following as they do for any cancel. Runs whenever the virtual clock is moved
 * and before every request the sandbox serves, so no timer and no real sleep is involved.
 */
export function sweepTestCancels(state: SandboxState): void {
  const slot = autoCancelState(state);
  const now = state.clock.now().getTime();
  if (now < slot.nextDue) return;
  let next = Infinity;
  for (const entry of [...slot.pending]) {
    // A ledger cleared since (ledger.clear()) no longer holds it: forget it.
    if (state.ledger.get(entry.tid) !== entry) {
      slot.pending.delete(entry);
      continue;
    }
    const at = testCancelAt(entry.approvedAt!);
    if (now >= at.getTime()) cancelEntry(state, entry, at);
    else next = Math.min(next, at.getTime());
  }
  slot.nextDue = next;
}

function cancelEntry(state: SandboxState, entry: LedgerEntry, at: Date): void {
  entry.cancels ??= [];
  const cancels = entry.cancels;
  const remaining = cancels.length > 0 ? cancels[cancels.length - 1]!.remaining : entry.amount;
  const record: LedgerCancel = {
    amount: remaining,
    remaining: 0,
    partial: false,
    resultCode: CANCELLED,
    cancelNum: kstTimestamp14(at).slice(6),
    at,
    reason: TEST_AUTO_CANCEL_REASON,
    moid: entry.moid,
  };
  cancels.push(record);
  feedCancel(state, entry, record);
  if (entry.status === 'approved') balanceOf(dataHostState(state), entry.mid).remainAmt -= remaining;
  state.ledger.update(entry.tid, 'cancelled', at);
}
