import { type Charset, decodeBytes, latin1Text, WireFormatError } from './charset.js';
import { keysHeld, keysWritten } from './duplicate-keys.js';
import { readKv } from './kv.js';

/** The response format asked for with EdiType. */
export type EdiType = 'JSON' | 'KV';

/**
 * A parsed gateway answer: a frozen record whose own properties are the answer's fields, every
 * value a string. Read fields with {@link ownField}: a JSON answer's record keeps
 * Object.prototype (`__proto__` in the answer is only an own key).
 */
export type GatewayFields = Readonly<Record<string, string>>;

/**
 * A field the answer itself carries, or undefined: never a member inherited from
 * Object.prototype, even if something in the process has polluted it. Read gateway fields
 * through this.
 */
export function ownField(fields: GatewayFields, name: string): string | undefined {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

/**
 * Parses a gateway response by the CharSet and EdiType that were asked for, whatever
 * Content-Type came back (real responses say text/html). Scalar values become strings,
 * null an empty string, nested values their JSON text. Throws WireFormatError when the body
 * is not what was asked for, or names a field twice: JSON.parse keeps the last of two equal
 * keys and parseKv the first, so such an answer can be read two ways (a signed 3001 next to a
 * 9999, say) and its outcome is unknown whatever a parser makes of it. The one exception is a
 * KV answer whose extra copies can only be text inside a value the shop sent (`readKv`).
 */
export function parseGatewayBody(
  body: Uint8Array,
  charset: Charset,
  ediType: EdiType,
  expect?: Readonly<Record<string, string>>,
): GatewayFields {
  return ediType === 'KV' ? kvFields(body, charset, expect) : jsonFields(latin1Text(body), charset);
}

function jsonFields(latin1: string, charset: Charset): GatewayFields {
  const fields =
    jsonOfLatin1(latin1, charset) ??
    jsonOfText(
      decodeBytes(Buffer.from(latin1, 'latin1'), charset)
        .replace(/^\uFEFF/, '')
        .trim(),
    );
  return Object.freeze(fields);
}

function kvFields(body: Uint8Array, charset: Charset, expect?: Readonly<Record<string, string>>): GatewayFields {
  // A repeated key is resolved only where all but one copy can be the shop's echoed text (kv.ts).
  const { fields, ambiguous } = readKv(body, charset, expect);
  if (ambiguous !== undefined) throw new DuplicateFieldError();
  if (Object.keys(fields).length === 0) throw new WireFormatError('response is not Key=value pairs');
  return Object.freeze(fields);
}

/**
 * Reads a JSON answer from its latin1 reading, decoding only the values that hold bytes above
 * 7F, all in one call: JSON.parse of one-byte text and a decode of a few dozen bytes instead
 * of the whole answer's (bench/RESULTS.md, "The answer read as latin1"). Exact, because no
 * byte of a multi-byte EUC-KR character (lead 81-FE, trail 41-5A, 61-7A, 81-FE) or UTF-8
 * character (80-FF) is a quote, a backslash or a control character: the JSON structure seen
 * in latin1 is the answer's own, and each value's characters are exactly its bytes. Returns
 * undefined for what it cannot read so (not JSON as latin1, a \u escape, whose character is
 * not a byte, a key beyond ASCII): the caller then decodes the whole answer first, with the
 * same result or error as if it always had.
 */
function jsonOfLatin1(latin1: string, charset: Charset): Record<string, string> | undefined {
  if (latin1.includes('\\u')) return undefined;
  let fields: Record<string, string>;
  let keys: string[];
  let values: string[];
  try {
    [fields, keys, values] = normalized(JSON.parse(latin1), latin1);
  } catch {
    return undefined;
  }
  // Bytes from 80 up in the whole answer (each one more byte in UTF-8 than in latin1). Escapes
  // are ASCII, so each lies in a key or, one for one, in a value (a nested value's JSON text
  // keeps them): values are scanned until all are found, and any left over are in a key.
  let high = Buffer.byteLength(latin1, 'utf8') - latin1.length;
  const encoded: number[] = [];
  for (let i = 0; i < keys.length && high > 0; i++) {
    const n = highBytes(values[i]!);
    if (n > 0) {
      encoded.push(i);
      high -= n;
    }
  }
  if (high !== 0) return undefined;
  if (encoded.length === 0) return fields;
  // NUL joins them (JSON has no raw control character inside a string, and \u0000 was ruled
  // out), and leads them too: a UTF-8 decoder drops a byte-order mark at the start of its input,
  // which the whole answer's decode keeps when a value starts with one.
  const decoded = decodeBytes(Buffer.from(`\0${encoded.map((i) => values[i]).join('\0')}`, 'latin1'), charset).split(
    '\0',
  );
  for (let i = 0; i < encoded.length; i++) fields[keys[encoded[i]!]!] = decoded[i + 1]!;
  return fields;
}

/** The answer's decoded text, parsed. */
function jsonOfText(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WireFormatError('response is not JSON');
  }
  return normalized(parsed, text)[0];
}

/**
 * JSON.parse's value of `text` as the answer's fields: an object whose values are made strings
 * in place. JSON.parse defines every key as an own data property (`__proto__` included, which
 * then shadows the accessor), so normalising in place keeps that safe object. Throws when the
 * text names a field twice. Returns the fields, their keys and their values, in one order.
 */
function normalized(parsed: unknown, text: string): [Record<string, string>, string[], string[]] {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WireFormatError('response JSON is not an object');
  }
  const fields = parsed as Record<string, unknown>;
  // Keys and values in one order, read in two calls: a load of fields[key] per key is a
  // lookup by name each time (a different name at one site).
  const keys = Object.keys(fields);
  const values = Object.values(fields);
  // One property per name: JSON.parse keeps the last of two equal keys, so the keys the text
  // names are counted against those it kept (duplicate-keys.ts).
  let kept = keys.length;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'string') continue;
    kept += keysHeld(value);
    values[i] = fields[keys[i]!] = scalarText(value);
  }
  if (keysWritten(text) !== kept) throw new DuplicateFieldError();
  return [fields as Record<string, string>, keys, values as string[]];
}

/** How many characters of latin1 text are bytes above 7F. */
function highBytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) n++;
  return n;
}

/**
 * Thrown by the parsers for an answer that names a field twice: a caller without a net cancel
 * (key-in) tells it apart from an unreadable answer by its class.
 */
export class DuplicateFieldError extends WireFormatError {
  constructor() {
    super('response names a field twice, so it can be read two ways');
  }
}

/** A non-string JSON value as the gateway's form-field text would carry it. */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
