import { NicepayRequestError } from '../errors/index.js';
import { ownCopy } from '../own-copy.js';
import { WireFormatError, byteLength, encodeText } from '../wire/charset.js';
import { refuseUnknownInput } from './known-keys.js';

/**
 * A validation failure: 400 NICEPAY_FIELD_INVALID naming the input path and the rule, never
 * the value (for card fields and BIDs it is a secret).
 */
export function fieldInvalid(field: string, rule: string): NicepayRequestError {
  return new NicepayRequestError('NICEPAY_FIELD_INVALID', `${field} ${rule}`, field);
}

/**
 * A text value sent in the EUC-KR request form: a string without control characters that
 * EUC-KR (CP949) can encode, at most `max` bytes there (a Hangul syllable takes 2). Empty or
 * missing gives undefined, or an error when `required`. The text given back is a copy of its own
 * (ownCopy): a value a body parser cut from a posted form would keep the whole form (a card
 * number beside it) in whatever keeps it: a result, an error's message, a record.
 */
export function wireText(value: unknown, field: string, max: number, required: boolean): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) throw fieldInvalid(field, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') throw fieldInvalid(field, 'must be a string');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this check's purpose
  if (/[\u0000-\u001f\u007f]/.test(value)) throw fieldInvalid(field, 'must not contain control characters');
  try {
    encodeText(value, 'euc-kr', field);
  } catch (err) {
    if (err instanceof WireFormatError)
      throw fieldInvalid(field, 'has characters that EUC-KR (CP949) cannot encode (emoji, say)');
    throw err;
  }
  const size = byteLength(value, 'euc-kr');
  if (size > max)
    throw fieldInvalid(field, `is ${size} bytes in EUC-KR; at most ${max} allowed (a Hangul syllable takes 2)`);
  return ownCopy(value);
}

/** Buyer fields of a request (BuyerName 30, BuyerEmail 60, BuyerTel 20 bytes in EUC-KR). */
export interface WireBuyer {
  buyerName: string | undefined;
  buyerEmail: string | undefined;
  buyerTel: string | undefined;
}

/**
 * Validates an optional `{ name, email, tel }` buyer of `caller`; a key its type (`known`, the
 * list beside that type) does not declare is refused.
 */
export function wireBuyer(buyer: unknown, known: readonly string[], caller: string): WireBuyer {
  const b = (buyer ?? {}) as { name?: unknown; email?: unknown; tel?: unknown };
  if (typeof b !== 'object' || b === null) throw fieldInvalid('buyer', 'must be an object');
  refuseUnknownInput(b, known, caller, 'buyer.');
  return {
    buyerName: wireText(b.name, 'buyer.name', 30, false),
    buyerEmail: wireText(b.email, 'buyer.email', 60, false),
    buyerTel: wireText(b.tel, 'buyer.tel', 20, false),
  };
}
