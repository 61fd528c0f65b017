/**
 * The one state of an order as the buyer and the operator read it, derived from the stored
 * order only. Every page that describes an order (its result page, its payment page, the
 * order lists) takes its headline, label and colour from here, so no page can say "paid"
 * about an order another page calls refunded.
 *
 * Money that went back to the buyer is said first: a refunded or partly refunded order is
 * that before it is "paid", and a virtual account cancelled before its deposit is a
 * cancelled order whose account must not be paid into. A refund the gateway only accepted
 * (a paid virtual account refunded to a bank account: "refund accepted, not paid out yet")
 * is pending until the shop learns it was paid out; it is never called done before that.
 */
import type { CheckoutResult } from '../src/index.js';
import type { Order } from './db.js';

/**
 * - `pending`: created, not paid yet (payable).
 * - `window-left`: pending, and the buyer came back from the window without paying (an
 *   unsigned return: a display hint only; the order stays payable).
 * - `awaiting-deposit`: a virtual account was issued; the deposit has not arrived.
 * - `paid`: approved, or the virtual account's deposit arrived; nothing refunded.
 * - `partially-refunded`: paid, and part of the amount was refunded.
 * - `refunded`: paid, and the whole amount was refunded.
 * - `partial-refund-pending`: paid, a refund of part of the amount was accepted and is not
 *   paid out yet (to the refund account).
 * - `refund-pending`: paid, a refund of the whole amount was accepted and is not paid out yet.
 * - `cancelled`: a virtual account cancelled before any deposit (nothing was ever paid).
 * - `declined`: the gateway refused the payment (payable again).
 */
export type OrderState =
  | 'pending'
  | 'window-left'
  | 'awaiting-deposit'
  | 'paid'
  | 'partially-refunded'
  | 'refunded'
  | 'partial-refund-pending'
  | 'refund-pending'
  | 'cancelled'
  | 'declined';

/** The order's one state (see {@link OrderState}). */
export function orderState(o: Order): OrderState {
  if (o.refundedAmount > 0) {
    // An unpaid virtual account can only be cancelled whole (the gateway refuses a partial one).
    if (o.status === 'awaiting-deposit') return 'cancelled';
    const whole = o.refundedAmount >= o.amount;
    if (o.refundPendingAmount > 0) return whole ? 'refund-pending' : 'partial-refund-pending';
    return whole ? 'refunded' : 'partially-refunded';
  }
  if (o.status === 'pending') return o.windowCancelledAt ? 'window-left' : 'pending';
  return o.status;
}

/** The short label of a state, for tables and badges. */
export const STATE_LABEL: Readonly<Record<OrderState, string>> = {
  pending: '결제 대기',
  'window-left': '구매자 취소',
  'awaiting-deposit': '입금 대기',
  paid: '결제 완료',
  'partially-refunded': '부분 환불',
  refunded: '전액 환불',
  'partial-refund-pending': '부분 환불 접수 (지급 전)',
  'refund-pending': '전액 환불 접수 (지급 전)',
  cancelled: '주문 취소',
  declined: '결제 실패',
};

/** The colour class a state is shown in: done, waiting (on the buyer or on a payout), or money back / failed. */
export function stateTone(state: OrderState): 'ok' | 'wait' | 'bad' {
  if (state === 'paid') return 'ok';
  if (
    state === 'pending' ||
    state === 'awaiting-deposit' ||
    state === 'refund-pending' ||
    state === 'partial-refund-pending'
  )
    return 'wait';
  return 'bad';
}

/** The states in which the buyer may (still, or again) open the payment window. */
export type PayableState = Extract<OrderState, 'pending' | 'window-left' | 'declined'>;

/** Whether the buyer may (still, or again) open the payment window for the order. */
export function isPayable(state: OrderState): state is PayableState {
  return state === 'pending' || state === 'window-left' || state === 'declined';
}

/**
 * Whether the order's virtual account is past its deposit deadline (VbankExpDate/VbankExpTime)
 * at `now`: the bank takes no deposit into it any more, so nothing may offer one.
 */
export function depositDeadlinePassed(o: Order, now: Date): boolean {
  const stored = o.result ? (JSON.parse(o.result) as CheckoutResult) : undefined;
  if (stored?.status !== 'awaiting-deposit' || stored.payment.method !== 'VBANK') return false;
  const expiresAt = stored.payment.virtualAccount.expiresAt;
  return expiresAt !== undefined && new Date(expiresAt).getTime() < now.getTime();
}
