/**
 * The cancel endpoint's result codes (lifecycle-facts.md §2, code table), sorted by what a
 * shop does next. Shared by the client (to classify answers) and the sandbox (to produce them).
 */

/** The cancel happened: 2001 cancelled, 2211 refunded. */
export const CANCEL_DONE_CODES: ReadonlySet<string> = new Set(['2001', '2211']);

/** A refund to a refund account was accepted but is not paid out yet. */
export const REFUND_PENDING_CODE = '2225';

/** Nothing happened and the gateway asks for a retry: 2056 card company timed out, 1227 backup database. */
export const CANCEL_RETRY_CODES: ReadonlySet<string> = new Set(['2056', '1227']);

/** Why a cancel was refused, for the shop to branch on. */
export type CancelRefusalReason =
  | 'already-cancelled'
  | 'not-found'
  | 'period-passed'
  | 'amount-too-large'
  | 'partial-not-allowed'
  /** 2045: the virtual account's state decided it (the code's exact meaning is not published). */
  | 'vbank-state'
  | 'refund-instead'
  | 'balance-mismatch'
  | 'duplicate-partial'
  | 'refund-account-required'
  | 'other';

/**
 * The reason of each refusal code of the facts' table; any other code is 'other'.
 *
 * The facts list 2045 and 2047 together as "virtual-account cases (not issued / already paid:
 * refund instead)" without saying which is which. NICEPAY's developer tips page gives 2047 as
 * "이미 입금처리가 완료되어 취소 불가" (already deposited, cannot be cancelled): refund instead.
 * No public text found gives 2045's meaning, so it is not guessed: its reason, 'vbank-state',
 * says only that the virtual account's state decided the refusal (issued, not yet paid, or
 * otherwise); the shop reads the account's state before choosing a cancel or a refund.
 */
const REASONS: Readonly<Record<string, CancelRefusalReason>> = {
  '2013': 'already-cancelled',
  '2015': 'already-cancelled',
  '2012': 'not-found',
  '2016': 'period-passed',
  '2032': 'amount-too-large',
  '2028': 'partial-not-allowed',
  '2029': 'partial-not-allowed',
  '2030': 'partial-not-allowed',
  '2033': 'partial-not-allowed',
  '2052': 'partial-not-allowed',
  '2045': 'vbank-state',
  '2047': 'refund-instead',
  '2061': 'refund-instead',
  '2059': 'balance-mismatch',
  '2060': 'duplicate-partial',
  '2221': 'refund-account-required',
};

/** The refusal reason of a result code. */
export function cancelRefusalReason(code: string): CancelRefusalReason {
  return Object.hasOwn(REASONS, code) ? REASONS[code]! : 'other';
}
