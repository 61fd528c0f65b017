import { type ResultCodeReading, readAnswerFields, readResultCode, resultCodeProblem } from '../pipeline/index.js';
import { BID_PATTERN, BILLING_REGISTERED_CODE, BILLING_REMOVED_CODE } from '../wire/billing-fields.js';
import type { Charset } from '../wire/charset.js';
import { type EdiType, type GatewayFields, ownField } from '../wire/response-body.js';

/** What was sent, to check an answer against. */
export interface SentCall {
  mid: string;
  moid: string;
  charset: Charset;
  ediType: EdiType;
}

/** How an answer reads. `unknown` means the gateway may have acted and the answer cannot say. */
export type BillingAnswer<T> =
  | T
  | { kind: 'refused'; code: string; message: string; raw: GatewayFields }
  | { kind: 'unknown'; reason: string };

/** The answer's fields and exact ResultCode, or why the outcome is unknown. */
function read(body: Buffer, sent: SentCall): { raw: GatewayFields; code: string } | { kind: 'unknown'; reason: string } {
  const parsed = readAnswerFields(body, sent.charset, sent.ediType);
  if (!parsed.ok) return { kind: 'unknown', reason: parsed.reason };
  const reading: ResultCodeReading = readResultCode(parsed.raw);
  if (reading.kind !== 'code') return { kind: 'unknown', reason: resultCodeProblem(reading) };
  // An answer naming another merchant or order is not about this call.
  const mid = ownField(parsed.raw, 'MID');
  const moid = ownField(parsed.raw, 'Moid');
  if (mid !== undefined && mid !== '' && mid !== sent.mid) return { kind: 'unknown', reason: 'the answer names another MID' };
  if (moid !== undefined && moid !== '' && moid !== sent.moid) return { kind: 'unknown', reason: 'the answer names another Moid' };
  return { raw: parsed.raw, code: reading.code };
}

/** The answer's fields without the BID (it charges the card: never kept in `raw`). */
export function withoutBid(raw: GatewayFields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (k !== 'BID') out[k] = v;
  return out;
}

/** A registration answer: F100 with a 30-character BID is registered; another code is refused. */
export function readRegisterAnswer(body: Buffer, sent: SentCall): BillingAnswer<{ kind: 'registered'; bid: string; raw: Record<string, string> }> {
  const r = read(body, sent);
  if ('kind' in r) return r;
  const raw = withoutBid(r.raw);
  if (r.code !== BILLING_REGISTERED_CODE) return { kind: 'refused', code: r.code, message: ownField(r.raw, 'ResultMsg') ?? '', raw };
  const bid = ownField(r.raw, 'BID') ?? '';
  if (!BID_PATTERN.test(bid)) return { kind: 'unknown', reason: 'the registration answer has no 30-character BID' };
  return { kind: 'registered', bid, raw };
}

/** A removal answer: F101 (naming our BID when it names one) is removed; another code is refused. */
export function readRemoveAnswer(body: Buffer, sent: SentCall & { bid: string }): BillingAnswer<{ kind: 'removed'; raw: Record<string, string> }> {
  const r = read(body, sent);
  if ('kind' in r) return r;
  const raw = withoutBid(r.raw);
  if (r.code !== BILLING_REMOVED_CODE) return { kind: 'refused', code: r.code, message: ownField(r.raw, 'ResultMsg') ?? '', raw };
  const bid = ownField(r.raw, 'BID');
  if (bid !== undefined && bid !== '' && bid !== sent.bid) return { kind: 'unknown', reason: 'the removal names another BID' };
  return { kind: 'removed', raw };
}
