import type { ResolvedConfig } from '../config.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { approvalSignData } from '../wire/signatures.js';

/** The signed core of the approval form, shared by approval and net cancel. */
export interface SignedApprovalFields {
  TID: string;
  AuthToken: string;
  MID: string;
  Amt: string;
  /** YYYYMMDDHHMISS in KST, from the configured clock. */
  EdiDate: string;
  /** sha256(AuthToken + MID + Amt + EdiDate + merchantKey), see approvalSignData. */
  SignData: string;
}

/**
 * Builds TID, AuthToken, MID, Amt, EdiDate and SignData for an approval or its net cancel
 * (gateway-interface.md, A: net cancel resends the approval's fields plus NetCancel=1).
 * EdiDate is stamped now, so each call signs afresh.
 */
export function signedApprovalFields(
  config: Pick<ResolvedConfig, 'mid' | 'merchantKey' | 'clock'>,
  tid: string,
  authToken: string,
  amount: number,
): SignedApprovalFields {
  const amt = String(amount);
  const ediDate = kstTimestamp14(config.clock());
  return {
    TID: tid,
    AuthToken: authToken,
    MID: config.mid,
    Amt: amt,
    EdiDate: ediDate,
    SignData: approvalSignData(authToken, config.mid, amt, ediDate, config.merchantKey),
  };
}
