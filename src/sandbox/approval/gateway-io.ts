import iconv from 'iconv-lite';
import { padAmount, parseAmount } from '../../wire/amount.js';
import { type Charset, encodeText, normalizeCharset } from '../../wire/charset.js';
import { decodeForm } from '../../wire/form-codec.js';
import { MID_PATTERN } from '../../wire/keyin-fields.js';
import { serializeKv } from '../../wire/kv.js';
import { isFormRequest } from '../form-fields.js';
import type { SandboxRequest, SandboxResponse } from '../types.js';
import { headerCharset, traceId } from './util.js';

/** How the caller asked to be answered: CharSet (euc-kr default) and EdiType (JSON default). */
export interface ReplyFormat {
  charset: Charset;
  ediType: 'JSON' | 'KV';
}

/** The default format, used when the request names none. */
export const DEFAULT_FORMAT: ReplyFormat = { charset: 'euc-kr', ediType: 'JSON' };

/** A gateway request as read: its fields, or why it could not be read and how to answer that. */
export type GatewayForm = { fields: Record<string, string> } | { unreadable: string; format: ReplyFormat };

/**
 * Reads a gateway request (pay_process / cancel_process). The spec gives interface A requests
 * as form-urlencoded EUC-KR, so the body is always read as EUC-KR (CP949): a Content-Type of
 * another media type or that declares another charset is refused rather than honoured, and so are bytes that are not
 * CP949, a malformed escape and a repeated field (a request that can be read two ways).
 * When the body cannot be read, the CharSet and EdiType it asked for are still found in its
 * ASCII text, so even that refusal is answered as the caller asked.
 */
export function readGatewayForm(req: SandboxRequest): GatewayForm {
  if (!isFormRequest(req)) {
    return {
      unreadable: '요청 전문은 application/x-www-form-urlencoded 폼이어야 합니다 (Content-Type).',
      format: sniffFormat(req.body),
    };
  }
  const declared = req.headers['content-type'];
  const named = /;\s*charset\s*=/i.test(declared ?? '');
  if (named && headerCharset(req.headers) !== 'euc-kr') {
    return {
      unreadable: '요청 전문은 EUC-KR이어야 합니다 (Content-Type의 charset이 euc-kr이 아닙니다).',
      format: sniffFormat(req.body),
    };
  }
  try {
    return { fields: decodeForm(req.body, 'euc-kr') };
  } catch {
    return {
      unreadable: '요청 전문을 해석할 수 없습니다 (EUC-KR 폼 형식 오류 또는 중복 항목).',
      format: sniffFormat(req.body),
    };
  }
}

/** CharSet and EdiType found in the ASCII text of a body that could not be decoded. */
function sniffFormat(body: Buffer): ReplyFormat {
  const text = body.toString('latin1');
  const charset = /(?:^|&)CharSet=([A-Za-z0-9_-]+)(?:&|$)/.exec(text)?.[1];
  const ediType = /(?:^|&)EdiType=([A-Za-z]+)(?:&|$)/.exec(text)?.[1];
  return replyFormat({ ...(charset ? { CharSet: charset } : {}), ...(ediType ? { EdiType: ediType } : {}) });
}

/** The reply format a decoded request asks for. */
export function replyFormat(fields: Record<string, string>): ReplyFormat {
  const charset = normalizeCharset(fields.CharSet) ?? 'euc-kr';
  const ediType = (fields.EdiType ?? '').trim().toUpperCase() === 'KV' ? 'KV' : 'JSON';
  return { charset, ediType };
}

/**
 * Reads one field of a decoded form ('' when absent) exactly as sent: the spec says AuthToken
 * and TxTid are used unmodified, and a signed value with added white space is another value,
 * so nothing is trimmed.
 */
export function field(fields: Record<string, string>, key: string): string {
  return Object.hasOwn(fields, key) ? fields[key]! : '';
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
      return encodeLossy(
        Object.entries(withTrace)
          .map(([k, v]) => `${k}=${v}`)
          .join('&'),
        format.charset,
      );
    }
  }
  return encodeLossy(JSON.stringify(withTrace), format.charset);
}

/**
 * The request-level codes every endpoint of the approval side answers alike (all the sandbox's
 * own but A211, gateway-facts' signature error; docs/sandbox.md lists them per endpoint).
 */
export const REQUEST_CODES = {
  undecodable: 'W009',
  badMid: 'W002',
  unknownMid: 'W005',
  missingField: 'W001',
  badEdiDate: 'W004',
  badSignData: 'A211',
} as const;

/**
 * True when the request names a MID that is not of the spec's shape (10 letters or digits, the
 * last a lower-case `m`; gateway-interface "TID format"). Checked before the merchant lookup at
 * every endpoint, as key-in and the data host do, so a mis-shaped MID is a field error (W002),
 * never "unknown merchant". An absent MID is left to the required-field check.
 */
export function midMisshaped(fields: Record<string, string>): boolean {
  const mid = field(fields, 'MID');
  return mid !== '' && !MID_PATTERN.test(mid);
}

/** A 200 answer with the real gateway's (untrustworthy) `text/html;charset=...` Content-Type. */
export function gatewayResponse(body: Buffer, format: ReplyFormat, status = 200): SandboxResponse {
  return { status, headers: { 'content-type': `text/html;charset=${format.charset}` }, body };
}

/** A declined answer: ResultCode and Korean ResultMsg plus whatever context is known. */
export function declined(code: string, message: string, context: Record<string, string> = {}): Record<string, string> {
  return { ResultCode: code, ResultMsg: message, ...context };
}

/**
 * An amount field as every answer carries it: 12 digits, zero-padded (gateway-facts, approval
 * "The response Amt is documented as 12-digit zero-padded"). A request amount that is not
 * digits is answered as sent, so the refusal still shows what came in.
 */
export function paddedAmount(text: string): string {
  const n = parseAmount(text);
  return n === undefined ? text : padAmount(n);
}
