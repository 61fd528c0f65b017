import type { AnswerTable, Reading } from './answer-rules.js';
import type { OutboundRequest } from './gateway-call.js';
import type { HookContext } from './hook-runner-verdict.js';
import type { LedgerOperation, LedgerRecord } from './ledger-record.js';
import type { CallIds } from './operations.js';

/**
 * What an interface declares about one kind of money operation, once per client: how a record
 * becomes the caller's result, how the operation is reversed, how settlement learns the
 * gateway's state of it, and which hook settlement may run again. Everything else (the ledger,
 * the state machine, run-once, the hook runner, lock lifetimes, logging, errors) is the
 * pipeline's.
 */
export interface OperationKind<R> {
  readonly op: LedgerOperation;
  /** The operation in words, for messages: "approval", "key-in", "billing charge"... */
  readonly what: string;
  /** How long a closed record answers repeats (ms). */
  readonly keepMs: number;
  /**
   * The caller's result of a record whose state has one (`committed` or `recorded`: what the
   * gateway did; `declined`): a duplicate is served the same. Other states are the pipeline's
   * errors ({@link outcomeError}); a kind never builds those.
   */
  result(record: LedgerRecord, duplicate: boolean): R;
  /**
   * Settlement's reversal: a cancel of the whole amount, whenever it is sent (a net cancel's
   * window is short). Absent: the operation cannot be reversed and is completed instead by
   * sending it again (a cancel).
   */
  reversal?(record: LedgerRecord): ReversalRequest;
  /** How settlement learns what the gateway holds for a record's TID. */
  inquire(record: LedgerRecord): Promise<GatewayHolding>;
  /**
   * The request sent again to complete an operation that cannot be reversed (a cancel), with
   * its answer table and the refusals that mean it was done already (already cancelled), or the
   * exchange that learns its outcome (a payout's result query); or why sending it again could do
   * it twice (`unsafe`: the record then waits, needing attention); or why nothing can tell yet
   * (`wait`: the record waits, due again at `until`, ms of the client's clock). Absent for
   * reversible kinds.
   */
  resend?(record: LedgerRecord): Resend | { unsafe: string } | { wait: string; until: number };
  /**
   * The tally the pipeline adds each operation of this kind to, by its ledger key, before its
   * request leaves (a cancel: the TID's cancels, which tell apart notices that carry nothing else
   * to tell them by, even a notice that arrives before the cancel's answer is read).
   */
  tally?(record: LedgerRecord): string | undefined;
  /**
   * Keys of a record's `data` kept only while it is open, for sending it again (a refund
   * account): the record that closes it drops them, so the ledger does not keep its buyer's
   * personal data for the closed record's whole life.
   */
  openOnlyData?: readonly string[];
}

/**
 * What the gateway holds for a TID, as settlement learns it; `unclear` when what it says cannot
 * tell holding from none (an unpaid virtual account is "not found" too): the record is reversed,
 * and the reversal's answer tells (cancelled, or no such transaction: never charged).
 */
export type GatewayHolding = 'holds' | 'reversed' | 'none' | 'unanswered' | 'unclear';

/** A signed request to a URL: what the pipeline sends. */
export interface GatewayRequest {
  url: URL;
  request(): OutboundRequest;
}

/**
 * A reversal: its request and its answer table (a cancel's: what confirms it); a refusal the
 * reason of which is "already cancelled" confirms it too, "no such transaction" says nothing was
 * ever charged.
 */
export interface ReversalRequest extends GatewayRequest {
  table: AnswerTable;
}

/** What a call starts its record with: its TID, order, amount, binding and kind's own data. */
export interface CallStart {
  tid: string;
  moid: string;
  amount: number;
  binding: string;
  data?: Record<string, string>;
}

/** One call of a money operation: its record, its request, its answer table, its hook. */
export interface OperationCall<R> {
  kind: OperationKind<R>;
  /** The ledger key: the gateway's identifiers (MID + TID, or MID + Moid when once per Moid). */
  key: string;
  /** How long the closed record answers repeats, when this call says otherwise than its kind. */
  keepMs?: number;
  /** The answer's fields to keep in the record (default: all); a BID or an identity is left out. */
  keep?(fields: Readonly<Record<string, string>>): Record<string, string>;
  /** The record this call starts. */
  start: CallStart;
  /**
   * What the refusal of a repeat of `key` that presents another binding says (the pipeline
   * makes it a NICEPAY_DUPLICATE_MISMATCH): the field that differs, and the message, made of
   * `start` as the pipeline copied it. Absent when `binding` is '' (the key names the whole
   * request, so no repeat can differ).
   */
  mismatch?: { field: string; message(start: CallStart): string };
  /**
   * The call itself: its identifiers, and where and the signed request with its answer table
   * (a web-host call), or the exchange the declaration reads itself (a data-host call).
   */
  send: ((GatewayRequest & { table: AnswerTable }) | Exchange) & { ids: Omit<CallIds, 'mid'> };
  /**
   * What a refusal does to the record: `kept` answers repeats with it (a decline of a Moid),
   * `forgotten` keeps nothing so the caller may correct and retry (a refused cancel).
   */
  refusal: 'kept' | 'forgotten';
  /**
   * The immediate reversal when the outcome is unknown (a net cancel within its window), made
   * only when it is sent.
   */
  reverseNow?(): ReversalRequest;
  /**
   * An approval's "already processed": whether the gateway holds this TID for this very order
   * (then the approval is recovered), or for nobody this store knows.
   */
  recover?(
    reading: Extract<Reading, { kind: 'processed' }>,
  ): Promise<{ recovered: true; fields: Record<string, string> } | { recovered: false; why: string }>;
  /**
   * The shop's hook for this call, run once the gateway committed; `name` when it is a route's
   * registered hook, which settlement may run again for this record.
   */
  hook?: { run(result: R, context: HookContext): unknown; timeoutMs: number; name?: string | undefined };
}

/**
 * An operation whose TID the shop issues itself (key-in, billing charge, cash receipt): the
 * pipeline draws TIDs until one is claimed for it across every instance sharing the store, then
 * builds the call around that TID.
 */
export interface OwnTidOperation<R> {
  kind: OperationKind<R>;
  /** A new TID of this kind, unique within the process. */
  drawTid(): string;
  /** The call, with the TID claimed for it. */
  call(tid: string): OperationCall<R>;
}

/**
 * An operation sent again (or asked after) to complete it: its request and answer table, or its
 * exchange, and which refusals mean it was done already.
 */
export type Resend = ({ request: GatewayRequest; table: AnswerTable } | Exchange) & {
  /** True for a refusal code that means the first sending took effect (a cancel: already cancelled). */
  doneAlready(code: string): boolean | Promise<boolean>;
};

/** What an exchange's answer means: a {@link Reading}, or a request that provably never left. */
export type ExchangeReading = Reading | { kind: 'not-sent'; reason: string };

/**
 * A call the declaration sends and reads itself, on a host whose answers are not web-host
 * answers (the data host's JSON envelope): the pipeline runs it where it would post a request
 * and moves the record by its reading as by any other. It is part of work already admitted.
 */
export interface Exchange {
  /**
   * Sends the call and reads its answer. Rejects only when nothing was sent (bad input): the
   * record is then forgotten and the rejection is the caller's.
   */
  exchange(): Promise<ExchangeReading>;
  /** A success's amount is checked against the amount sent (another is NICEPAY_ANSWER_AMOUNT_MISMATCH). */
  amountChecked?: boolean;
}
