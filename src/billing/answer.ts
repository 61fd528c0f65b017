import { type ResultCodeReading, readAnswerFields, readResultCode, resultCodeProblem } from '../pipeline/index.js';
import { parseAmount } from '../wire/amount.js';
import { BID_PATTERN, BILLING_APPROVED_CODE, BILLING_REGISTERED_CODE, BILLING_REMOVED_CODE } from '../wire/billing-fields.js';
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

/**
 * Codes of a charge refused because its Moid was charged before (gateway-facts: "1681 / A127
 * duplicate Moid"; the sandbox answers 1681). This call charged nothing, but the order may be
 * paid by the earlier charge: the message says so.
 */
const DUPLICATE_MOID_CODES: ReadonlySet<string> = new Set(['1681', 'A127']);

/** What a duplicate-Moid refusal's message adds to the gateway's text. */
const DUPLICATE_MOID_HINT = 'this Moid was charged before: nothing was charged now, but the earlier charge stands; look it up before charging the order again under a new Moid';

/**
 * A charge answer: 3001 naming our TID and the amount sent is approved; another code is
 * declined unless it names another TID (then the outcome is unknown), a duplicate Moid with
 * {@link DUPLICATE_MOID_HINT} in its message. Read like key-in's.
 */
export function readChargeAnswer(body: Buffer, sent: SentCall & { tid: string; amount: number }): BillingAnswer<{ kind: 'approved'; raw: Record<string, string> }> {
  const r = read(body, sent);
  if ('kind' in r) return r;
  const tid = ownField(r.raw, 'TID') ?? '';
  const raw = withoutBid(r.raw);
  if (r.code === BILLING_APPROVED_CODE) {
    if (tid !== sent.tid) return { kind: 'unknown', reason: 'the approval names another TID' };
    if (parseAmount(ownField(r.raw, 'Amt') ?? '') !== sent.amount) return { kind: 'unknown', reason: 'the approval reports another Amt than was sent' };
    return { kind: 'approved', raw };
  }
  if (tid !== '' && tid !== sent.tid) return { kind: 'unknown', reason: 'the decline names another TID' };
  const message = ownField(r.raw, 'ResultMsg') ?? '';
  return { kind: 'refused', code: r.code, message: DUPLICATE_MOID_CODES.has(r.code) ? `${message} (${DUPLICATE_MOID_HINT})` : message, raw };
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
