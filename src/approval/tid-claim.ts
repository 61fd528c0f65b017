import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { storeErrorText } from '../store/run-once.js';
import type { IdempotencyStore } from '../store/types.js';
import { digestEquals } from '../util/secret-digest.js';

/** A TxTid held for one AuthToken while its approval runs. */
export interface TidClaim {
  /**
   * Ends the claim: `own` writes the token's digest as the TID's owner (the gateway accepted,
   * or may have accepted, this token), otherwise the TID is left free.
   */
  settle(own: boolean, logger: Logger, ttlMs: number): Promise<void>;
}

/**
 * Claims a TxTid for the token whose digest is `tokenDigest` before its approval is sent.
 * The auth-return Signature covers AuthToken+MID+Amt, not the TxTid, so a
 * buyer can post another buyer's TxTid with their own genuine token. Results are keyed by
 * token already; this claim adds the TID-wide rule: once a token's approval committed (or may
 * have), any other token on that TID is refused with 409 NICEPAY_DUPLICATE_MISMATCH without a
 * gateway call; while another token's approval is in flight, 409 NICEPAY_IN_PROGRESS. A token
 * whose approval was declined never becomes the owner, so whoever posts first cannot block
 * the rightful buyer.
 */
export async function claimTid(store: IdempotencyStore, key: string, tokenDigest: string, lockTtlMs: number): Promise<TidClaim> {
  let got;
  try {
    got = await store.acquire(key, lockTtlMs);
  } catch (err) {
    throw new NicepayServiceError('NICEPAY_STORE_UNAVAILABLE', 'idempotency store unavailable; nothing was sent, retry shortly', err);
  }
  if (got.state === 'busy') {
    throw new NicepayRequestError('NICEPAY_IN_PROGRESS', 'another authentication of this transaction is being approved; retry shortly');
  }
  if (got.state === 'done') {
    if (!digestEquals(got.value, tokenDigest)) {
      throw new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', 'this TxTid was already approved for another authentication; nothing was sent', 'TxTid');
    }
    // Owned by this very token, whose own result was lost: approving again lets the gateway
    // say it was already processed (an unknown outcome to reconcile), never a second charge.
    return { settle: async () => {} };
  }
  const lock = got.token;
  return {
    async settle(own, logger, ttlMs) {
      try {
        if (own) await store.complete(key, lock, tokenDigest, ttlMs);
        else await store.release(key, lock);
      } catch (err) {
        // The lock expires anyway; an owner not written only weakens the 409 for other tokens.
        logger.error({ step: 'store', error: storeErrorText(err) }, 'TxTid claim not settled');
      }
    },
  };
}
