import type { CancelRefusalReason } from '../wire/cancel-codes.js';
import { knownKeys } from '../validation/known-keys.js';

export type { CancelRefusalReason } from '../wire/cancel-codes.js';

/** The account a paid virtual account is refunded to (RefundAcctNo, RefundBankCd, RefundAcctNm). */
export interface RefundAccount {
  /** Account number, digits only (dashes are removed), at most 16. */
  number: string;
  /** The bank's 3-digit code, e.g. '004'. */
  bankCode: string;
  /** Account holder's name, at most 10 bytes in EUC-KR (5 Hangul). */
  holder: string;
}

/** Every key of {@link RefundAccount}. */
export const REFUND_ACCOUNT_KEYS = knownKeys<RefundAccount>({ number: true, bankCode: true, holder: true });

/** What {@link Nicepay.cancel} is asked to do. */
export interface CancelInput {
  /** The approved transaction. */
  tid: string;
  /** The shop's order number of that transaction (Moid). */
  moid: string;
  /** Won to cancel: the whole remaining amount for a full cancel. */
  amount: number;
  /** Why (CancelMsg), at most 100 bytes in EUC-KR; always sent as EUC-KR. */
  reason: string;
  /** A partial cancel (PartialCancelCode=1; needs a partial-cancel contract). @default false */
  partial?: boolean;
  /** Refund a paid virtual account to this account. */
  refundAccount?: RefundAccount;
  /**
   * The shop's key for this cancel (a refund request id): the same (TID, amount, key) is sent
   * at most once, so a double-clicked refund button refunds once. Two separate partial cancels
   * of the same amount need two keys. @default '' (one cancel per TID and amount)
   */
  idempotencyKey?: string;
  /**
   * What the shop knows is still cancellable. When given, a partial cancel larger than it, or a
   * full cancel of another amount, is refused before anything is sent.
   */
  remainingAmount?: number;
  /** Returned by the gateway as sent, at most 500 bytes. */
  mallReserved?: string;
}

/**
 * Every key of {@link CancelInput}; another is refused before anything is sent: a misspelt
 * `idempotencyKey` would make a second partial refund read as a repeat of the first.
 */
export const CANCEL_INPUT_KEYS = knownKeys<CancelInput>({
  tid: true,
  moid: true,
  amount: true,
  reason: true,
  partial: true,
  refundAccount: true,
  idempotencyKey: true,
  remainingAmount: true,
  mallReserved: true,
});

/** Fields of every accepted cancel. */
export interface CancelCommon {
  tid: string;
  /** The order's Moid, as the shop passed it. */
  moid: string;
  /**
   * This cancel's own order number, sent to the gateway as its Moid and carried by its cancel
   * notice as `CancelMOID`: the same for a retry of this cancel (TID, amount, idempotencyKey),
   * different for any other. Match a cancel notice to this cancel with it.
   */
  cancelMoid: string;
  /** Won cancelled by this request (CancelAmt). */
  cancelledAmount: number;
  /** Won still cancellable after it (RemainAmt), when the answer says. */
  remainingAmount: number | undefined;
  /** When the gateway cancelled (CancelDate + CancelTime, KST), when the answer says. */
  cancelledAt: Date | undefined;
  /** The gateway's cancel number (CancelNum). */
  cancelNum: string;
  /** ResultCode: 2001 cancelled, 2211 refunded, 2225 refund accepted. */
  code: string;
  /** ResultMsg, decoded. */
  message: string;
  /** True when this call repeated an earlier one (same TID, amount and key) and got its result. */
  duplicate: boolean;
  /** Every field of the answer, verbatim. */
  raw: Readonly<Record<string, string>>;
}

/** The gateway cancelled (2001) or refunded (2211): the money is going back. */
export interface CancelledResult extends CancelCommon {
  status: 'cancelled';
}

/** A refund to a refund account was accepted but not paid out yet (2225). */
export interface RefundPendingResult extends CancelCommon {
  status: 'refund-pending';
}

/** The gateway refused; nothing was cancelled. */
export interface CancelRefusedResult {
  status: 'refused';
  tid: string;
  moid: string;
  /** The Moid this cancel was sent with (see {@link CancelCommon.cancelMoid}). */
  cancelMoid: string;
  /** ResultCode, e.g. 2015. */
  code: string;
  /** ResultMsg, decoded. */
  message: string;
  /** What the code means, to branch on. */
  reason: CancelRefusalReason;
  duplicate: false;
  raw: Readonly<Record<string, string>>;
}

/** What a cancel resolves to. Errors (unreachable, retry later, outcome unknown) reject instead. */
export type CancelResult = CancelledResult | RefundPendingResult | CancelRefusedResult;
