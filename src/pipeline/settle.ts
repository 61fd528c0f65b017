import { channel } from 'node:diagnostics_channel';
import type { ClientContext } from '../context.js';
import { type AnswerTable, readAnswer } from './answer-rules.js';
import { callGateway } from './gateway-call.js';
import { errorText, type HookContext } from './hook-runner.js';
import type { Lease } from './lease.js';
import { readStored, tryKey } from './ledger.js';
import type { LedgerOperation, LedgerRecord, LedgerState } from './ledger-record.js';
import type { ExchangeReading, GatewayHolding, GatewayRequest, OperationKind, Resend } from './operation.js';
import { markOf } from './operation-marks.js';
import { callOperation } from './operations.js';
import type { LedgerEvent } from './state-machine.js';
import { type Step, walk, type WalkEnd, type WalkOptions } from './walk.js';

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

/** Settlement's settings. */
export interface SettleSettings {
  /** Most records looked at in one pass. */
  batch: number;
  /** How long a record may stay open before it needs attention (ms). */
  attentionAfterMs: number;
}

/** The kinds settlement knows, by operation. */
export type KindRegistry = ReadonlyMap<LedgerOperation, OperationKind<unknown>>;

/**
 * One settlement pass over the open records that are due (docs/reliability.md, "Settlement"):
 * each is taken under its lease (a record another instance or a request holds is skipped), what
 * the gateway holds is learned (status inquiry, reconciliation) or the operation is sent again
 * (a cancel), and the record moves through the state machine: reversed when the shop was told it
 * failed or is unknown, run through its hook again when the gateway committed and the hook never
 * resolved, closed when the gateway never had it. Resolves to what closed and what is still open.
 */
export async function settlePass(
  ctx: ClientContext,
  kinds: KindRegistry,
  settings: SettleSettings,
): Promise<SettleReport> {
  const { store, logger } = ctx.config;
  const report: SettleReport = { settled: [], unsettled: [] };
  const due = await store.due(ctx.config.clock().getTime(), settings.batch);
  for (const stored of due) {
    const record = readStored(stored);
    const kind = kinds.get(record.op);
    if (!kind) continue;
    try {
      const end = await settleOne(ctx, kind, stored.key, settings);
      if (end && !end.open) report.settled.push(announceSettled(ctx, end.record, end.state));
    } catch (err) {
      logger.error(
        { tid: record.tid, moid: record.moid, step: 'settle', error: errorText(err) },
        'settlement of this record failed; it is tried again later',
      );
    }
  }
  report.unsettled = await unsettledItems(ctx, settings);
  return report;
}

/** Every open record, as a back office lists them. */
export async function unsettledItems(ctx: ClientContext, settings: SettleSettings): Promise<UnsettledItem[]> {
  const now = ctx.config.clock().getTime();
  const open = await ctx.config.store.open(settings.batch);
  return open.map((stored) => {
    const r = readStored(stored);
    return {
      operation: r.op,
      mid: r.mid,
      tid: r.tid,
      moid: r.moid,
      amount: r.amount,
      state: r.state,
      reason:
        r.reason ??
        (r.state === 'sending' ? 'the request is under way, or its process stopped before an answer' : r.state),
      attempts: r.attempts,
      nextAttemptAt: new Date(Math.max(stored.dueAt, now)),
      needsAttention: r.attention === true || now - r.at > settings.attentionAfterMs,
    };
  });
}

/** One record's settlement step; undefined when another holder has it. */
async function settleOne(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  key: string,
  settings: SettleSettings,
): Promise<{ record: LedgerRecord; state: LedgerState; open: boolean } | undefined> {
  const taken = await tryKey(ctx, key, kind.keepMs);
  if (taken?.state !== 'leased' || !taken.record) return undefined;
  const end = await settleRecord(
    ctx,
    kind,
    taken.lease,
    taken.record,
    hookOf(ctx, taken.record),
    settings.attentionAfterMs,
  );
  const state = end.forgotten ? 'never-charged' : end.record.state;
  return {
    record: end.record,
    state,
    open: !end.forgotten && !['recorded', 'declined', 'reversed', 'never-charged'].includes(state),
  };
}

