import iconv from 'iconv-lite';
import { type Charset, encodeText, normalizeCharset } from '../../wire/charset.js';
import { serializeKv } from '../../wire/kv.js';
import type { SandboxResponse } from '../types.js';

/** How a key-in caller asked to be answered: CharSet (euc-kr default), EdiType (JSON default). */
export interface KeyinReplyFormat {
  charset: Charset;
  ediType: 'JSON' | 'KV';
}

/** The format a decoded request asks for; the defaults when it could not be read. */
export function keyinReplyFormat(fields: Readonly<Record<string, string>> | undefined): KeyinReplyFormat {
  const charset = normalizeCharset(fields?.CharSet) ?? 'euc-kr';
  const ediType = (fields?.EdiType ?? '').trim().toUpperCase() === 'KV' ? 'KV' : 'JSON';
  return { charset, ediType };
}

/** Encodes response fields as asked; characters the charset lacks become '?' as on a real gateway. */
export function encodeKeyinReply(fields: Record<string, string>, format: KeyinReplyFormat): Buffer {
  const text = format.ediType === 'KV' ? undefined : JSON.stringify(fields);
  try {
    return text === undefined ? serializeKv(fields, format.charset) : encodeText(text, format.charset);
  } catch {
    return iconv.encode(
      text ??
        Object.entries(fields)
          .map(([k, v]) => `${k}=${v}`)
          .join('&'),
      'cp949',
    );
  }
}

/** A 200 answer with the gateway's (untrustworthy) text/html Content-Type. */
export function keyinResponse(
  body: Buffer | string,
  format: KeyinReplyFormat,
  extra: Partial<SandboxResponse> = {},
): SandboxResponse {
  return { status: 200, headers: { 'content-type': `text/html;charset=${format.charset}` }, body, ...extra };
}
