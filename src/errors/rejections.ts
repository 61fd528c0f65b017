import type { NicepayErrorCode } from './codes.js';

/** A union of codes, checked against the table: a code that does not exist fails to compile. */
type Codes<C extends NicepayErrorCode> = C;

/**
 * What `checkoutReturn` passes to `next(err)` (and `CheckoutClient.complete` rejects with).
 * Body: malformed, too large, wrong type or charset, already parsed. Buyer: forged, untrusted
 * URL, unknown order, amount mismatch, another token. Server: busy, store down, closing.
 * Gateway: unreachable, outcome unknown, unverifiable answer. Shop hook: onApproved failed,
 * expectedAmount returned a bad value.
 */
export type CheckoutRejection = Codes<
  | 'NICEPAY_BODY_ALREADY_PARSED'
  | 'NICEPAY_BODY_TOO_LARGE'
  | 'NICEPAY_BODY_MALFORMED'
  | 'NICEPAY_CONTENT_TYPE_UNSUPPORTED'
  | 'NICEPAY_CHARSET_UNSUPPORTED'
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_UNTRUSTED_URL'
  | 'NICEPAY_UNKNOWN_ORDER'
  | 'NICEPAY_AMOUNT_MISMATCH'
  | 'NICEPAY_SIGNATURE_MISMATCH'
  | 'NICEPAY_DUPLICATE_MISMATCH'
  | 'NICEPAY_IN_PROGRESS'
  | 'NICEPAY_STORE_UNAVAILABLE'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_OUTCOME_UNKNOWN'
  | 'NICEPAY_ANSWER_UNVERIFIED'
  | 'NICEPAY_ANSWER_AMOUNT_MISMATCH'
  | 'NICEPAY_HOOK_FAILED'
  | 'NICEPAY_HOOK_RESULT_INVALID'
>;

/** What `nicepay.keyin()` rejects with (a decline resolves; HOOK_FAILED only with onApproved). */
export type KeyinRejection = Codes<
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_DUPLICATE_MISMATCH'
  | 'NICEPAY_IN_PROGRESS'
  | 'NICEPAY_STORE_UNAVAILABLE'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_OUTCOME_UNKNOWN'
  | 'NICEPAY_HOOK_FAILED'
>;

/** What `nicepay.cancel()` rejects with (a refusal resolves as `status: 'refused'`). */
export type CancelRejection = Codes<
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_CANCEL_EXCEEDS_REMAINING'
  | 'NICEPAY_IN_PROGRESS'
  | 'NICEPAY_STORE_UNAVAILABLE'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_RETRY_LATER'
  | 'NICEPAY_OUTCOME_UNKNOWN'
>;

/** What `nicepay.status()` rejects with; nothing changes at the gateway either way. */
export type StatusRejection = Codes<'NICEPAY_FIELD_INVALID' | 'NICEPAY_SHUTTING_DOWN' | 'NICEPAY_GATEWAY_UNREACHABLE' | 'NICEPAY_GATEWAY_ERROR'>;

/**
 * What `nicepay.payout.*` rejects with. GATEWAY_ERROR only for queries (balance, results);
 * OUTCOME_UNKNOWN for an answer lost after a state change, or a call that may have acted.
 */
export type PayoutRejection = Codes<
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_SCHEDULE_VIOLATION'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_GATEWAY_ERROR'
  | 'NICEPAY_OUTCOME_UNKNOWN'
  | 'NICEPAY_DATA_HOST_REFUSED'
>;

/** What `nicepay.recon.*` rejects with (queries: nothing changes). */
export type ReconRejection = Codes<'NICEPAY_FIELD_INVALID' | 'NICEPAY_SHUTTING_DOWN' | 'NICEPAY_GATEWAY_UNREACHABLE' | 'NICEPAY_GATEWAY_ERROR' | 'NICEPAY_DATA_HOST_REFUSED'>;
