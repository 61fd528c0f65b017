import { endianness } from 'node:os';
import iconv from 'iconv-lite';

/**
 * CP949 double-byte pairs as a flat table: `(lead << 8) | trail` -> the UTF-16 code unit,
 * 0 where CP949 has no character. Built once, on first use, by decoding every pair with
 * iconv-lite itself, so it holds iconv-lite's mapping and nothing else.
 */
let pairs: Uint16Array | undefined;

function pairTable(): Uint16Array {
  if (pairs) return pairs;
  // Every lead (81-FE) with every trail (41-FE), each pair followed by a newline. A newline
  // can never be a trail byte, so an invalid pair cannot swallow it: the decoded text splits
  // back into exactly one piece per pair.
  const bytes = Buffer.alloc(126 * 190 * 3);
  let k = 0;
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x41; trail <= 0xfe; trail++) {
      bytes[k++] = lead;
      bytes[k++] = trail;
      bytes[k++] = 0x0a;
    }
  }
  const pieces = iconv.decode(bytes, 'cp949').split('\n');
  const table = new Uint16Array(0x10000);
  let i = 0;
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x41; trail <= 0xfe; trail++) {
      const piece = pieces[i++]!;
      if (piece.length === 1 && piece !== '\uFFFD') table[(lead << 8) | trail] = piece.charCodeAt(0);
    }
  }
  return (pairs = table);
}

let scratch = new Uint16Array(1024);
/** The same memory as bytes, to read the code units back as UTF-16LE without a view per call. */
let scratchBytes = Buffer.from(scratch.buffer);
/** The code units are read back as UTF-16LE bytes: only true of a little-endian Uint16Array. */
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Decodes CP949 bytes made only of ASCII bytes and valid double-byte pairs, giving exactly
 * what iconv-lite gives for them, several times faster (one table lookup per pair, no
 * per-byte decoder state). Returns undefined at the first byte that is neither (and always on
 * a big-endian machine): the caller then decodes with iconv-lite, which decides what that
 * byte means (or that it is invalid).
 */
export function decodeCp949Pairs(buf: Uint8Array): string | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const table = pairTable();
  const n = buf.length;
  const out = scratchFor(n);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const b = buf[i]!;
    if (b < 0x80) {
      out[j++] = b;
      continue;
    }
    if (i + 1 === n) return undefined;
    const c = table[(b << 8) | buf[++i]!]!;
    if (c === 0) return undefined;
    out[j++] = c;
  }
  return scratchBytes.toString('utf16le', 0, j * 2);
}

/**
 * {@link decodeCp949Pairs} of a latin1 string's characters taken as the bytes (each below
 * 0x100): for a value already read out of latin1 text, with no Buffer made for it.
 */
export function decodeCp949PairsOfLatin1(text: string): string | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const table = pairTable();
  const n = text.length;
  const out = scratchFor(n);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const b = text.charCodeAt(i);
    if (b < 0x80) {
      out[j++] = b;
      continue;
    }
    const trail = i + 1 < n ? text.charCodeAt(++i) : 0x100;
    if (b > 0xff || trail > 0xff) return undefined;
    const c = table[(b << 8) | trail]!;
    if (c === 0) return undefined;
    out[j++] = c;
  }
  return scratchBytes.toString('utf16le', 0, j * 2);
}

/** The scratch code units, grown to hold `n`. */
function scratchFor(n: number): Uint16Array {
  if (scratch.length < n) {
    scratch = new Uint16Array(Math.max(n, scratch.length * 2));
    scratchBytes = Buffer.from(scratch.buffer);
  }
  return scratch;
}