/**
 * One settlement step of an open record held under `lease`: counted as an attempt (and flagged
 * as needing attention once it has been open past `attentionAfterMs`), then moved from what the
 * gateway says of it (or from its hook run again) through the state machine. A repeat of the
 * operation that finds its record open and due runs the same step, with its own hook.
 */
export async function settleRecord<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  lease: Lease,
  record: LedgerRecord,
  hook: WalkOptions<R>['hook'],
  attentionAfterMs = ctx.config.settle.attentionAfterMs,
): Promise<WalkEnd> {
  const settings = { attentionAfterMs };
  const now = ctx.config.clock().getTime();
  let r: LedgerRecord = { ...record, attempts: record.attempts + 1, lastAttemptAt: now };
  if (!r.attention && now - r.at > settings.attentionAfterMs) {
    r = { ...r, attention: true };
    announceAttention(
      ctx,
      r,
      `${kind.what} has not settled within ${settings.attentionAfterMs} ms: it needs attention (settlement keeps trying)`,
    );
  }
  return walk(ctx, kind, lease, r, await firstStep(ctx, kind as OperationKind<unknown>, lease.key, r), { hook });
}

/** The event settlement starts a record's walk with. */
async function firstStep(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  key: string,
  r: LedgerRecord,
): Promise<Step> {
  if (r.state === 'committed') return { event: 'hook-again' };
  if (kind.resend) {
    const again = kind.resend(r);
    // Nothing can tell before `until` (a payout's results, from 16:00 KST): it waits till then.
    if ('wait' in again) return { event: 'unconfirmed', patch: { reason: again.wait }, dueAt: again.until };
    if (!('unsafe' in again)) return resendStep(ctx, kind, r, again);
    // Only what its marks say can settle it now: the gateway's notice named it (it took
    // effect), or its request never left; without either it stays open, needing attention.
    const mark = await markOf(ctx, key, r);
    if (mark === 'unreadable') return { event: 'unconfirmed', patch: { reason: 'the ledger could not be read' } };
    if (mark === 'noticed')
      return { event: 'committed', patch: { reason: 'the gateway notified it', attention: false } };
    if (mark === 'unsent')
      return { event: 'gateway-none', patch: { reason: 'its request never left', attention: false } };
    // A record still `sending` at its first attempt may be a paused holder's, which is about to
    // find its lease taken and mark it unsent: one back-off before anyone is called.
    if (r.state === 'sending' && r.attempts === 1)
      return { event: 'unconfirmed', patch: { reason: 'waiting one back-off for word from its holder' } };
    if (!r.attention) announceAttention(ctx, { ...r, reason: again.unsafe }, `${kind.what}: ${again.unsafe}`);
    return { event: 'unconfirmed', patch: { reason: again.unsafe, attention: true } };
  }
  const holding = await kind.inquire(r).catch((): GatewayHolding => 'unanswered');
  // A request that died before any answer, with no hook to record payments: the shop never heard.
  const holds: LedgerEvent = r.state === 'sending' && r.hook === 'none' ? 'gateway-holds-unheard' : 'gateway-holds';
  // Unclear is reversed from any state, never kept: a hook must not record what may not exist.
  const unclear: LedgerEvent = r.state === 'sending' ? 'gateway-holds-unheard' : 'gateway-holds';
  const event: Record<GatewayHolding, LedgerEvent> = {
    holds,
    reversed: 'gateway-reversed',
    none: 'gateway-none',
    unanswered: 'gateway-unanswered',
    unclear,
  };
  // The gateway had committed what the dead request sent: kept, it is a recovered payment. Its
  // answer was never read: the record's own identifiers stand in for the answer's, so its hook
  // and a repeat see the payment's TID, MID and Moid (never empty).
  const patch =
    holding === 'unanswered'
      ? { reason: r.reason ?? 'the gateway could not be asked what it holds' }
      : holding === 'holds' && holds === 'gateway-holds' && r.state === 'sending'
        ? { recovered: true, fields: { ...r.fields, TID: r.tid, MID: r.mid, Moid: r.moid } }
        : {};
  return { event: event[holding], patch };
}

