import iconv from 'iconv-lite';
import { type Charset, encodeText, normalizeCharset } from '../../wire/charset.js';
import { decodeForm } from '../../wire/form-codec.js';
import { serializeKv } from '../../wire/kv.js';
import type { SandboxRequest, SandboxResponse } from '../types.js';
import { headerCharset, traceId } from './util.js';

/** How the caller asked to be answered: CharSet (euc-kr default) and EdiType (JSON default). */
export interface ReplyFormat {
  charset: Charset;
  ediType: 'JSON' | 'KV';
}

/** The default format, used when the request itself could not be read. */
export const DEFAULT_FORMAT: ReplyFormat = { charset: 'euc-kr', ediType: 'JSON' };

/**
 * Reads a gateway request (pay_process / cancel_process): form-urlencoded in the Content-Type
 * charset, EUC-KR when none is named. Undefined when the body cannot be decoded.
 */
export function readGatewayForm(req: SandboxRequest): Record<string, string> | undefined {
  try {
    return decodeForm(req.body, headerCharset(req.headers) ?? 'euc-kr');
  } catch {
    return undefined;
  }
}

/** The reply format a decoded request asks for. */
export function replyFormat(fields: Record<string, string>): ReplyFormat {
  const charset = normalizeCharset(fields.CharSet) ?? 'euc-kr';
  const ediType = (fields.EdiType ?? '').trim().toUpperCase() === 'KV' ? 'KV' : 'JSON';
  return { charset, ediType };
}

/** Reads one field of a decoded form ('' when absent), trimmed. */
export function field(fields: Record<string, string>, key: string): string {
  return Object.hasOwn(fields, key) ? fields[key]!.trim() : '';
}

function encodeLossy(text: string, charset: Charset): Buffer {
  try {
    return encodeText(text, charset);
  } catch {
    return iconv.encode(text, 'cp949'); // unencodable characters become '?', as a real gateway would
  }
}

/**
 * Serialises response fields as the caller asked (JSON or KV, in its charset) after adding
 * the unlisted `SandboxTrace` field, which clients must keep and must not fail on.
 */
export function encodeReply(fields: Record<string, string>, format: ReplyFormat): Buffer {
  const withTrace = { ...fields, SandboxTrace: traceId() };
  if (format.ediType === 'KV') {
    try {
      return serializeKv(withTrace, format.charset);
    } catch {
      return encodeLossy(Object.entries(withTrace).map(([k, v]) => `${k}=${v}`).join('&'), format.charset);
    }
  }
  return encodeLossy(JSON.stringify(withTrace), format.charset);
}

/** A 200 answer with the real gateway's (untrustworthy) `text/html;charset=...` Content-Type. */
export function gatewayResponse(body: Buffer, format: ReplyFormat, status = 200): SandboxResponse {
  return { status, headers: { 'content-type': `text/html;charset=${format.charset}` }, body };
}

/** A declined answer: ResultCode and Korean ResultMsg plus whatever context is known. */
export function declined(code: string, message: string, context: Record<string, string> = {}): Record<string, string> {
  return { ResultCode: code, ResultMsg: message, ...context };
}
