import { parseAmount } from '../wire/amount.js';
import { CANCEL_DONE_CODES, CANCEL_RETRY_CODES, REFUND_PENDING_CODE, cancelRefusalReason } from '../wire/cancel-codes.js';
import { hexEquals } from '../wire/hash.js';
import { parseKstTimestamp } from '../wire/kst.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { ownField } from '../wire/response-body.js';
import { readAnswerFields, readResultCode, resultCodeProblem, withMerchantKeyHint } from '../pipeline/answer.js';
import type { CancelResult } from './types.js';

/** What a cancel answer says, before the store and the shop see it. */
export type CancelAnswer =
  | { kind: 'result'; result: CancelResult }
  /** 2056 / 1227: nothing happened, the gateway asks for a retry. */
  | { kind: 'retry'; code: string; message: string }
  /** The answer cannot be trusted or read: the cancel may have happened. */
  | { kind: 'unverifiable'; reason: string; code?: string };

/** What the answer must match: the request as sent. */
export interface CancelExpectation {
  tid: string;
  mid: string;
  moid: string;
  /** The cancel's own Moid, as sent. */
  cancelMoid: string;
  amount: number;
  merchantKey: string;
}

/**
 * Reads a cancel answer (UTF-8 JSON, as asked): ResultCode decides the kind; a cancel or refund
 * is believed only with a Signature = sha256(TID + MID + CancelAmt + key) over the answer's own
 * strings, for this TID and MID and for the amount asked (the Signature covers neither
 * ResultCode nor RemainAmt, so both are checked on their own).
 */
export function readCancelAnswer(body: Buffer, e: CancelExpectation): CancelAnswer {
  const read = readAnswerFields(body, 'utf-8', 'JSON');
  if (!read.ok) return { kind: 'unverifiable', reason: `cancel answer unreadable (${read.reason})` };
  const { raw } = read;
  // A code not exactly documented ("2001 ") is neither a cancel nor a refusal: the cancel may
  // have happened.
  const reading = readResultCode(raw);
  if (reading.kind !== 'code') return { kind: 'unverifiable', reason: `cancel ${resultCodeProblem(reading)}` };
  const { code } = reading;
  const message = ownField(raw, 'ResultMsg') ?? '';
  if (CANCEL_RETRY_CODES.has(code)) return { kind: 'retry', code, message };
  const done = CANCEL_DONE_CODES.has(code) || code === REFUND_PENDING_CODE;
  if (!done) {
    // A refused signature says which setting to check (the merchant key), like every flow.
    return { kind: 'result', result: { status: 'refused', tid: e.tid, moid: e.moid, cancelMoid: e.cancelMoid, code, message: withMerchantKeyHint(code, message), reason: cancelRefusalReason(code), duplicate: false, raw } };
  }
  const tid = ownField(raw, 'TID') ?? '';
  const mid = ownField(raw, 'MID') ?? '';
  const cancelAmt = ownField(raw, 'CancelAmt') ?? '';
  if (!hexEquals(cancelResponseSignature(tid, mid, cancelAmt, e.merchantKey), ownField(raw, 'Signature') ?? '')) {
    return { kind: 'unverifiable', reason: `cancel answer ${code} has a Signature that does not verify`, code };
  }
  if (tid !== e.tid || mid !== e.mid) return { kind: 'unverifiable', reason: `cancel answer ${code} is for another TID or MID`, code };
  if (parseAmount(cancelAmt) !== e.amount) return { kind: 'unverifiable', reason: `cancel answer ${code} reports another CancelAmt`, code };
  const remainText = ownField(raw, 'RemainAmt');
  const remainingAmount = remainText ? parseAmount(remainText) : undefined;
  if (remainText && remainingAmount === undefined) return { kind: 'unverifiable', reason: `cancel answer ${code} has an unreadable RemainAmt`, code };
  const date = ownField(raw, 'CancelDate') ?? '';
  const time = ownField(raw, 'CancelTime') ?? '';
  const cancelledAt = /^\d{8}$/.test(date) && /^\d{6}$/.test(time) ? parseKstTimestamp(date + time) : undefined;
  const common = {
    tid, moid: e.moid, cancelMoid: e.cancelMoid, cancelledAmount: e.amount, remainingAmount, cancelledAt, cancelNum: ownField(raw, 'CancelNum') ?? '',
    code, message, duplicate: false, raw,
  };
  return { kind: 'result', result: code === REFUND_PENDING_CODE ? { status: 'refund-pending', ...common } : { status: 'cancelled', ...common } };
}
