/**
 * The payment ledger's record: one per money operation, written before its request leaves and
 * moved only by the state machine (state-machine.ts). It names the operation by the gateway's
 * identifiers and holds what is known, never a secret: no card data, merchant key, AuthToken,
 * BID or receipt identity (a keyed digest binds a repeat to them instead).
 */

/** Why an operation's outcome was unknown: the code the shop is told first, and on every repeat. */
export type UnknownCode = 'NICEPAY_OUTCOME_UNKNOWN' | 'NICEPAY_ANSWER_UNVERIFIED' | 'NICEPAY_ANSWER_AMOUNT_MISMATCH';

/** The money operations the ledger records (`payout` a payout request, `payout.cancel` its cancel). */
export type LedgerOperation =
  | 'approval'
  | 'keyin'
  | 'billing.charge'
  | 'cash-receipt'
  | 'cancel'
  | 'payout'
  | 'payout.cancel';

/**
 * Where a record stands (docs/pipeline.md, "The state machine"):
 * - `sending`: written before the request leaves; an answer has not been read.
 * - `committed`: the gateway verifiably did what was asked; the shop's hook has not resolved.
 * - `recorded`: kept. The gateway committed and the shop's hook resolved (or there is none).
 * - `declined`: the gateway refused this order's request. Nothing moved.
 * - `unknown`: the request left and no usable answer came back (or the hook failed): the
 *   gateway may hold money the shop does not record, so it is reversed.
 * - `reversing`: a reversal was sent and not confirmed; the settler sends it again.
 * - `reversed`: the gateway confirmed the reversal. Nothing stays charged.
 * - `never-charged`: the gateway says it never committed (learned by settlement).
 */
export type LedgerState =
  | 'sending'
  | 'committed'
  | 'recorded'
  | 'declined'
  | 'unknown'
  | 'reversing'
  | 'reversed'
  | 'never-charged';

/** States in which a record is closed: final, kept only to answer repeats. */
export const CLOSED_STATES: ReadonlySet<LedgerState> = new Set(['recorded', 'declined', 'reversed', 'never-charged']);

/** Where the shop's hook stands for a committed operation. */
export type HookState = 'none' | 'pending' | 'hung' | 'resolved' | 'rejected';

/** One ledger record, as stored (JSON). */
export interface LedgerRecord {
  /** Format version. */
  v: 1;
  op: LedgerOperation;
  state: LedgerState;
  mid: string;
  tid: string;
  /** The shop's order number: from the shop's own call, or the gateway's signed answer. */
  moid: string;
  amount: number;
  /** Keyed digest of what a repeat must present (AuthToken, card, BID, receipt identity). */
  binding: string;
  hook: HookState;
  /** The route hook settlement may run for it (a registered name); absent: only a repeat of the call brings its hook. */
  hookName?: string;
  /** What the operation's request said that its answer may not echo (goods, buyer, method...). */
  data: Record<string, string>;
  /** The gateway's answer fields, as read (never a secret: a BID or identity is left out). */
  fields?: Readonly<Record<string, string>>;
  /** Why the outcome is unknown or a step failed: no secret, no field value. */
  reason?: string;
  /** The gateway's ResultCode of the last answer, when there was one. */
  resultCode?: string;
  /** Why the outcome was unknown, as the shop is told it (absent: NICEPAY_OUTCOME_UNKNOWN). */
  error?: UnknownCode;
  /**
   * When the hook, run again by settlement or a repeat, first rejected: an earlier run may still
   * be under way (a paused process), so the payment is reversed only once none can be.
   */
  hookRejectedAt?: number;
  /** A reversal was sent at least once (and, while the record is open, not confirmed). */
  reversalTried?: boolean;
  /** The gateway had processed this TID before; its status inquiry confirmed the approval. */
  recovered?: boolean;
  /** When the record was written (the client's clock, ms). */
  at: number;
  /** Settlement attempts so far, and when the last one was. */
  attempts: number;
  lastAttemptAt?: number;
  /** Settlement has not closed it within its bound: it is reported as needing attention. */
  attention?: boolean;
}

/** The record as text for the store. */
export function serializeRecord(record: LedgerRecord): string {
  return JSON.stringify(record);
}

/** Reads a record written by {@link serializeRecord}; throws on text it did not write. */
export function parseRecord(text: string): LedgerRecord {
  const r = JSON.parse(text) as Partial<LedgerRecord>;
  if (
    r === null ||
    typeof r !== 'object' ||
    r.v !== 1 ||
    typeof r.op !== 'string' ||
    typeof r.state !== 'string' ||
    typeof r.tid !== 'string' ||
    typeof r.moid !== 'string' ||
    typeof r.amount !== 'number' ||
    typeof r.binding !== 'string' ||
    typeof r.data !== 'object' ||
    r.data === null
  ) {
    throw new Error('not a ledger record of this version');
  }
  return r as LedgerRecord;
}
