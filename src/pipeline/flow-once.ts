import type { ClientContext } from '../context.js';
import { type RecordCodec, runOnce, storeErrorText } from '../store/run-once.js';

/** One flow's run-once declaration: its key, its record's codec, and what a repeat must match. */
export interface FlowOnce<R> {
  /** The store key: one per thing that must happen once (a TxTid and token, a Moid, a cancel). */
  key: string;
  lockTtlMs: number;
  resultTtlMs: number;
  codec: RecordCodec<R>;
  /** What the store-failure log line names (never a secret). */
  ids: { tid?: string; moid?: string };
  /** The error when the store hands back nothing (a store bug). */
  noResult(): Error;
  /** The log line when the result could not be stored (a repeat may do the work again). */
  notStored: string;
  /**
   * A repeat is served the stored record only when it is the same request (same token, card,
   * BID, amount...): `matches` says so, `mismatch` is the error otherwise. Absent: every repeat of
   * the key is the same request.
   */
  binding?: { matches(record: R): boolean; mismatch(): Error };
}

/**
 * The pipeline's run-once step: runs `work` at most once per key across everything sharing the
 * store, logs a result the store could not keep, and refuses a repeat bound to another request.
 * Returns the record (this request's own, or the stored one) and whether it is a repeat.
 */
export async function runFlowOnce<R>(ctx: ClientContext, once: FlowOnce<R>, work: () => Promise<R>): Promise<{ record: R; duplicate: boolean }> {
  const { config } = ctx;
  const outcome = await runOnce(config.store, once.key, { lockTtlMs: once.lockTtlMs, resultTtlMs: once.resultTtlMs }, work, once.codec);
  if (!outcome) throw once.noResult();
  if (!outcome.stored) {
    const tid = once.ids.tid ?? (outcome.value as { tid?: unknown }).tid;
    config.logger.error({ ...(typeof tid === 'string' ? { tid } : {}), ...(once.ids.moid ? { moid: once.ids.moid } : {}), step: 'store', error: storeErrorText(outcome.storeError) }, once.notStored);
  }
  const duplicate = !outcome.fresh;
  // Only the same request gets the stored result; anything else is refused without a call.
  if (duplicate && once.binding && !once.binding.matches(outcome.value)) throw once.binding.mismatch();
  return { record: outcome.value, duplicate };
}
