import type { ClientContext } from '../context.js';
import { NicepayRequestError } from '../errors/index.js';
import type { RecordCodec } from '../store/run-once.js';
import { runFlowOnce } from './flow-once.js';
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
 * The run-once step ({@link runFlowOnce}) of a flow done once per Moid: a repeat of the Moid
 * whose amount or digest differs from the stored one is refused (NICEPAY_DUPLICATE_MISMATCH,
 * nothing sent). Returns the record and whether it is a repeat.
 */
export function runOncePerMoid<R extends MoidRecord>(ctx: ClientContext, once: OncePerMoid<R>, work: () => Promise<R>): Promise<{ record: R; duplicate: boolean }> {
  return runFlowOnce(ctx, {
    key: once.key,
    lockTtlMs: once.lockTtlMs,
    resultTtlMs: once.resultTtlMs,
    codec: once.codec,
    ids: { moid: once.moid },
    noResult: () => new Error(once.noResult),
    notStored: once.notStored,
    binding: {
      matches: (record) => {
        const stored = once.digestOf(record);
        return record.amount === once.amount && typeof stored === 'string' && digestEquals(stored, once.digest);
      },
      mismatch: () => new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', once.mismatch, 'moid'),
    },
  }, work);
}
