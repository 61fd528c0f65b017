import { NicepayGatewayError } from '../errors/index.js';

/**
 * Lenient readers for data host responses. The spec says response fields may be added
 * without notice and that amounts and counts appear as numbers; the official examples spell
 * some keys differently from the tables (lastCl / lastcl, dupYn / dupChkYn, otid / orgTid,
 * identity / Identity). These readers accept both spellings, numbers or strings, and ignore
 * everything else.
 */

/** A JSON object as parsed. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (the package's one isObject). */
export { isObject } from '../util/is-object.js';
import { isObject } from '../util/is-object.js';

/**
 * The value of the first of `names` present in `obj`; exact spelling first, then a
 * case-insensitive match (so `lastcl` finds `lastCl` and `identity` finds `Identity`).
 */
export function pick(obj: JsonObject, ...names: string[]): unknown {
  for (const n of names) if (Object.hasOwn(obj, n) && obj[n] !== undefined && obj[n] !== null) return obj[n];
  const lower = new Map<string, string>();
  for (const k of Object.keys(obj)) lower.set(k.toLowerCase(), k);
  for (const n of names) {
    const k = lower.get(n.toLowerCase());
    if (k !== undefined && obj[k] !== undefined && obj[k] !== null) return obj[k];
  }
  return undefined;
}

/** A string field: strings as they are, numbers and booleans as text, anything else ''. */
export function text(obj: JsonObject, ...names: string[]): string {
  const v = pick(obj, ...names);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

/**
 * A numeric field (amount or count): a number, or a string of digits (leading zeros, a
 * sign, thousands separators and blanks tolerated), always a safe integer. Missing or empty gives 0; anything else
 * is a gateway answer this client cannot trust and throws NICEPAY_GATEWAY_ERROR.
 */
export function amount(obj: JsonObject, sid: string, ...names: string[]): number {
  const v = pick(obj, ...names);
  if (v === undefined || v === '') return 0;
  // Money is a whole number of won: a fraction or a value past 2^53 is not trusted.
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string') {
    const s = v.trim().replace(/,/g, '');
    if (s === '') return 0;
    if (/^[+-]?\d+$/.test(s)) {
      const n = Number(s);
      if (Number.isSafeInteger(n)) return n;
    }
  }
  throw new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `data host answer to ${sid} has a non-numeric ${names[0]}`);
}

/** An object field, or undefined. */
export function object(obj: JsonObject, ...names: string[]): JsonObject | undefined {
  const v = pick(obj, ...names);
  return isObject(v) ? v : undefined;
}

/** An array field of objects (non-objects dropped); a missing field gives []. */
export function list(obj: JsonObject, ...names: string[]): JsonObject[] {
  const v = pick(obj, ...names);
  return Array.isArray(v) ? v.filter(isObject) : [];
}
