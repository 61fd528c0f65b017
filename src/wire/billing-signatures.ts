import { sha256Hex } from './hash.js';

/*
 * The SignData rules of recurring billing (docs/spec/billing-facts.md §1). They differ only in
 * what follows Moid: nothing (register), Amt + BID (charge), BID (remove). Plain
 * concatenation, lowercase hex.
 */

/** Registration SignData: sha256(MID + EdiDate + Moid + key). */
export function billingRegisterSignData(mid: string, ediDate: string, moid: string, key: string): string {
  return sha256Hex(mid + ediDate + moid + key);
}

/** Charge SignData: sha256(MID + EdiDate + Moid + Amt + BID + key). */
export function billingChargeSignData(
  mid: string,
  ediDate: string,
  moid: string,
  amt: string,
  bid: string,
  key: string,
): string {
  return sha256Hex(mid + ediDate + moid + amt + bid + key);
}

/** Removal SignData: sha256(MID + EdiDate + Moid + BID + key) (no Amt). */
export function billingRemoveSignData(mid: string, ediDate: string, moid: string, bid: string, key: string): string {
  return sha256Hex(mid + ediDate + moid + bid + key);
}
