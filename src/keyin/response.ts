import { parseAmount } from '../wire/amount.js';
import { type Charset, decodeBytes } from '../wire/charset.js';
import { parseKv } from '../wire/kv.js';
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
  | { kind: 'approved'; raw: Record<string, string> }
  | { kind: 'declined'; code: string; message: string; raw: Record<string, string> }
  | { kind: 'unverifiable'; reason: string };

/**
 * Decodes and checks a key-in response: text in the charset asked for, parsed as the EdiType
 * asked for (the Content-Type is ignored, the gateway sends text/html). A 3001 must carry our
 * TID, MID (when present), Moid (when present) and the amount sent; anything else is a
 * decline, unless it names another transaction. Reasons never contain field values.
 */
export function readKeyinAnswer(body: Buffer, sent: SentKeyin): KeyinAnswer {
  let raw: Record<string, string>;
  try {
    raw = sent.ediType === 'KV' ? { ...parseKv(body, sent.charset) } : parseJsonObject(decodeBytes(body, sent.charset));
  } catch {
    return { kind: 'unverifiable', reason: `the answer is not ${sent.ediType} in ${sent.charset}` };
  }
  const code = raw.ResultCode ?? '';
  if (!/^[A-Za-z0-9]{4}$/.test(code)) return { kind: 'unverifiable', reason: 'the answer has no 4-character ResultCode' };
  const tid = raw.TID ?? '';
  if (code === KEYIN_SUCCESS_CODE) {
    if (tid !== sent.tid) return { kind: 'unverifiable', reason: 'the approval names another TID' };
    if (raw.MID !== undefined && raw.MID !== sent.mid) return { kind: 'unverifiable', reason: 'the approval names another MID' };
    if (raw.Moid !== undefined && raw.Moid !== sent.moid) return { kind: 'unverifiable', reason: 'the approval names another Moid' };
    if (parseAmount(raw.Amt ?? '') !== sent.amount) return { kind: 'unverifiable', reason: 'the approval reports another Amt than was sent' };
    return { kind: 'approved', raw };
  }
  // A decline may come without a TID (rejected before one was recorded), but not with another one.
  if (tid !== '' && tid !== sent.tid) return { kind: 'unverifiable', reason: 'the decline names another TID' };
  return { kind: 'declined', code, message: raw.ResultMsg ?? '', raw };
}

function parseJsonObject(text: string): Record<string, string> {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (v === null) out[k] = '';
    // Nested values are not part of the key-in answer; unknown fields are ignored (spec, Versioning 1).
  }
  return out;
}
