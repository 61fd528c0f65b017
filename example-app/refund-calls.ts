/**
 * A refund intent's cancel, as the back office and the settlement follower send it, and how its
 * answer settles the intent (../db-refunds.ts).
 *
 * One intent is one cancel for the library: its idempotency key is the intent's and its
 * reopening's (`refund-<id>-<attempts>`: a refused or never-sent intent tried again is a new
 * cancel), never a new key for the same try. So the same cancel sent again while its outcome is
 * open is the same ledger record: the library settles it (a full cancel is sent again with the
 * same cancel Moid), and once it is closed it answers from that record without sending.
 */
import { type CancelResult, isNicepayError, type Nicepay } from '../src/index.js';
import type { RefundIntent, RefundStore } from './db-refunds.js';

/** Errors after which nothing reached the gateway: the intent is closed and may be tried again. */
const NOT_SENT: ReadonlySet<string> = new Set([
  'NICEPAY_GATEWAY_UNREACHABLE',
  'NICEPAY_RETRY_LATER',
  'NICEPAY_CANCEL_EXCEEDS_REMAINING',
  'NICEPAY_FIELD_INVALID',
  'NICEPAY_SHUTTING_DOWN',
  'NICEPAY_STORE_UNAVAILABLE',
]);

/** What one send of an intent came to. */
export type Sent = { kind: 'result'; r: CancelResult } | { kind: 'not-sent' | 'unknown'; err: unknown };

/** The library's idempotency key of an intent's current try: the same for every send of it. */
export const refundKey = (i: RefundIntent): string => `refund-${i.id}-${i.attempts}`;

/**
 * Whether a settled refund still has to be paid out: when the gateway's answer says so
 * (`refund-pending`), and always for a refund to an account, since only a payout ends it. A lost
 * cancel that settlement completed on the gateway's "already cancelled" has no answer of its own
 * (the library's result then reads `cancelled`), and one recorded by the operator has none at all.
 */
export const payoutOf = (i: RefundIntent, r?: CancelResult): 'pending' | 'none' =>
  r?.status === 'refund-pending' || i.number !== '' ? 'pending' : 'none';

/** The note of an intent the library settled as never done. */
export const NOT_REFUNDED_NOTE = '정산: 환불되지 않음 (다시 환불할 수 있음)';

/** Sends the intent's cancel (or repeats it: same key, same cancel). */
export async function sendRefund(nicepay: Nicepay, i: RefundIntent): Promise<Sent> {
  try {
    const r = await nicepay.cancel({
      tid: i.tid,
      moid: i.moid,
      amount: i.amount,
      reason: i.reason,
      partial: i.partial,
      remainingAmount: i.remainingBefore,
      idempotencyKey: refundKey(i),
      ...(i.number ? { refundAccount: { bankCode: i.bankCode, number: i.number, holder: i.holder } } : {}),
    });
    return { kind: 'result', r };
  } catch (err) {
    return { kind: isNicepayError(err) && NOT_SENT.has(err.code) ? 'not-sent' : 'unknown', err };
  }
}

/**
 * Settles an open intent by what its cancel answered: done (cancelled, or accepted with its
 * payout pending), refused, or never sent. An error that leaves the outcome open (the library is
 * still settling it) changes nothing and returns undefined. `note` words the done case.
 */
export function settleBySent(
  refunds: RefundStore,
  i: RefundIntent,
  sent: Sent,
  note: (r: CancelResult) => string,
): RefundIntent | undefined {
  if (sent.kind === 'result' && sent.r.status !== 'refused')
    return refunds.settle(i.id, 'done', note(sent.r), sent.r.cancelledAmount, payoutOf(i, sent.r));
  if (sent.kind === 'result') return refunds.settle(i.id, 'refused', `거절 (코드 ${sent.r.code})`);
  if (sent.kind === 'not-sent') return refunds.settle(i.id, 'not-sent', '보내지 못함');
  // The library settled it as never done (its record answers so): nothing was refunded.
  if ((sent.err as { settlement?: unknown }).settlement === 'never-charged')
    return refunds.settle(i.id, 'refused', NOT_REFUNDED_NOTE);
  return undefined;
}
