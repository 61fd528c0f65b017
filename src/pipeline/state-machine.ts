import type { LedgerState } from './ledger-record.js';

/**
 * What can happen to a money operation. Request side: how the call's answer reads and what the
 * shop's hook did. Settlement side: what the gateway says of the TID, and what a reversal or a
 * re-sent cancel did.
 */
export type LedgerEvent =
  /** The request provably never left. */
  | 'not-sent'
  /** The gateway refused this request or token as not valid for the TID: nobody's order. */
  | 'invalid'
  /** The gateway asked for a retry later: it did nothing. */
  | 'retry'
  /** The gateway refused this order's request (its answer names the order). */
  | 'declined'
  /** The gateway refused a request whose refusal is not kept (a cancel: the caller may correct it and retry). */
  | 'refused'
  /** A refusal that names another order or none: about nobody's order. */
  | 'declined-unattributed'
  /** The gateway verifiably did what was asked. */
  | 'committed'
  /** The request left and no usable answer came back. */
  | 'lost'
  /** The same, for an operation that cannot be reversed (a cancel): it is completed by sending it again. */
  | 'unconfirmed'
  /** The gateway processed this TID before, and holds nothing for it now, or cannot say whose it is. */
  | 'processed-elsewhere'
  /** The gateway processed this TID before for this very order, and holds the approval. */
  | 'recovered'
  /** A committed record's hook is run again (a repeat that brings it, or settlement). */
  | 'hook-again'
  /**
   * The hook, run again, rejected while an earlier run may still be under way (a paused process
   * that will yet record the payment): tried again before anything is reversed.
   */
  | 'hook-rejected-again'
  /** Settlement finds no registered hook for a committed record: it waits for a repeat that brings one. */
  | 'hook-unavailable'
  | 'hook-resolved'
  | 'hook-rejected'
  /** The hook is still unsettled a second timeout after its signal aborted. */
  | 'hook-hung'
  | 'reversal-confirmed'
  | 'reversal-failed'
  /** Settlement: the gateway holds the money of this TID. */
  | 'gateway-holds'
  /**
   * Settlement: the gateway holds it, and the shop cannot have recorded it: its request died
   * before any answer and no hook of its records payments.
   */
  | 'gateway-holds-unheard'
  /** Settlement: the gateway reversed or cancelled it. */
  | 'gateway-reversed'
  /** Settlement: the gateway never committed it. */
  | 'gateway-none'
  /** Settlement: the gateway could not be asked (or could not say); try again later. */
  | 'gateway-unanswered';

/** What becomes of the record: a state, or `forgotten` (nothing to remember: the key is freed). */
export type NextState = LedgerState | 'forgotten';

/** What the pipeline does next on the way into the new state. */
export type Then =
  /** Nothing more: answer the caller (or end the settlement step). */
  | 'answer'
  /** Run the shop's hook. */
  | 'run-hook'
  /** Send the operation's reversal (net cancel, or a cancel of the whole amount). */
  | 'reverse'
  /** Leave it for the settler, due again after its back-off. */
  | 'wait';

/** One row of the state machine. */
export interface Transition {
  from: LedgerState;
  on: LedgerEvent;
  to: NextState;
  then: Then;
  /** For the table in docs/pipeline.md: what the shop is told. */
  told: string;
}

/**
 * The state machine of every money operation: state × event → next state and next step. It is
 * the only place that decides what an outcome does to a payment; src/pipeline/run-operation.ts
 * and settle.ts look every move up here. docs/pipeline.md prints it as a table and
 * test/state-machine.test.ts drives every row through the sandbox.
 */
