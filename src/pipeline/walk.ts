import type { ClientContext } from '../context.js';
import { ownCopy } from '../own-copy.js';
import type { NicepayError } from '../errors/index.js';
import { callHook, errorText, type HookContext, type HookVerdict } from './hook-runner.js';
import { type Lease, LEASE_MS } from './lease.js';
import { CLOSED_STATES, type LedgerRecord } from './ledger-record.js';
import type { OperationKind, ReversalRequest } from './operation.js';
import { reverse } from './reversal.js';
import { stuckEnd } from './stuck.js';
import { type LedgerEvent, transition } from './state-machine.js';
import { channel } from 'node:diagnostics_channel';

/** The name of the diagnostics channel every move of a ledger record is published on. */
export const LEDGER_CHANNEL = 'express-nicepay:ledger';
const ledgerChannel = channel(LEDGER_CHANNEL);

/** One move of a ledger record, as published on {@link LEDGER_CHANNEL} (never a secret). */
export interface LedgerMove {
  operation: LedgerRecord['op'];
  tid: string;
  moid: string;
  from: LedgerRecord['state'];
  event: LedgerEvent;
  to: LedgerRecord['state'] | 'forgotten';
}

/** One event for the state machine, with what it adds to the record. */
export interface Step {
  event: LedgerEvent;
  patch?: Partial<Omit<LedgerRecord, 'v' | 'op' | 'state' | 'mid' | 'tid' | 'moid' | 'amount' | 'binding'>> & {
    fields?: Record<string, string>;
  };
  /** For an event that forgets the record: what the caller is told. */
  error?: NicepayError;
  /** A hung hook's own settling: the walk goes on from it, holding the lease meanwhile. */
  later?: Promise<Step>;
  /** For an event that waits: when settlement looks again, when nothing can tell before (else the back-off). */
  dueAt?: number;
}

/** Where a walk stopped: the record as last moved, or forgotten with the step that forgot it. */
export type WalkEnd =
  | { forgotten: false; record: LedgerRecord }
  | { forgotten: true; step: Step; record: LedgerRecord };

/** What a walk may do besides what the kind declares. */
export interface WalkOptions<R> {
  /** The shop's hook for a committed record (the call's own, or the one settlement may run). */
  hook?: { run(result: R, context: HookContext): unknown; timeoutMs: number } | undefined;
  /** The first reversal to send (a net cancel within its window); later ones are the kind's. */
  reverseNow?: (() => ReversalRequest) | undefined;
}

/** Settlement's wait before it looks at an open record again: 0, then 30 s doubling to an hour. */
export function backoffMs(attempts: number): number {
  return attempts <= 0 ? 0 : Math.min(30_000 * 2 ** (attempts - 1), 60 * 60_000);
}

/**
 * Moves a leased record from `first` on, one row of the state machine at a time, until a row
 * answers, waits or forgets. Each new state is written before what it leads to is done (the
 * hook runs after `committed` is written, a reversal is sent after `unknown` is written), so a
 * crash at any point leaves a record settlement can finish; when a write fails (the lease was
 * lost, the store failed) nothing more is sent and the walk ends where it stands.
 */
export async function walk<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  lease: Lease,
  record: LedgerRecord,
  first: Step,
  options: WalkOptions<R>,
): Promise<WalkEnd> {
  const { logger } = ctx.config;
  let r = record;
  // The record as the store last took it: when a write fails, that is what settlement will find,
  // so it is also what the caller is told (never a state the ledger does not hold).
  let written = record;
  let step = first;
  let reverseNow = options.reverseNow;
  for (;;) {
    const row = transition(r.state, step.event);
    if (ledgerChannel.hasSubscribers)
      ledgerChannel.publish({
        operation: r.op,
        tid: r.tid,
        moid: r.moid,
        from: r.state,
        event: step.event,
        to: row.to,
      } satisfies LedgerMove);
    if (row.to === 'forgotten') {
      await lease.forget();
      return { forgotten: true, step, record: { ...r, ...step.patch } };
    }
    r = { ...r, ...step.patch, state: row.to };
    if (kind.openOnlyData && CLOSED_STATES.has(r.state)) r = { ...r, data: without(r.data, kind.openOnlyData) };
    switch (row.then) {
      case 'answer':
        return (await lease.putAndRelease(r)) ? { forgotten: false, record: r } : stuck(ctx, kind, lease, written, r);
      case 'wait':
        if (step.later) {
          // A hung hook keeps the lease (renewed) until it settles; then the walk goes on.
          if (!(await lease.put(r))) return stuck(ctx, kind, lease, written, r);
          continueLater(ctx, kind, lease, r, step.later, options);
          return { forgotten: false, record: r };
        }
        return (await lease.putAndRelease(r, step.dueAt ?? ctx.config.clock().getTime() + backoffMs(r.attempts)))
          ? { forgotten: false, record: r }
          : stuck(ctx, kind, lease, written, r);
      case 'run-hook':
        if (r.hook === 'none' || r.hook === 'resolved') {
          step = { event: 'hook-resolved' };
          continue;
        }
        if (!options.hook) {
          step = { event: 'hook-unavailable' };
          continue;
        }
        // Never run a hook the ledger has not recorded the payment for: another holder may be
        // running it. The payment is kept; settlement finds it and runs the hook then.
        if (!(await lease.put(r))) return stuck(ctx, kind, lease, written, r);
        written = r;
        step = await runHook(ctx, kind, r, options.hook, first.event === 'hook-again');
        continue;
      case 'reverse': {
        r = { ...r, reversalTried: true };
        // Written first: a reversal is never sent by a holder that no longer holds the record.
        if (!(await lease.put(r))) return stuck(ctx, kind, lease, written, r);
        written = r;
        const request = reverseNow ? reverseNow() : kind.reversal?.(r);
        reverseNow = undefined;
        step = { event: request ? await reverse(ctx, r, request) : 'reversal-failed' };
        // A reversal that was not confirmed leaves money the shop did not record: an error until
        // settlement ends it; a confirmed one (or nothing to reverse) is a warning.
        const failed = step.event === 'reversal-failed';
        logger[failed ? 'error' : 'warn'](
          { tid: r.tid, moid: r.moid, step: 'reversal', outcome: step.event, reason: r.reason },
          `${kind.what}: outcome unknown or hook failed; reversal ${failed ? 'not confirmed: settlement retries it' : 'done'}`,
        );
        continue;
      }
    }
  }
}

