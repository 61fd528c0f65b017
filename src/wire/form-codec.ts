import { type Charset, WireFormatError, decodeBytes, decodeBytesLossy, encodeText } from './charset.js';

/**
 * application/x-www-form-urlencoded in EUC-KR (CP949) or UTF-8, both ways. The
 * percent-escapes carry bytes of the wire charset, so decoding is: split, unescape to bytes,
 * then decode the bytes with a CP949-capable decoder. URLSearchParams cannot do this: it
 * always assumes UTF-8.
 */

/**
 * One decoded form: a record made by {@link emptyFields}, whose prototype chain holds no
 * property, so `__proto__` is just a key and no inherited name (`constructor`, `toString`)
 * can be read as a field.
 */
export type FormFields = Record<string, string>;

/**
 * The prototype of every {@link FormFields}: an empty, frozen, null-prototype object. It hides
 * Object.prototype as a null prototype would, but V8 keeps objects that have a prototype in its
 * fast (shape-based) mode, while every null-prototype object is a hash table: building and
 * reading a form costs about half as much (the auth return is read on every approval).
 */
const NO_INHERITED: object = Object.freeze(Object.create(null) as object);

/** A new, empty {@link FormFields}. */
export function emptyFields(): FormFields {
  return Object.create(NO_INHERITED) as FormFields;
}

/**
 * True for a record made by {@link emptyFields}: every field it reads as is its own, so no
 * `Object.hasOwn` is needed before reading one.
 */
export function inheritsNothing(record: object): boolean {
  return Object.getPrototypeOf(record) === NO_INHERITED;
}

const HEX = '0123456789ABCDEF';
const PLUS = 0x2b;
const PERCENT = 0x25;

/** Encodes fields in order; values in the wire charset, unreserved bytes left as they are. */
export function encodeForm(fields: Record<string, string | undefined>, charset: Charset): Buffer {
  let out = '';
  let first = true;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined) continue;
    out += `${(first ? '' : '&') + escapeText(key, charset, key)}=${escapeText(value, charset, key)}`;
    first = false;
  }
  return Buffer.from(out, 'latin1');
}

/** Bytes escapeBytes leaves as they are, in both charsets: the common case for keys, ids and digests. */
const UNRESERVED = /^[0-9A-Za-z\-._*]*$/;

function escapeText(text: string, charset: Charset, field: string): string {
  return UNRESERVED.test(text) ? text : escapeBytes(encodeText(text, charset, field));
}

function escapeBytes(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      b === 0x2d ||
      b === 0x2e ||
      b === 0x5f ||
      b === 0x2a
    ) {
      out += String.fromCharCode(b);
    } else if (b === 0x20) {
      out += '+';
    } else {
      out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
    }
  }
  return out;
}

/** Limits that keep a hostile body from costing more than its size. */
export interface DecodeFormOptions {
  /** Most fields accepted. @default 100 */
  maxFields?: number;
  /** Reject a key that appears twice (a forged return may try to shadow a field). @default true */
  rejectDuplicates?: boolean;
  /**
   * Read bytes not valid in the charset as a gateway reading that charset does (U+FFFD, see
   * `decodeBytesLossy`) instead of throwing, and tell this callback which field (a key that is
   * itself garbled: '(field name)'). Only the sandbox passes it. @default throw
   */
  garbled?: (field: string) => void;
}

/**
 * Decodes a form body. Throws WireFormatError on a malformed escape, bytes that are not valid
 * in the charset (unless `garbled` is given), too many fields or a duplicate key; the message
 * names the key, never a value.
 */
