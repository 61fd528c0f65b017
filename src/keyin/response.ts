import { parseAmount } from '../wire/amount.js';
import type { Charset } from '../wire/charset.js';
import { DuplicateFieldError, type GatewayFields, ownField, parseGatewayBody } from '../wire/response-body.js';
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
  | { kind: 'unverifiable'; reason: string };

/**
 * Decodes and checks a key-in response with the approval's own parser (parseGatewayBody: the
 * charset and EdiType asked for, whatever the Content-Type says). A 3001 must carry our
 * TID, MID (when present), Moid (when present) and the amount sent; anything else is a
 * decline, unless it names another transaction. Reasons never contain field values.
 */
export function readKeyinAnswer(body: Buffer, sent: SentKeyin): KeyinAnswer {
  let raw: GatewayFields;
  try {
    raw = parseGatewayBody(body, sent.charset, sent.ediType);
  } catch (err) {
    // Such an answer can be read two ways; key-in has no net cancel, so its outcome is unknown
    // (issue 18 item 6).
    if (err instanceof DuplicateFieldError) return { kind: 'unverifiable', reason: 'the answer names a field twice, so it can be read two ways' };
    return { kind: 'unverifiable', reason: `the answer is not ${sent.ediType} in ${sent.charset}` };
  }
  const code = ownField(raw, 'ResultCode') ?? '';
  if (!/^[A-Za-z0-9]{4}$/.test(code)) return { kind: 'unverifiable', reason: 'the answer has no 4-character ResultCode' };
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
