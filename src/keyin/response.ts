import { parseAmount } from '../wire/amount.js';
import type { Charset } from '../wire/charset.js';
import { readAnswerFields, readResultCode, resultCodeProblem } from '../pipeline/answer.js';
import { type GatewayFields, ownField } from '../wire/response-body.js';
import { KEYIN_SUCCESS_CODE } from '../wire/keyin-fields.js';
import type { KeyinEdiType } from './types.js';

/** What the client sent, to check the answer against. */
export interface SentKeyin {
  tid: string;
  mid: string;
  moid: string;
  amount: number;
  charset: Charset;
  ediType: KeyinEdiType;
}

/** How a key-in answer reads. `unverifiable` means the outcome is unknown. */
export type KeyinAnswer =
  | { kind: 'approved'; raw: GatewayFields }
  | { kind: 'declined'; code: string; message: string; raw: GatewayFields }
  | { kind: 'unverifiable'; reason: string; code?: string };

/**
 * 1621 (duplicate request): the gateway saw this TID before, so an earlier key-in with it may
 * have been charged. Read as in approval: never a decline, an outcome to settle.
 */
const DUPLICATE_REQUEST = '1621';

/**
 * Decodes and checks a key-in response with the approval's own parser (parseGatewayBody: the
 * charset and EdiType asked for, whatever the Content-Type says). A 3001 must carry our
 * TID, MID (when present), Moid (when present) and the amount sent; anything else is a
 * decline, unless it names another transaction. Reasons never contain field values.
 */
export function readKeyinAnswer(body: Buffer, sent: SentKeyin): KeyinAnswer {
  // An answer naming a field twice can be read two ways; key-in has no net cancel, so its
  // outcome is unknown. So is a ResultCode that is not exactly a documented code.
  const read = readAnswerFields(body, sent.charset, sent.ediType);
  if (!read.ok) return { kind: 'unverifiable', reason: read.reason };
  const { raw } = read;
  const reading = readResultCode(raw);
  if (reading.kind !== 'code') return { kind: 'unverifiable', reason: resultCodeProblem(reading) };
  const { code } = reading;
  if (code === DUPLICATE_REQUEST) return { kind: 'unverifiable', reason: `the gateway answered ${code} (duplicate request): an earlier key-in with this TID may have been charged`, code };
  const tid = ownField(raw, 'TID') ?? '';
  if (code === KEYIN_SUCCESS_CODE) {
    if (tid !== sent.tid) return { kind: 'unverifiable', reason: 'the approval names another TID' };
    const mid = ownField(raw, 'MID');
    const moid = ownField(raw, 'Moid');
    if (mid !== undefined && mid !== sent.mid) return { kind: 'unverifiable', reason: 'the approval names another MID' };
    if (moid !== undefined && moid !== sent.moid) return { kind: 'unverifiable', reason: 'the approval names another Moid' };
    if (parseAmount(ownField(raw, 'Amt') ?? '') !== sent.amount) return { kind: 'unverifiable', reason: 'the approval reports another Amt than was sent' };
    return { kind: 'approved', raw };
  }
  // A decline may come without a TID (rejected before one was recorded), but not with another one.
  if (tid !== '' && tid !== sent.tid) return { kind: 'unverifiable', reason: 'the decline names another TID' };
  return { kind: 'declined', code, message: ownField(raw, 'ResultMsg') ?? '', raw };
}
