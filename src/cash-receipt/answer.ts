import { readAnswerFields, readResultCode, resultCodeProblem } from '../pipeline/index.js';
import { parseAmount } from '../wire/amount.js';
import type { Charset } from '../wire/charset.js';
import { RECEIPT_ISSUED_CODE } from '../wire/receipt-fields.js';
import { type EdiType, type GatewayFields, ownField } from '../wire/response-body.js';

/** How a receipt answer reads. `unknown`: a receipt may have been issued and the answer cannot say. */
export type ReceiptAnswer =
  | { kind: 'issued'; raw: GatewayFields }
  | { kind: 'refused'; code: string; message: string; raw: GatewayFields }
  | { kind: 'unknown'; reason: string };

/**
 * Reads a receipt answer strictly: 7001 naming our TID, with an AuthCode, is issued (and an
 * MID, Moid or ReceiptAmt it carries must be ours); another exact code is a refusal unless it
 * names another TID. The facts publish no failure codes: every other code is a refusal.
 */
export function readReceiptAnswer(body: Buffer, sent: { mid: string; moid: string; tid: string; amount: number; charset: Charset; ediType: EdiType }): ReceiptAnswer {
  const parsed = readAnswerFields(body, sent.charset, sent.ediType);
  if (!parsed.ok) return { kind: 'unknown', reason: parsed.reason };
  const raw = parsed.raw;
  const reading = readResultCode(raw);
  if (reading.kind !== 'code') return { kind: 'unknown', reason: resultCodeProblem(reading) };
  const tid = ownField(raw, 'TID') ?? '';
  const other = (name: string, value: string): boolean => {
    const got = ownField(raw, name);
    return got !== undefined && got !== '' && got !== value;
  };
  if (other('MID', sent.mid)) return { kind: 'unknown', reason: 'the answer names another MID' };
  if (other('Moid', sent.moid)) return { kind: 'unknown', reason: 'the answer names another Moid' };
  if (reading.code === RECEIPT_ISSUED_CODE) {
    if (tid !== sent.tid) return { kind: 'unknown', reason: 'the receipt answer names another TID' };
    const amt = ownField(raw, 'ReceiptAmt');
    if (amt !== undefined && amt !== '' && parseAmount(amt) !== sent.amount) return { kind: 'unknown', reason: 'the receipt answer reports another ReceiptAmt than was sent' };
    if (!ownField(raw, 'AuthCode')) return { kind: 'unknown', reason: 'the receipt answer has no AuthCode' };
    return { kind: 'issued', raw };
  }
  if (tid !== '' && tid !== sent.tid) return { kind: 'unknown', reason: 'the refusal names another TID' };
  return { kind: 'refused', code: reading.code, message: ownField(raw, 'ResultMsg') ?? '', raw };
}
