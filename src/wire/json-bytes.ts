import { type Charset, decodeBytes, latin1Text } from './charset.js';
import { decodeCp949PairsOfLatin1 } from './cp949.js';

/**
 * JSON.parse of an answer in the wire charset, without decoding the whole answer first.
 *
 * Both charsets are ASCII-compatible, and no byte of a multi-byte character can be `"` or `\`
 * (CP949 trail bytes are 41-5A, 61-7A and 81-FE; UTF-8's are 80-BF), so the answer's bytes read
 * as latin1 (one character per byte) parse to the same structure. Only the string values that
 * hold bytes from 80 up then need decoding: a few short Korean values (ResultMsg, GoodsName,
 * BuyerName, CardName ...) instead of the ~1 KB answer, and JSON.parse reads one-byte text:
 * no 1.9 KB two-byte copy of the answer, and a cheaper parse (cachegrind, bench/RESULTS.md).
 *
 * Whenever the shortcut cannot prove its result equal to decoding first, it gives up and the
 * answer is decoded and parsed whole, so errors and results are the same as before.
 */
export function parseJsonBytes(body: Uint8Array, charset: Charset): JsonBytes {
  return parseJsonLatin1(latin1Text(body), charset);
}

/** {@link parseJsonBytes} of an answer already read as latin1 text (one character per byte). */
export function parseJsonLatin1(latin1: string, charset: Charset): JsonBytes {
  const parsed = parseAsLatin1(latin1, charset);
  if (parsed !== undefined) return { value: parsed, text: latin1 };
  // As before the shortcut: a byte-order mark and any surrounding whitespace go.
  const text = decodeBytes(Buffer.from(latin1, 'latin1'), charset).replace(/^\uFEFF/, '').trim();
  return { value: JSON.parse(text), text };
}

/** What {@link parseJsonBytes} parsed, and the text it parsed it from. */
export interface JsonBytes {
  value: unknown;
  /** The JSON text: the answer's latin1 reading, or its decoded text. Its structure is the answer's. */
  text: string;
}

/**
 * A byte from 80 up, and one below, in the latin1 reading of an answer: `test()` with `g` moves
 * `lastIndex` past the match and builds no match array (exec would, for each run).
 */
const HIGH_BYTE = /[\x80-\xff]/g;
const LOW_BYTE = /[\x00-\x7f]/g;

/**
 * The answer parsed from its latin1 reading with its non-ASCII values decoded, or undefined when
 * that cannot be shown to equal the full decode: not a JSON object, a `\u` escape next to raw
 * non-ASCII bytes (an escape of 80-FF would read as a raw byte), or non-ASCII bytes anywhere but
 * in the top-level string values found for them (a key, a nested value, a duplicate key).
 */
function parseAsLatin1(latin1: string, charset: Charset): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(latin1);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  HIGH_BYTE.lastIndex = 0;
  // All ASCII: the same characters in both charsets, nothing to decode.
  if (!HIGH_BYTE.test(latin1)) return fields;
  // An escape of a character from 80 up reads like a raw byte, and can make the count below
  // agree while a key's raw bytes go uncounted: with raw non-ASCII bytes, no escapes at all.
  if (latin1.includes('\\u')) return undefined;
  let highBytes = 0;
  const keys: string[] = [];
  let scannedTo = 0;
  do {
    // A run of bytes from 80 up: from the one just found to the next byte below 80.
    const start = HIGH_BYTE.lastIndex - 1;
    LOW_BYTE.lastIndex = start;
    const end = LOW_BYTE.test(latin1) ? LOW_BYTE.lastIndex - 1 : latin1.length;
    highBytes += end - start;
    // Each stretch of text is scanned back over once: a run with no `":` between it and the
    // previous run is in the same value (or the count will disagree), so a long value with
    // many runs costs its length, not its length times its runs.
    const key = keyOfValueAt(latin1, start, scannedTo);
    scannedTo = end;
    if (key !== undefined && !keys.includes(key)) keys.push(key);
    HIGH_BYTE.lastIndex = end;
  } while (HIGH_BYTE.test(latin1));
  // Each non-ASCII byte of a value is one character from 80 up of the parsed value (escapes are
  // ASCII). When the values found hold as many as the whole answer, they hold all of them.
  let found = 0;
  for (const key of keys) found += highChars(ownString(fields, key));
  if (found !== highBytes) return undefined;
  try {
    for (const key of keys) {
      const value = ownString(fields, key);
      // An all-ASCII value (a key guessed wrong) decodes to itself: no second count needed.
      if (value === undefined) continue;
      // A UTF-8 decoder drops a byte-order mark at the start of its input: one that starts a
      // value is kept by the full decode, so that value goes that way.
      if (charset === 'utf-8' && value.startsWith('\xef\xbb\xbf')) return undefined;
      fields[key] = (charset === 'euc-kr' ? decodeCp949PairsOfLatin1(value) : undefined) ?? decodeBytes(Buffer.from(value, 'latin1'), charset, key);
    }
  } catch {
    // Bytes that are not valid in the charset: the full decode reports them.
    return undefined;
  }
  return fields;
}

/**
 * The key of the `"key":"value"` pair whose value holds position `at`, as the compact JSON the
 * gateway writes has it, or undefined when no `":` lies between `notBefore` and `at`. A guess
 * that may be wrong (a value may hold an escaped `":`): the caller only trusts the counts.
 */
function keyOfValueAt(text: string, at: number, notBefore: number): string | undefined {
  // Back to the `":` before the value, but not past `notBefore`; then to the key's opening quote.
  let separator = at - 1;
  while (separator > notBefore && !(text.charCodeAt(separator) === COLON && text.charCodeAt(separator - 1) === QUOTE)) separator--;
  if (separator <= notBefore) return undefined;
  let open = separator - 2;
  while (open >= 0 && text.charCodeAt(open) !== QUOTE) open--;
  return open < 0 ? undefined : text.slice(open + 1, separator - 1);
}

const QUOTE = 0x22;
const COLON = 0x3a;

function ownString(fields: Record<string, unknown>, key: string): string | undefined {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Characters from 80 to FF in a value of the latin1 reading (0 for undefined). */
function highChars(value: string | undefined): number {
  let n = 0;
  if (value !== undefined) for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) n++;
  return n;
}
