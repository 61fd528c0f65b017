import type { ClientContext } from '../context.js';
import { NicepayRequestError } from '../errors/index.js';
import { type RecordCodec, runOnce, storeErrorText } from '../store/run-once.js';
import { digestEquals } from '../util/secret-digest.js';

/** What every per-Moid record holds: the TID it was sent under and the amount. */
export interface MoidRecord {
  tid: string;
  amount: number;
}

/** One flow's once-per-Moid declaration. */
export interface OncePerMoid<R extends MoidRecord> {
  /** The store key (`flow:${mid}:${moid}`). */
  key: string;
  moid: string;
  /** The amount asked now: a stored record of another amount is a mismatch. */
  amount: number;
  /** Keyed digest of what pays or is issued now (never the secret itself). */
  digest: string;
  /** The digest a stored record holds (not a string in a record from elsewhere). */
  digestOf(record: R): unknown;
  lockTtlMs: number;
  resultTtlMs: number;
  codec: RecordCodec<R>;
  /** The error when the store hands back nothing (a store bug). */
  noResult: string;
  /** The log line when the result could not be stored. */
  notStored: string;
  /** The NICEPAY_DUPLICATE_MISMATCH message for a repeat of the Moid with another request. */
  mismatch: string;
}

/**
 * Runs `work` at most once per Moid through the store (run-once), logs a result the store
 * could not keep, and refuses a repeat of the Moid whose amount or digest differs from the
 * stored one (NICEPAY_DUPLICATE_MISMATCH, nothing sent). Returns the record and whether it
 * is a repeat.
 */
export async function runOncePerMoid<R extends MoidRecord>(ctx: ClientContext, once: OncePerMoid<R>, work: () => Promise<R>): Promise<{ record: R; duplicate: boolean }> {
  const { config } = ctx;
  const outcome = await runOnce(config.store, once.key, { lockTtlMs: once.lockTtlMs, resultTtlMs: once.resultTtlMs }, work, once.codec);
  if (!outcome) throw new Error(once.noResult);
  const record = outcome.value;
  if (!outcome.stored) {
    config.logger.error({ tid: record.tid, moid: once.moid, step: 'store', error: storeErrorText(outcome.storeError) }, once.notStored);
  }
  const duplicate = !outcome.fresh;
  // Only the same request gets the stored result; anything else is a new one under a used
  // Moid, refused without a gateway call.
  const stored = once.digestOf(record);
  if (duplicate && (record.amount !== once.amount || typeof stored !== 'string' || !digestEquals(stored, once.digest))) {
    throw new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', once.mismatch, 'moid');
  }
  return { record, duplicate };
}