export const TRANSITIONS: readonly Transition[] = [
  {
    from: 'sending',
    on: 'not-sent',
    to: 'forgotten',
    then: 'answer',
    told: 'NICEPAY_GATEWAY_UNREACHABLE: nothing was sent, retry',
  },
  {
    from: 'sending',
    on: 'invalid',
    to: 'forgotten',
    then: 'answer',
    told: '4xx: the request is not valid for this TID, or its Moid was charged before; nothing recorded',
  },
  { from: 'sending', on: 'retry', to: 'forgotten', then: 'answer', told: 'NICEPAY_RETRY_LATER: nothing was done' },
  {
    from: 'sending',
    on: 'declined-unattributed',
    to: 'forgotten',
    then: 'answer',
    told: "NICEPAY_DECLINE_ORDER_MISMATCH: nobody's order; nothing recorded",
  },
  {
    from: 'sending',
    on: 'processed-elsewhere',
    to: 'forgotten',
    then: 'answer',
    told: 'NICEPAY_ALREADY_PROCESSED: nothing changed now',
  },
  {
    from: 'sending',
    on: 'refused',
    to: 'forgotten',
    then: 'answer',
    told: 'refused (the result); nothing kept, the caller may retry',
  },
  { from: 'sending', on: 'declined', to: 'declined', then: 'answer', told: 'declined (the result)' },
  { from: 'sending', on: 'committed', to: 'committed', then: 'run-hook', told: 'the result once the hook resolved' },
  { from: 'sending', on: 'recovered', to: 'committed', then: 'run-hook', told: 'the result, recovered: true' },
  { from: 'sending', on: 'lost', to: 'unknown', then: 'reverse', told: 'NICEPAY_OUTCOME_UNKNOWN: being settled' },
  {
    from: 'sending',
    on: 'unconfirmed',
    to: 'unknown',
    then: 'wait',
    told: 'NICEPAY_OUTCOME_UNKNOWN: being settled (sent again)',
  },
  { from: 'committed', on: 'hook-again', to: 'committed', then: 'run-hook', told: 'the result once the hook resolved' },
  {
    from: 'committed',
    on: 'hook-unavailable',
    to: 'committed',
    then: 'wait',
    told: 'settle report: unsettled until a repeat brings the hook',
  },
  { from: 'committed', on: 'hook-resolved', to: 'recorded', then: 'answer', told: 'the result' },
  {
    from: 'committed',
    on: 'hook-rejected',
    to: 'unknown',
    then: 'reverse',
    told: 'NICEPAY_HOOK_FAILED: reversed, or being settled',
  },
  {
    from: 'committed',
    on: 'hook-rejected-again',
    to: 'committed',
    then: 'wait',
    told: 'NICEPAY_HOOK_FAILED: not reversed yet: the hook, run again, rejected while an earlier run may still be under way; tried again',
  },
  {
    from: 'committed',
    on: 'hook-hung',
    to: 'committed',
    then: 'wait',
    told: 'NICEPAY_HOOK_FAILED: not reversed while the hook runs',
  },
  {
    from: 'unknown',
    on: 'reversal-confirmed',
    to: 'reversed',
    then: 'answer',
    told: 'the error, reversal succeeded: nothing charged',
  },
  { from: 'unknown', on: 'reversal-failed', to: 'reversing', then: 'wait', told: 'the error, being settled' },
  { from: 'reversing', on: 'reversal-confirmed', to: 'reversed', then: 'answer', told: 'settle report: reversed' },
  {
    from: 'reversing',
    on: 'reversal-failed',
    to: 'reversing',
    then: 'wait',
    told: 'settle report: unsettled, tried again later',
  },
  // Settlement: what the gateway says of a record left open.
  {
    from: 'sending',
    on: 'gateway-holds',
    to: 'committed',
    then: 'run-hook',
    told: 'onApproved (the request died before any answer)',
  },
  { from: 'sending', on: 'gateway-holds-unheard', to: 'reversing', then: 'reverse', told: 'settle report: reversed' },
  { from: 'sending', on: 'gateway-reversed', to: 'reversed', then: 'answer', told: 'settle report: reversed' },
  { from: 'sending', on: 'gateway-none', to: 'never-charged', then: 'answer', told: 'settle report: never-charged' },
  { from: 'sending', on: 'gateway-unanswered', to: 'sending', then: 'wait', told: 'settle report: unsettled' },
  { from: 'unknown', on: 'gateway-holds', to: 'reversing', then: 'reverse', told: 'settle report: reversed' },
  { from: 'unknown', on: 'gateway-reversed', to: 'reversed', then: 'answer', told: 'settle report: reversed' },
  { from: 'unknown', on: 'gateway-none', to: 'never-charged', then: 'answer', told: 'settle report: never-charged' },
  { from: 'unknown', on: 'gateway-unanswered', to: 'unknown', then: 'wait', told: 'settle report: unsettled' },
  { from: 'reversing', on: 'gateway-holds', to: 'reversing', then: 'reverse', told: 'settle report: reversed' },
  { from: 'reversing', on: 'gateway-reversed', to: 'reversed', then: 'answer', told: 'settle report: reversed' },
  { from: 'reversing', on: 'gateway-none', to: 'never-charged', then: 'answer', told: 'settle report: never-charged' },
  { from: 'reversing', on: 'gateway-unanswered', to: 'reversing', then: 'wait', told: 'settle report: unsettled' },
  // A cancel whose outcome is unknown is completed, never reversed: it is sent again.
  { from: 'unknown', on: 'committed', to: 'recorded', then: 'answer', told: 'settle report: kept' },
  { from: 'unknown', on: 'declined', to: 'never-charged', then: 'answer', told: 'settle report: never-charged' },
  { from: 'unknown', on: 'unconfirmed', to: 'unknown', then: 'wait', told: 'settle report: unsettled' },
];

/** The rows by state, then by event (no key text is built per lookup). */
const INDEX = new Map<LedgerState, Map<LedgerEvent, Transition>>();
for (const t of TRANSITIONS) {
  const rows = INDEX.get(t.from) ?? new Map<LedgerEvent, Transition>();
  INDEX.set(t.from, rows.set(t.on, t));
}

/** The row for `event` in `state`; throws for a pair the machine does not have (a bug). */
export function transition(state: LedgerState, event: LedgerEvent): Transition {
  const row = INDEX.get(state)?.get(event);
  if (!row) throw new Error(`the ledger's state machine has no move for ${event} in state ${state}`);
  return row;
}
