import type { Charset } from '../wire/charset.js';
import {
  DuplicateFieldError,
  type EdiType,
  type GatewayFields,
  ownField,
  parseGatewayBody,
} from '../wire/response-body.js';

/**
 * The strict answer reading every flow shares: an answer is read by the CharSet and EdiType
 * that were asked for, an answer naming a field twice is unreadable (it can be read two ways),
 * and a ResultCode counts only when it is exactly a code of the documented shape. A flow
 * then checks the Signature before it gives a success code any meaning.
 */
export type AnswerFields = { ok: true; raw: GatewayFields } | { ok: false; reason: string };

/**
 * Parses an answer; never throws. A reason names no field value. `expect` (what the answer must
 * name) lets a KV answer whose echoed shop text holds a look-alike field be read the one way
 * that names them.
 */
export function readAnswerFields(
  body: Uint8Array,
  charset: Charset,
  ediType: EdiType,
  expect?: Readonly<Record<string, string>>,
): AnswerFields {
  try {
    return { ok: true, raw: parseGatewayBody(body, charset, ediType, expect) };
  } catch (err) {
    if (err instanceof DuplicateFieldError)
      return { ok: false, reason: 'the answer names a field twice, so it can be read two ways' };
    return { ok: false, reason: `the answer is not ${ediType} in ${charset}` };
  }
}

/**
 * Every documented ResultCode (gateway-facts, lifecycle-facts and the interface spec) is four
 * characters of digits and capital letters: 3001, A000, 2001, I003. A value of any other shape
 * (`"3001 "`, `" 3001"`, `"3001\t"`, `"a000"`) is not one of them, whatever it resembles.
 */
const DOCUMENTED_SHAPE = /^[0-9A-Z]{4}$/;

/** What an answer's ResultCode is: exactly a documented-shape code, missing, or anything else. */
export type ResultCodeReading = { kind: 'code'; code: string } | { kind: 'missing' } | { kind: 'malformed' };

/**
 * Reads ResultCode strictly. Not trimmed, not case-folded: a near-miss of a success code is
 * neither a success nor a decline but an unknown outcome (DESIGN.md: "an answer that can be
 * read two ways ... is an unknown outcome").
 */
export function readResultCode(raw: GatewayFields, field = 'ResultCode'): ResultCodeReading {
  const code = ownField(raw, field);
  if (code === undefined || code === '') return { kind: 'missing' };
  return DOCUMENTED_SHAPE.test(code) ? { kind: 'code', code } : { kind: 'malformed' };
}

/** Why a {@link readResultCode} that is not a code makes the outcome unknown, for messages. */
export function resultCodeProblem(reading: Exclude<ResultCodeReading, { kind: 'code' }>): string {
  return reading.kind === 'missing'
    ? 'the answer has no ResultCode'
    : 'the answer has a ResultCode that is not exactly a documented code';
}

/**
 * Codes by which the gateway says the request's SignData did not verify (gateway-facts: A211,
 * 1641, W007 signature errors). Nearly always a merchantKey that is not the MID's.
 */
const SIGNATURE_REFUSALS: ReadonlySet<string> = new Set(['A211', '1641', 'W007']);

/** True when the gateway refused the request's signature. */
export function isSignatureRefusal(code: string): boolean {
  return SIGNATURE_REFUSALS.has(code);
}

/** The hint every flow gives for a refused signature; see {@link isSignatureRefusal}. */
export const MERCHANT_KEY_HINT =
  'the gateway could not verify the request signature: is merchantKey the one of this MID?';

/**
 * Codes by which the gateway refuses an order number it has approved before (gateway-facts:
 * 1681 / A127 duplicate Moid): the refusal protects a shop that reused a Moid, and says so.
 */
/**
 * 1620 / 2056 (card-company timeout, gateway-facts): the issuer did not answer the gateway in
 * time, so whether it approved a charge is not known: never a decline; the charge is reversed
 * (a reversal of nothing is "no such transaction": never charged).
 */
export const CARD_COMPANY_TIMEOUTS: readonly string[] = ['1620', '2056'];

export const DUPLICATE_MOID_REFUSALS: ReadonlySet<string> = new Set(['1681', 'A127']);

/** The hint of a duplicate-Moid refusal; see {@link DUPLICATE_MOID_REFUSALS}. */
export const DUPLICATE_MOID_HINT =
  'this Moid was charged before: nothing was charged now, but the earlier charge stands; look it up before charging the order again under a new Moid';

/**
 * `message` with the hint its code calls for appended: the merchant-key hint for a signature
 * refusal, the duplicate-Moid hint for an order number charged before; else `message` as it is.
 */
export function withMerchantKeyHint(code: string, message: string): string {
  if (isSignatureRefusal(code)) return `${message} (${MERCHANT_KEY_HINT})`;
  if (DUPLICATE_MOID_REFUSALS.has(code)) return `${message} (${DUPLICATE_MOID_HINT})`;
  return message;
}
