import type { NicepayErrorCode } from './codes.js';

/**
 * What each method rejects with, as lists a test holds against what each operation's
 * declaration lets the pipeline produce (test/rejections.test.ts), so the types cannot drift
 * from the code. A code in no list of a method is never thrown by it.
 */

/** Refused by the pipeline before anything was sent, for every operation: busy, store, closing. */
const NOT_SENT = [
  'NICEPAY_FIELD_INVALID',
  'NICEPAY_IN_PROGRESS',
  'NICEPAY_STORE_UNAVAILABLE',
  'NICEPAY_STORE_FULL',
  'NICEPAY_SHUTTING_DOWN',
  'NICEPAY_GATEWAY_UNREACHABLE',
] as const;
/** The gateway may have acted and its answer cannot be used: reversed, or being settled. */
const UNKNOWN = ['NICEPAY_OUTCOME_UNKNOWN', 'NICEPAY_ANSWER_UNVERIFIED', 'NICEPAY_ANSWER_AMOUNT_MISMATCH'] as const;

/**
 * What `checkoutReturn` passes to `next(err)` (and `CheckoutClient.complete` rejects with).
 * Body: malformed, too large, wrong type or charset, already parsed. Buyer: forged, untrusted
 * URL, unknown order, amount mismatch, another token, a token the gateway refuses for the TID,
 * a decline of nobody's order, a TID processed before, an order number charged before. Server: busy, store down or full,
 * closing. Gateway: unreachable, outcome unknown, unverifiable answer. Shop hook: onApproved
 * failed, expectedAmount returned a bad value.
 */
export const CHECKOUT_REJECTIONS = [
  ...NOT_SENT,
  ...UNKNOWN,
  'NICEPAY_BODY_ALREADY_PARSED',
  'NICEPAY_BODY_TOO_LARGE',
  'NICEPAY_BODY_MALFORMED',
  'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
  'NICEPAY_CHARSET_UNSUPPORTED',
  'NICEPAY_UNTRUSTED_URL',
  'NICEPAY_UNKNOWN_ORDER',
  'NICEPAY_AMOUNT_MISMATCH',
  'NICEPAY_SIGNATURE_MISMATCH',
  'NICEPAY_DUPLICATE_MISMATCH',
  'NICEPAY_RETURN_INVALID',
  'NICEPAY_DECLINE_ORDER_MISMATCH',
  'NICEPAY_ALREADY_PROCESSED',
  'NICEPAY_MOID_CHARGED_BEFORE',
  'NICEPAY_HOOK_FAILED',
  'NICEPAY_HOOK_RESULT_INVALID',
] as const satisfies readonly NicepayErrorCode[];
/** A code of {@link CHECKOUT_REJECTIONS}. */
export type CheckoutRejection = (typeof CHECKOUT_REJECTIONS)[number];

/** What `nicepay.keyin()` and a `keyinCharger()` function reject with (a decline resolves; HOOK_FAILED only with onApproved). */
export const KEYIN_REJECTIONS = [
  ...NOT_SENT,
  ...UNKNOWN,
  'NICEPAY_DUPLICATE_MISMATCH',
  'NICEPAY_MOID_CHARGED_BEFORE',
  'NICEPAY_HOOK_FAILED',
] as const satisfies readonly NicepayErrorCode[];
/** A code of {@link KEYIN_REJECTIONS}. */
export type KeyinRejection = (typeof KEYIN_REJECTIONS)[number];

/** What `billing.charge()` rejects with (a decline resolves; HOOK_FAILED only with onApproved). */
export const BILLING_CHARGE_REJECTIONS = [...KEYIN_REJECTIONS] as const;
/** A code of {@link BILLING_CHARGE_REJECTIONS}. */
export type BillingChargeRejection = (typeof BILLING_CHARGE_REJECTIONS)[number];

/** What `cashReceipt.issue()` rejects with (a refusal resolves). */
export const CASH_RECEIPT_REJECTIONS = [
  ...NOT_SENT,
  ...UNKNOWN,
  'NICEPAY_DUPLICATE_MISMATCH',
] as const satisfies readonly NicepayErrorCode[];
/** A code of {@link CASH_RECEIPT_REJECTIONS}. */
export type CashReceiptRejection = (typeof CASH_RECEIPT_REJECTIONS)[number];

/** What `nicepay.cancel()` rejects with (a refusal resolves as `status: 'refused'`). */
export const CANCEL_REJECTIONS = [
  ...NOT_SENT,
  ...UNKNOWN,
  'NICEPAY_CANCEL_EXCEEDS_REMAINING',
  'NICEPAY_RETRY_LATER',
] as const satisfies readonly NicepayErrorCode[];
/** A code of {@link CANCEL_REJECTIONS}. */
export type CancelRejection = (typeof CANCEL_REJECTIONS)[number];

/** What `nicepay.status()` rejects with; nothing changes at the gateway either way. */
export type StatusRejection = Extract<
  NicepayErrorCode,
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_GATEWAY_ERROR'
  | 'NICEPAY_QUERY_REFUSED'
>;

/** What `billing.register()` and `billing.remove()` reject with (a refusal resolves). */
export type BillingKeyRejection = Extract<
  NicepayErrorCode,
  'NICEPAY_FIELD_INVALID' | 'NICEPAY_SHUTTING_DOWN' | 'NICEPAY_GATEWAY_UNREACHABLE' | 'NICEPAY_OUTCOME_UNKNOWN'
>;

/**
 * What `nicepay.payout.*` rejects with: the payout request and cancel are ledger operations
 * (busy, store, another amount for a payout recorded before, an unknown or unverifiable outcome
 * being settled); every call may meet a schedule rule or a refusal of the data host.
 * GATEWAY_ERROR only for queries (balance, results); OUTCOME_UNKNOWN also for a registration
 * whose answer was lost.
 */
export type PayoutRejection = Extract<
  NicepayErrorCode,
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_IN_PROGRESS'
  | 'NICEPAY_STORE_UNAVAILABLE'
  | 'NICEPAY_STORE_FULL'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_OUTCOME_UNKNOWN'
  | 'NICEPAY_ANSWER_UNVERIFIED'
  | 'NICEPAY_ANSWER_AMOUNT_MISMATCH'
  | 'NICEPAY_DUPLICATE_MISMATCH'
  | 'NICEPAY_SCHEDULE_VIOLATION'
  | 'NICEPAY_GATEWAY_ERROR'
  | 'NICEPAY_DATA_HOST_REFUSED'
>;
/** Every code of {@link PayoutRejection}, as a list the tests hold against the payout request's and cancel's declarations. */
export const PAYOUT_REJECTIONS = [
  ...NOT_SENT,
  ...UNKNOWN,
  'NICEPAY_DUPLICATE_MISMATCH',
  'NICEPAY_SCHEDULE_VIOLATION',
  'NICEPAY_GATEWAY_ERROR',
  'NICEPAY_DATA_HOST_REFUSED',
] as const satisfies readonly PayoutRejection[];

/** What `nicepay.recon.*` rejects with (queries: nothing changes). */
export type ReconRejection = Extract<
  NicepayErrorCode,
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_GATEWAY_ERROR'
  | 'NICEPAY_DATA_HOST_REFUSED'
>;