/**
 * Sends an operation that cannot be reversed (a full cancel) again, as it was, or asks after it
 * (a payout's result query): the gateway does it, or refuses it as done already (already
 * cancelled), which both complete it, with the answer's fields; another refusal means it never
 * happened. A request that never left, or whose answer is lost, leaves it open.
 */
async function resendStep(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  r: LedgerRecord,
  again: Resend,
): Promise<Step> {
  try {
    const reading = 'exchange' in again ? await again.exchange() : await resendPost(ctx, kind, r, again);
    if (reading.kind === 'success')
      return { event: 'committed', patch: { fields: { ...reading.fields }, resultCode: reading.code } };
    if (
      reading.kind === 'refused' ||
      reading.kind === 'refused-elsewhere' ||
      reading.kind === 'invalid' ||
      reading.kind === 'charged-before'
    ) {
      return (await again.doneAlready(reading.code))
        ? { event: 'committed' }
        : {
            event: 'declined',
            patch: { ...(reading.code ? { resultCode: reading.code } : {}), reason: reading.message },
          };
    }
    // Not sent, lost, or "retry later": nothing says whether the first sending took effect.
    return { event: 'unconfirmed' };
  } catch {
    return { event: 'unconfirmed' };
  }
}

/** A web-host operation sent again through the pipeline and read by its answer table. */
function resendPost(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  r: LedgerRecord,
  { request, table }: { request: GatewayRequest; table: AnswerTable },
): Promise<ExchangeReading> {
  return callGateway<ExchangeReading>(ctx, {
    operation: callOperation(kind.op),
    host: 'web',
    url: request.url,
    ids: { tid: r.tid, moid: r.moid },
    continuation: true,
    request: request.request,
    answer: (body) => readAnswer(body, table),
    lost: () => ({ kind: 'unknown', reason: 'no usable answer' }),
    notSent: () => ({ kind: 'retry', code: '', message: 'not sent' }),
    report: (x) => ({ outcome: x.kind === 'success' ? 'succeeded' : x.kind === 'unknown' ? 'unknown' : 'refused' }),
  });
}

/**
 * The hook settlement may run for a record: the route hook registered under the name the record
 * carries (the route that made it), if this process has it. The registry holds each route's
 * hook for the operation the route runs, so it takes that operation's result.
 */
export function hookOf<R>(ctx: ClientContext, record: LedgerRecord): WalkOptions<R>['hook'] {
  // A name is the shop's to choose: only a hook registered for this record's operation runs.
  const hook = record.hookName === undefined ? undefined : ctx.hooks.get(record.hookName);
  return hook?.operation === record.op
    ? { run: hook.run as (result: R, context: HookContext) => unknown, timeoutMs: SETTLEMENT_HOOK_TIMEOUT_MS }
    : undefined;
}

/** When a hook run by settlement is asked to give up (its own promise still decides). */
const SETTLEMENT_HOOK_TIMEOUT_MS = 30_000;

/** A record that needs attention, as it is reported: logged at error level, and published on {@link SETTLE_CHANNEL}. */
function announceAttention(ctx: ClientContext, r: LedgerRecord, message: string): void {
  ctx.config.logger.error(
    { operation: r.op, tid: r.tid, moid: r.moid, state: r.state, step: 'settle', reason: r.reason },
    message,
  );
  const event: SettleEvent = {
    operation: r.op,
    mid: r.mid,
    tid: r.tid,
    moid: r.moid,
    amount: r.amount,
    state: r.state,
    reason: r.reason ?? r.state,
    attempts: r.attempts,
    nextAttemptAt: new Date(ctx.config.clock().getTime()),
    needsAttention: true,
  };
  if (settleChannel.hasSubscribers) settleChannel.publish(event);
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
