import { sha256Hex } from './hash.js';

/*
 * Every integrity rule of gateway-interface.md "Authentication" plus the two from
 * gateway-facts.md (auth-return Signature, net-cancel response Signature) and the payment
 * window's SignData. Plain concatenation in the listed order, lowercase hex.
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

/** Net-cancel response Signature (gateway-facts): sha256(TID + MID + CancelAmt + key). */
export function netCancelResponseSignature(tid: string, mid: string, cancelAmt: string, key: string): string {
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
