import type { ClientContext } from '../context.js';
import { readStored } from './ledger.js';
import type { LedgerRecord, LedgerState } from './ledger-record.js';
import type { OperationKind } from './operation.js';
import { reverse } from './reversal.js';

/** Closed states in which the ledger holds no money for the operation. */
const NOTHING_HELD: ReadonlySet<LedgerState> = new Set(['never-charged', 'reversed', 'declined']);

/**
 * Where a walk ends when a write was refused or failed. Another process may have taken the
 * record over while this holder paused (its lease ran out), so the record is read back:
 * - closed by the other holder: that outcome is what the caller is told;
 * - closed as holding no money (never charged, reversed, declined) while this holder's request
 *   was committed by the gateway (it left after the other closed the record, which nobody will
 *   look at again): this holder reverses it itself, and says so on the error log when it cannot;
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
  const charged = next.state === 'committed' || next.state === 'recorded' || written.state === 'committed';
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
  logger.warn(
    log,
    `${kind.what}: the gateway committed it after another process closed its record as ${held.state}; reversed`,
  );
  return held;
}