/** `data` without `keys`. */
function without(data: Record<string, string>, keys: readonly string[]): Record<string, string> {
  const out = { ...data };
  for (const key of keys) delete out[key];
  return out;
}

/** Where a walk ends when a write failed: what the store holds now, read back ({@link stuckEnd}). */
async function stuck(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  lease: Lease,
  written: LedgerRecord,
  next: LedgerRecord,
): Promise<WalkEnd> {
  return { forgotten: false, record: await stuckEnd(ctx, kind, lease.key, written, next) };
}

/**
 * How long after a hook run again first rejected an earlier run can no longer be under way: the
 * earlier holder's lease has run out by then (it was renewed no more), and its hook had twice
 * its timeout. Until then a rejection is tried again, never reversed: the earlier run may yet
 * record the payment (it held what the rerun waited for), and reversing it would refund an order
 * the shop recorded as paid.
 */
function rerunRejectionWindowMs(hookTimeoutMs: number): number {
  return LEASE_MS + 2 * hookTimeoutMs;
}

/**
 * Runs the shop's hook on a committed record; its own promise decides (hook-runner-verdict.ts).
 * A run `again` (settlement's, or a repeat's, after an earlier run that never finished) that
 * rejects is tried again until {@link rerunRejectionWindowMs} has passed since it first did.
 */
async function runHook<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  r: LedgerRecord,
  hook: NonNullable<WalkOptions<R>['hook']>,
  again: boolean,
): Promise<Step> {
  const { logger } = ctx.config;
  const result = kind.result(r, false);
  const call = callHook((context) => hook.run(result, context), hook.timeoutMs);
  const toStep = (v: Exclude<HookVerdict, { kind: 'hung' }>): Step => {
    if (v.kind === 'resolved') {
      if (v.late)
        logger.warn(
          { tid: r.tid, moid: r.moid, step: 'on-approved' },
          'onApproved settled after its signal aborted; it resolved, so the payment is kept',
        );
      return { event: 'hook-resolved', patch: { hook: 'resolved' } };
    }
    logger.error(
      { tid: r.tid, moid: r.moid, step: 'on-approved', late: v.late, error: errorText(v.error) },
      'onApproved failed',
    );
    // The record keeps its own copy: the hook's message may be cut from request data.
    const reason = ownCopy(`onApproved failed: ${errorText(v.error)}`);
    const now = ctx.config.clock().getTime();
    const firstRejected = r.hookRejectedAt ?? now;
    if (again && now - firstRejected < rerunRejectionWindowMs(hook.timeoutMs))
      return { event: 'hook-rejected-again', patch: { hook: 'rejected', hookRejectedAt: firstRejected, reason } };
    return { event: 'hook-rejected', patch: { hook: 'rejected', reason } };
  };
  const verdict = await call.verdict;
  if (verdict.kind !== 'hung') return toStep(verdict);
  logger.error(
    { tid: r.tid, moid: r.moid, step: 'on-approved' },
    `onApproved has not settled ${2 * hook.timeoutMs} ms after it started; the payment is kept and not reversed while it runs`,
  );
  return {
    event: 'hook-hung',
    patch: { hook: 'hung', reason: `onApproved did not settle within ${2 * hook.timeoutMs} ms after it started` },
    later: call.settled.then(toStep),
  };
}

/** Goes on with a walk once a hung hook settled, answering nobody (the caller was told). */
function continueLater<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  lease: Lease,
  r: LedgerRecord,
  later: Promise<Step>,
  options: WalkOptions<R>,
): void {
  void later
    .then((step) => walk(ctx, kind, lease, r, step, { hook: options.hook }))
    .catch((err: unknown) =>
      ctx.config.logger.error(
        { tid: r.tid, moid: r.moid, step: 'on-approved', error: errorText(err) },
        'the ledger could not finish after a late hook',
      ),
    );
}
