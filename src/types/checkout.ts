import type { Payment, VbankPayment } from './payment.js';

/** Fields every checkout result carries. */
export interface CheckoutCommon {
  /** The shop's order number (Moid). */
  moid: string;
  /** The transaction id the window authenticated (TxTid). */
  tid: string;
  /** The amount, as the shop's expectedAmount gave it. */
  amount: number;
  /** True when this request was a duplicate and got the first request's result. */
  duplicate: boolean;
  /**
   * True when the gateway had already approved this TID for this very order (an earlier
   * approval whose answer was lost, or a ledger that forgot it) and the status inquiry confirmed
   * it. onApproved runs for it, maybe a second time for this TID: hooks are at-least-once, so
   * make them idempotent by TID (docs/hooks.md). `payment` then holds what the inquiry tells
   * (no card or bank details) and `raw` its answer.
   */
  recovered?: true;
}

/** The gateway approved the payment (card 3001, bank transfer 4000, cellphone A000). */
export interface ApprovedCheckout extends CheckoutCommon {
  status: 'approved';
  payment: Exclude<Payment, VbankPayment>;
}

/**
 * A virtual account was issued (4100): the order is paid only once the buyer deposits. Keep
 * `tid` with the order: the gateway's deposit notice reaches `nicepay.notifications()`, whose
 * `expectedAmount` can return `{ amount, tid }` and whose `onDeposit` marks the order paid
 * (docs/lifecycle.md).
 */
export interface AwaitingDepositCheckout extends CheckoutCommon {
  status: 'awaiting-deposit';
  payment: VbankPayment;
}

/** The gateway answered the approval with a failure code. Nothing was charged. */
export interface DeclinedCheckout extends CheckoutCommon {
  status: 'declined';
  /** Gateway ResultCode, e.g. A123 (amount differs from the authenticated one). */
  code: string;
  /** Gateway ResultMsg, decoded. */
  message: string;
  /** Every field of the gateway's answer, verbatim. */
  raw: Readonly<Record<string, string>>;
}

/**
 * What the buyer's browser posted when it came back without authenticating (a closed window,
 * a failed card authentication): AuthResultCode and AuthResultMsg, as posted. Unsigned: anyone
 * can post any text here. Never show it as the gateway's (or the shop's) message.
 */
export interface UnverifiedAuthFailure {
  /** AuthResultCode as posted, e.g. a code other than 0000. */
  authResultCode: string;
  /** AuthResultMsg as posted, decoded; attacker-controlled text. */
  authResultMsg: string;
}

/**
 * The buyer came back without authenticating. No gateway call was made, and nothing in it is
 * the gateway's word: the return carries no signature, so anyone can post one for any Moid
 * with any text (docs/security.md, "An auth failure is the buyer's word"). It never changes
 * an order's state, and its text is never shown as the gateway's; at most the shop tells the
 * buyer, in its own words, that the payment was not completed.
 */
export interface AuthFailedCheckout {
  status: 'auth-failed';
  /** Always false: nothing here was verified. */
  verified: false;
  /** The Moid the buyer's browser posted (unverified: a browser can post whatever order number it likes). */
  moid: string;
  /** The posted AuthResultCode / AuthResultMsg, kept apart so they are not mistaken for a verified result. */
  buyerPosted: UnverifiedAuthFailure;
  duplicate: false;
}

/**
 * What `checkoutReturn` puts on `req.checkout`. Narrow on `status`; a `switch` over it with a
 * `never` default branch keeps shop code honest when a status is added.
 */
export type CheckoutResult = ApprovedCheckout | AwaitingDepositCheckout | DeclinedCheckout | AuthFailedCheckout;

/** The results onApproved receives: money was committed at the gateway. */
export type CommittedCheckout = ApprovedCheckout | AwaitingDepositCheckout;
