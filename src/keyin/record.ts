import { NicepayGatewayError } from '../errors/index.js';
import type { CardPayment } from '../types/payment.js';
import { mapPayment } from '../wire/payment-mapper.js';
import type { KeyinResult } from './types.js';

/**
 * What the idempotency store keeps per Moid: the gateway's answer (no card data: CardNo in
 * it is masked) plus the request fields the key-in answer does not echo. JSON-serialisable.
 */
export type KeyinRecord = RecordBase & (
  | { kind: 'approved'; raw: Record<string, string> }
  | { kind: 'declined'; code: string; message: string; raw: Record<string, string> }
  | { kind: 'unknown'; reason: string; code?: string }
);

interface RecordBase {
  tid: string;
  moid: string;
  amount: number;
  /** Keyed digest of the card number and expiry that were charged (never the number). */
  cardDigest: string;
  goodsName: string;
  buyerName: string;
  buyerEmail: string;
  buyerTel: string;
}

/**
 * Turns a stored record into the caller's result. An unknown outcome is thrown as
 * NICEPAY_OUTCOME_UNKNOWN every time the Moid is submitted, so a retry never charges twice
 * before the shop has reconciled the TID.
 */
export function recordToResult(record: KeyinRecord, mid: string, duplicate: boolean): KeyinResult {
  const { tid, moid, amount } = record;
  switch (record.kind) {
    case 'approved': {
      const payment = mapPayment(record.raw, 'CARD', amount) as CardPayment;
      // The key-in answer does not echo these; fill them from what was sent.
      payment.mid ||= mid;
      payment.moid ||= moid;
      payment.goodsName ||= record.goodsName;
      payment.buyerName ||= record.buyerName;
      payment.buyerEmail ||= record.buyerEmail;
      payment.buyerTel ||= record.buyerTel;
      return { status: 'approved', payment, tid, moid, amount, duplicate };
    }
    case 'declined':
      return { status: 'declined', code: record.code, message: record.message, tid, moid, amount, duplicate, raw: Object.freeze({ ...record.raw }) };
    case 'unknown':
      throw new NicepayGatewayError(
        'NICEPAY_OUTCOME_UNKNOWN',
        `key-in of order ${moid} (TID ${tid}) has an unknown outcome: ${record.reason}. The card may have been charged: ` +
          `reconcile this TID with the gateway before charging again${duplicate ? ' (this Moid was submitted before; it is not sent again)' : ''}`,
        { tid, moid, ...(record.code ? { resultCode: record.code } : {}) },
      );
    default: {
      const never: never = record;
      throw new Error(`unknown key-in record ${String(never)}`);
    }
  }
}
