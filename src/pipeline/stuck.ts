import type { ClientContext } from '../context.js';
import { readStored } from './ledger.js';
import type { LedgerRecord, LedgerState } from './ledger-record.js';
import type { OperationKind } from './operation.js';
import { reverse } from './reversal.js';

/** Closed states in which the ledger holds no money for the operation. */
const NOTHING_HELD: ReadonlySet<LedgerState> = new Set(['never-charged', 'reversed', 'declined']);

/**
 * States this holder moves to only when its request may have been committed by the gateway: a
 * verified success, or an answer it could not use (lost, unverifiable: money may have moved).
 */
const MAYBE_CHARGED: ReadonlySet<LedgerState> = new Set(['committed', 'recorded', 'unknown', 'reversing']);

/**
 * Where a walk ends when a write was refused or failed. Another process may have taken the
 * record over while this holder paused (its lease ran out), so the record is read back:
 * - closed by the other holder: that outcome is what the caller is told;
 * - closed as holding no money (never charged, reversed, declined) while this holder's request
 *   may have been committed by the gateway (it left after the other closed the record, which
 *   nobody will look at again: a success, or an answer lost or unverifiable): this holder
 *   reverses it itself (a reversal of nothing finds it never charged), tells its caller what it
 *   did, and says so on the error log when it cannot;
 * - open, or unreadable: the record as the store last took it from this holder, which
 *   settlement continues from.
 */
export async function stuckEnd(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  key: string,
  written: LedgerRecord,
  next: LedgerRecord,
): Promise<LedgerRecord> {
  const { store, logger } = ctx.config;
  const fallback: LedgerRecord = {
    ...written,
    reason: `the ledger store could not record the ${kind.what}'s next state (${next.state}); settlement continues from the last one recorded`,
  };
  let held: LedgerRecord | undefined;
  try {
    const stored = await store.get(key);
    held = stored && !stored.open ? readStored(stored) : undefined;
  } catch {
    return fallback;
  }
  if (!held || held.tid !== next.tid) return fallback;
  const charged = MAYBE_CHARGED.has(next.state) || MAYBE_CHARGED.has(written.state);
  if (!charged || !NOTHING_HELD.has(held.state)) return held;
  const request = kind.reversal?.(next);
  const outcome = request ? await reverse(ctx, next, request) : 'reversal-failed';
  const log = { operation: next.op, tid: next.tid, moid: next.moid, step: 'reversal', outcome };
  if (outcome === 'reversal-failed') {
    logger.error(
      log,
      `${kind.what}: the gateway committed it after another process closed its record as ${held.state}, and its reversal was not confirmed: it needs attention`,
    );
    return {
      ...next,
      state: 'unknown',
      attention: true,
      reason: `committed by the gateway after another process closed the record as ${held.state}; its reversal was not confirmed: it needs attention`,
    };
  }
  if (outcome === 'gateway-none') return held;
  logger.warn(
    log,
    `${kind.what}: the gateway committed it after another process closed its record as ${held.state}; reversed`,
  );
  return {
    ...next,
    state: 'reversed',
    reversalTried: true,
    reason: `the gateway committed it after another process had closed the record as ${held.state}, and this process reversed it`,
  };
}
