import { NicepayGatewayError, NicepayHookError, type NetCancelOutcome } from '../errors/index.js';
import type { CardPayment } from '../types/payment.js';
import { mapPayment } from '../wire/payment-mapper.js';
import type { ApprovedBillingCharge, BillingChargeResult } from './types.js';

/**
 * What the idempotency store keeps per charged Moid: the gateway's answer (no card data, no
 * BID: CardNo in it is masked, the BID is removed) plus the request fields the answer does
 * not echo and a keyed digest of the BID that was charged. JSON-serialisable.
 */
export type ChargeRecord = ChargeBase & (
  | { kind: 'approved'; raw: Record<string, string> }
  | { kind: 'declined'; code: string; message: string; raw: Record<string, string> }
  /** The answer was lost or unusable; the net cancel was tried. */
  | { kind: 'unknown'; reason: string; netCancel: NetCancelOutcome }
  /** The charge was approved but onApproved rejected or never settled; the net cancel was tried when it rejected. */
  | { kind: 'hook-failed'; reason: string; netCancel: NetCancelOutcome }
);

interface ChargeBase {
  tid: string;
  moid: string;
  amount: number;
  /** Keyed digest of the BID charged (never the BID). */
  bidDigest: string;
  goodsName: string;
  buyerName: string;
  buyerEmail: string;
  buyerTel: string;
}

/** The approved result of a record (for the hook, before anything is stored). */
export function approvedResult(record: ChargeBase & { raw: Record<string, string> }, mid: string, duplicate: boolean): ApprovedBillingCharge {
  const payment = mapPayment(record.raw, 'CARD', record.amount) as CardPayment;
  // The charge answer does not echo these; fill them from what was sent.
  payment.mid ||= mid;
  payment.moid ||= record.moid;
  payment.goodsName ||= record.goodsName;
  payment.buyerName ||= record.buyerName;
  payment.buyerEmail ||= record.buyerEmail;
  payment.buyerTel ||= record.buyerTel;
  return { status: 'approved', payment, tid: record.tid, moid: record.moid, amount: record.amount, duplicate };
}

/**
 * Turns a stored record into the caller's result. An unknown outcome or a failed hook is
 * thrown every time the Moid is submitted, with what became of the net cancel, so a retry
 * never charges twice before the shop has reconciled the TID.
 */
export function chargeResult(record: ChargeRecord, mid: string, duplicate: boolean): BillingChargeResult {
  const { tid, moid, amount } = record;
  const again = duplicate ? ' (this Moid was submitted before; it is not sent again)' : '';
  switch (record.kind) {
    case 'approved':
      return approvedResult(record, mid, duplicate);
    case 'declined':
      return { status: 'declined', code: record.code, message: record.message, tid, moid, amount, duplicate, raw: Object.freeze({ ...record.raw }) };
    case 'unknown':
      throw new NicepayGatewayError(
        'NICEPAY_OUTCOME_UNKNOWN',
        `billing charge of order ${moid} (TID ${tid}) has an unknown outcome: ${record.reason}; net cancel ${record.netCancel}` +
          `${record.netCancel === 'succeeded' ? ': nothing stays charged' : ': the card may have been charged, reconcile this TID'}${again}`,
        { tid, moid, netCancel: record.netCancel },
      );
    case 'hook-failed':
      throw new NicepayHookError(
        'NICEPAY_HOOK_FAILED',
        `onApproved of billing charge ${moid} (TID ${tid}) failed: ${record.reason}; net cancel ${record.netCancel}` +
          `${record.netCancel === 'succeeded' ? ': the charge was reversed' : ': the card may stay charged, reconcile this TID'}${again}`,
        { tid, moid, netCancel: record.netCancel },
      );
    default: {
      const never: never = record;
      throw new Error(`unknown billing record ${String(never)}`);
    }
  }
}
