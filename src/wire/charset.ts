import iconv from 'iconv-lite';

/** The two encodings the gateway speaks (the `CharSet` field). */
export type Charset = 'euc-kr' | 'utf-8';

/** Thrown by the codecs on bytes or text that cannot be represented; carries no field value. */
export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * Normalises a charset label to one of the two the gateway speaks, or undefined. Accepts the
 * aliases browsers and gateways send (euc-kr, ks_c_5601-1987, cp949, utf8, ...).
 */
export function normalizeCharset(label: string | undefined): Charset | undefined {
  if (!label) return undefined;
  const l = label
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, '');
  if (l === 'utf-8' || l === 'utf8') return 'utf-8';
  if (['euc-kr', 'euckr', 'cp949', 'ks_c_5601-1987', 'ks_c_5601', 'windows-949', 'x-windows-949', 'uhc'].includes(l)) {
    return 'euc-kr';
  }
  return undefined;
}

/**
 * Bytes as latin1 text, one character (U+0000-U+00FF) per byte: a lossless reading of any bytes
 * that JSON.parse, indexOf and a string-valued store can work on; `Buffer.from(text, 'latin1')`
 * gives the bytes back.
 */
export function latin1Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });
// biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII byte, control characters included, is what this range means
const ASCII_TEXT = /^[\x00-\x7f]*$/;

/** True when every byte is below 0x80. */
function isAscii(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i++) if (buf[i]! > 0x7f) return false;
  return true;
}

/**
 * Decodes bytes in the wire charset. EUC-KR goes through iconv-lite's CP949 (a superset that
 * holds the ~8,800 extra Hangul syllables such as 똠 and 햏); TextDecoder('euc-kr') mangles
 * those. Invalid sequences throw instead of turning into U+FFFD.
 */
export function decodeBytes(bytes: Uint8Array, charset: Charset, field?: string): string {
  if (charset === 'utf-8') {
    try {
      return utf8Strict.decode(bytes);
    } catch {
      throw new WireFormatError('bytes are not valid UTF-8', field);
    }
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // With no byte above 7F there is no double-byte lead (81-FE), so each byte is its ASCII
  // character in CP949: an all-ASCII field (most of a gateway form) skips iconv.
  if (isAscii(buf)) return buf.toString('latin1');
  const text = iconv.decode(buf, 'cp949');
  if (text.includes('\uFFFD')) throw new WireFormatError('bytes are not valid EUC-KR (CP949)', field);
  return text;
}

/**
 * Decodes bytes as a gateway reading them in `charset` does whatever they are: a sequence not
 * valid there becomes U+FFFD instead of an error (iconv-lite's CP949, or a lenient UTF-8 read).
 * Only the sandbox, which plays that gateway, reads so; clients use {@link decodeBytes}.
 */
export function decodeBytesLossy(bytes: Uint8Array, charset: Charset): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return charset === 'utf-8' ? buf.toString('utf8') : iconv.decode(buf, 'cp949');
}

/** Encodes text in the wire charset; throws when a character has no CP949 form (emoji, say). */
export function encodeText(text: string, charset: Charset, field?: string): Buffer {
  if (charset === 'utf-8') return Buffer.from(text, 'utf8');
  // ASCII text is the same bytes in CP949: no iconv round trip needed to prove it encodes.
  if (ASCII_TEXT.test(text)) return Buffer.from(text, 'latin1');
  const bytes = iconv.encode(text, 'cp949');
  if (iconv.decode(bytes, 'cp949') !== text) {
    throw new WireFormatError('text has characters that EUC-KR (CP949) cannot encode', field);
  }
  return bytes;
}

/** Size of `text` in bytes in the wire charset (EUC-KR: 2 per Hangul; UTF-8: 3). */
export function byteLength(text: string, charset: Charset): number {
  if (charset === 'utf-8') return Buffer.byteLength(text, 'utf8');
  // ASCII is 1 byte in CP949; everything else this codec accepts is 2.
  if (ASCII_TEXT.test(text)) return text.length;
  let n = 0;
  for (const ch of text) n += ch.charCodeAt(0) < 0x80 ? 1 : 2;
  return n;
}
