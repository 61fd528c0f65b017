import { channel } from 'node:diagnostics_channel';
import type { ClientContext } from '../context.js';
import type { LedgerOperation, LedgerRecord, LedgerState } from './ledger-record.js';

/** The name of the diagnostics channel settlement publishes each settled or stuck record on. */
export const SETTLE_CHANNEL = 'express-nicepay:settle';
const settleChannel = channel(SETTLE_CHANNEL);

/** How settlement ended for an operation: the gateway keeps it, reversed it, or never had it. */
export type SettledOutcome = 'kept' | 'reversed' | 'never-charged';

/** One record settlement closed. */
export interface SettledItem {
  operation: LedgerOperation;
  /** The merchant the record is of: one process may run clients of several MIDs. */
  mid: string;
  tid: string;
  moid: string;
  amount: number;
  outcome: SettledOutcome;
}

/** One record still open, with why and when it is tried next. */
export interface UnsettledItem {
  operation: LedgerOperation;
  /** The merchant the record is of. */
  mid: string;
  tid: string;
  moid: string;
  amount: number;
  /** The record's state (docs/pipeline.md). */
  state: LedgerState;
  /** Why it is still open (no secret). */
  reason: string;
  /** Settlement attempts so far. */
  attempts: number;
  /** When settlement looks at it next (a record held by a request or another instance: now). */
  nextAttemptAt: Date;
  /** It has been open longer than its bound: logged at error level and published on {@link SETTLE_CHANNEL}. */
  needsAttention: boolean;
}

/** What one settlement pass did. */
export interface SettleReport {
  settled: SettledItem[];
  unsettled: UnsettledItem[];
}

/** The message published on {@link SETTLE_CHANNEL}: a settled record, or one that needs attention. */
export type SettleEvent = (SettledItem & { needsAttention?: never }) | (UnsettledItem & { outcome?: never });

/** A record that needs attention, as it is reported: logged at error level, and published on {@link SETTLE_CHANNEL}. */
export function announceAttention(ctx: ClientContext, r: LedgerRecord, message: string): void {
  ctx.config.logger.error(
    { operation: r.op, tid: r.tid, moid: r.moid, state: r.state, step: 'settle', reason: r.reason },
    message,
  );
  const event: SettleEvent = unsettledItem(r, r.reason ?? r.state, new Date(ctx.config.clock().getTime()), true);
  if (settleChannel.hasSubscribers) settleChannel.publish(event);
}

/** An open record as it is listed and announced. */
export function unsettledItem(
  r: LedgerRecord,
  reason: string,
  nextAttemptAt: Date,
  needsAttention: boolean,
): UnsettledItem {
  const { op: operation, mid, tid, moid, amount, state, attempts } = r;
  return { operation, mid, tid, moid, amount, state, reason, attempts, nextAttemptAt, needsAttention };
}

/** A record settlement closed, as it is reported: logged, and published on {@link SETTLE_CHANNEL}. */
export function announceSettled(ctx: ClientContext, record: LedgerRecord, state: LedgerState): SettledItem {
  const item = {
    operation: record.op,
    mid: record.mid,
    tid: record.tid,
    moid: record.moid,
    amount: record.amount,
    outcome: settledOutcome(state),
  };
  ctx.config.logger.info({ ...item, step: 'settle' }, `settled: ${item.outcome}`);
  if (settleChannel.hasSubscribers) settleChannel.publish(item);
  return item;
}

function settledOutcome(state: LedgerState): SettledOutcome {
  if (state === 'recorded') return 'kept';
  if (state === 'reversed') return 'reversed';
  return 'never-charged';
}
