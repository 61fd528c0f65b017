import { sha256Hex } from './hash.js';

/*
 * Every integrity rule of gateway-interface.md "Authentication" plus the two from
 * gateway-facts.md (auth-return Signature, cancel answer Signature), the payment window's
 * SignData, and the cancel and status inquiry rules of lifecycle-facts.md §2 and §4. Plain
 * concatenation in the listed order, lowercase hex.
 */

/** Approval request SignData: sha256(AuthToken + MID + Amt + EdiDate + key). Also used by net cancel. */
export function approvalSignData(authToken: string, mid: string, amt: string, ediDate: string, key: string): string {
  return sha256Hex(authToken + mid + amt + ediDate + key);
}

/** Approval response Signature: sha256(TID + MID + Amt + key), Amt exactly as received. */
export function approvalResponseSignature(tid: string, mid: string, amt: string, key: string): string {
  return sha256Hex(tid + mid + amt + key);
}

/** Auth-return Signature (gateway-facts): sha256(AuthToken + MID + Amt + key). */
export function authReturnSignature(authToken: string, mid: string, amt: string, key: string): string {
  return sha256Hex(authToken + mid + amt + key);
}

/**
 * Answer Signature of the cancel endpoint, for a net cancel (gateway-facts) and a cancel or
 * refund (lifecycle-facts §2) alike: sha256(TID + MID + CancelAmt + key) over the answer's own
 * strings. It covers neither ResultCode nor RemainAmt: check those separately.
 */
export function cancelResponseSignature(tid: string, mid: string, cancelAmt: string, key: string): string {
  return sha256Hex(tid + mid + cancelAmt + key);
}

/** Card key-in request SignData: sha256(MID + Amt + EdiDate + Moid + key). */
export function keyinSignData(mid: string, amt: string, ediDate: string, moid: string, key: string): string {
  return sha256Hex(mid + amt + ediDate + moid + key);
}

/** Payment-window request SignData: sha256(EdiDate + MID + Amt + key). */
export function windowSignData(ediDate: string, mid: string, amt: string, key: string): string {
  return sha256Hex(ediDate + mid + amt + key);
}

/** Payout body.encKey: sha256(sid + mid + trDtm + key). */
export function payoutEncKey(sid: string, mid: string, trDtm: string, key: string): string {
  return sha256Hex(sid + mid + trDtm + key);
}

/** Reconciliation body.encKey: sha256(sid + usrId + trDtm + key). */
export function reconEncKey(sid: string, usrId: string, trDtm: string, key: string): string {
  return sha256Hex(sid + usrId + trDtm + key);
}

/** Cancel request SignData (lifecycle-facts §2): sha256(MID + CancelAmt + EdiDate + key). TID is not covered. */
export function cancelSignData(mid: string, cancelAmt: string, ediDate: string, key: string): string {
  return sha256Hex(mid + cancelAmt + ediDate + key);
}

/** Status inquiry SignData (lifecycle-facts §4): sha256(TID + MID + EdiDate + key). */
export function statusSignData(tid: string, mid: string, ediDate: string, key: string): string {
  return sha256Hex(tid + mid + ediDate + key);
}
