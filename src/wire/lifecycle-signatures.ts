import { sha256Hex } from './hash.js';

/*
 * Integrity rules of the rest of a payment's life (lifecycle-facts.md §2 and §4): plain
 * concatenation in the listed order, lower-case hex. Known-answer tests:
 * test/wire-lifecycle.test.ts against test/fixtures/lifecycle-vectors.json.
 */

/** Cancel request SignData (lifecycle-facts §2): sha256(MID + CancelAmt + EdiDate + key). TID is not covered. */
export function cancelSignData(mid: string, cancelAmt: string, ediDate: string, key: string): string {
  return sha256Hex(mid + cancelAmt + ediDate + key);
}

/**
 * Cancel answer Signature (lifecycle-facts §2): sha256(TID + MID + CancelAmt + key) over the
 * answer's own strings. It covers neither ResultCode nor RemainAmt: check those separately.
 */
export function cancelResponseSignature(tid: string, mid: string, cancelAmt: string, key: string): string {
  return sha256Hex(tid + mid + cancelAmt + key);
}

/** Status inquiry SignData (lifecycle-facts §4): sha256(TID + MID + EdiDate + key). */
export function statusSignData(tid: string, mid: string, ediDate: string, key: string): string {
  return sha256Hex(tid + mid + ediDate + key);
}
