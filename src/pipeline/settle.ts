import type { ClientContext } from '../context.js';
import { errorText, type HookContext } from './hook-runner.js';
import type { Lease } from './lease.js';
import { readStored, tryKey } from './ledger.js';
import type { LedgerOperation, LedgerRecord, LedgerState } from './ledger-record.js';
import type { OperationKind } from './operation.js';
import {
  announceAttention,
  announceSettled,
  type SettleReport,
  type UnsettledItem,
  unsettledItem,
} from './settle-report.js';
import { firstStep } from './settle-step.js';
import { walk, type WalkEnd, type WalkOptions } from './walk.js';

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
    const reason =
      r.reason ??
      (r.state === 'sending' ? 'the request is under way, or its process stopped before an answer' : r.state);
    return unsettledItem(
      r,
      reason,
      new Date(Math.max(stored.dueAt, now)),
      r.attention === true || now - r.at > settings.attentionAfterMs,
    );
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