export function decodeForm(body: Uint8Array, charset: Charset, options: DecodeFormOptions = {}): FormFields {
  const maxFields = options.maxFields ?? 100;
  const rejectDuplicates = options.rejectDuplicates ?? true;
  const garbled = options.garbled;
  const fields = emptyFields();
  let count = 0;
  let start = 0;
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // One char per byte, so string indices are byte offsets; plain segments are read from it directly.
  const text = buf.toString('latin1');
  // A segment is plain (ASCII without '%' or '+': the same text in both charsets) when no escape
  // starts before its end and the body has no raw byte from 80 up (browsers escape those). The
  // next escape is found with indexOf as the scan passes it: no pattern test per segment.
  const rawHigh = RAW_HIGH.test(text);
  let escapeAt = -1;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      if (++count > maxFields) throw new WireFormatError(`form has more than ${maxFields} fields`);
      if (escapeAt < start) escapeAt = nextEscape(text, start);
      const eq = text.indexOf('=', start);
      const keyEnd = eq !== -1 && eq < end ? eq : end;
      const key = decodeSegment(text, buf, start, keyEnd, !rawHigh && escapeAt >= keyEnd, charset, undefined, garbled);
      if (escapeAt <= keyEnd) escapeAt = nextEscape(text, keyEnd + 1);
      const value =
        keyEnd < end
          ? decodeSegment(text, buf, keyEnd + 1, end, !rawHigh && escapeAt >= end, charset, key, garbled)
          : '';
      // The record inherits nothing, so a field is present exactly when it reads as a string.
      if (fields[key] !== undefined) {
        if (rejectDuplicates)
          throw new WireFormatError(`form field ${JSON.stringify(key.slice(0, 40))} appears more than once`, key);
      } else {
        fields[key] = value;
      }
    }
    start = end + 1;
  }
  return fields;
}

/** A byte from 80 up, in the latin1 reading of a body. */
const RAW_HIGH = /[\x80-\xff]/;

/** Where the next '%' or '+' at or after `from` is; the text's length when there is none. */
function nextEscape(text: string, from: number): number {
  const percent = text.indexOf('%', from);
  const plus = text.indexOf('+', from);
  if (percent === -1) return plus === -1 ? text.length : plus;
  return plus === -1 || percent < plus ? percent : plus;
}

/**
 * ASCII whose escapes are all of bytes below 80 (a URL, an e-mail address): the same text in
 * both charsets, which decodeURIComponent unescapes without a byte buffer. A malformed escape
 * does not match and is refused by the byte path.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII byte but %, control characters included, is what this range means
const ASCII_ESCAPED = /^(?:[\x00-\x24\x26-\x7f]|%[0-7][0-9A-Fa-f])*$/;

function decodeSegment(
  text: string,
  buf: Buffer,
  from: number,
  to: number,
  plain: boolean,
  charset: Charset,
  field?: string,
  garbled?: (field: string) => void,
): string {
  const segment = text.slice(from, to);
  if (plain) return segment;
  if (ASCII_ESCAPED.test(segment))
    return decodeURIComponent(segment.includes('+') ? segment.replaceAll('+', ' ') : segment);
  const bytes = percentDecoded(buf.subarray(from, to));
  if (!garbled) return decodeBytes(bytes, charset, field);
  try {
    return decodeBytes(bytes, charset, field);
  } catch (err) {
    if (!(err instanceof WireFormatError)) throw err;
    garbled(field ?? '(field name)');
    return decodeBytesLossy(bytes, charset);
  }
}

function percentDecoded(segment: Buffer): Buffer {
  if (!segment.includes(PERCENT) && !segment.includes(PLUS)) return segment;
  const out = Buffer.allocUnsafe(segment.length);
  let n = 0;
  for (let i = 0; i < segment.length; i++) {
    const b = segment[i]!;
    if (b === PLUS) {
      out[n++] = 0x20;
    } else if (b === PERCENT) {
      const hi = hexValue(segment[i + 1]);
      const lo = hexValue(segment[i + 2]);
      if (hi < 0 || lo < 0) throw new WireFormatError('form has a malformed percent-escape');
      out[n++] = (hi << 4) | lo;
      i += 2;
    } else {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}

function hexValue(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}
