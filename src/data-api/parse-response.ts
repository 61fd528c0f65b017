import { NicepayDataApiError, NicepayGatewayError } from '../errors/index.js';
import { decodeBytes } from '../wire/charset.js';
import { hasDuplicateKeys } from '../wire/duplicate-keys.js';
import { reasonOf } from './res-codes.js';
import { isObject, text, type JsonObject } from './lenient.js';

/** A data host response header, normalised (resCode always 4 characters of text). */
export interface DataResponseHeader {
  sid: string;
  trDtm: string;
  gubun: string;
  resCode: string;
  resMsg: string;
}

/** A successful (resCode 0000) response. `body` is the raw body object, unknown fields kept. */
export interface DataResponse {
  header: DataResponseHeader;
  body: JsonObject;
}

/** resCode 0000: success (gateway-interface.md, Errors 3). */
export const RES_CODE_OK = '0000';

/**
 * Parses the bytes of a data host answer and applies the spec's success rule.
 *
 * - not strict UTF-8 (an invalid byte is an error, never U+FFFD), not JSON, not
 *   `{ header: {...} }`, no resCode, or a header that is not the answer to this request
 *   (gubun other than `R`, sid other than the one sent; spec, Envelope): NicepayGatewayError.
 *   When `mutating` (register, request, cancel) the request reached the gateway and may have
 *   been acted on, so the code is NICEPAY_OUTCOME_UNKNOWN; for a query it is
 *   NICEPAY_GATEWAY_ERROR. The message says what came back (header values are codes, not secrets).
 * - a resCode that is not exactly four digits (`"0000 "`, `"ok"`): unusable, as above (read as
 *   exactly as the web host's ResultCode; a JSON number is its digits, zero-padded).
 * - 8xxx / 9xxx (gateway-facts: internal or communication error, outcome unknown): for a call
 *   that changes state, NICEPAY_OUTCOME_UNKNOWN like every other unknown outcome; for a query,
 *   NICEPAY_GATEWAY_ERROR (its answer cannot be used; nothing changed).
 * - any other resCode: NicepayDataApiError NICEPAY_DATA_HOST_REFUSED with a stable `reason`
 *   (res-codes.ts): the data host refused, nothing happened.
 *
 * The returned body never holds an encKey: the gateway echoes the request as reqInfo, and an
 * encKey covers only sid + mid + trDtm, so a leaked one would sign another body for that
 * second. Every `encKey` member is removed, however deep (see {@link withoutSecrets}).
 */
export function parseDataResponse(raw: Buffer | string, sid: string, mutating = false): DataResponse {
  const unusable = (why: string, cause?: unknown): NicepayGatewayError =>
    mutating
      ? new NicepayGatewayError(
          'NICEPAY_OUTCOME_UNKNOWN',
          `data host answer to ${sid} is unusable (${why}); the request may have been processed: check before retrying`,
          { cause },
        )
      : new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `data host answer to ${sid} is unusable (${why})`, { cause });
  let source: string;
  try {
    source = typeof raw === 'string' ? raw : decodeBytes(raw, 'utf-8');
  } catch (err) {
    throw unusable('not valid UTF-8', err);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw unusable('not JSON', err);
  }
  // A field named twice reads one way to JSON.parse (last wins) and maybe another to the
  // gateway: for a state change the outcome is unknown.
  if (hasDuplicateKeys(source, parsed)) throw unusable('a field is named twice');
  if (!isObject(parsed) || !isObject(parsed['header'])) throw unusable('no header object');
  const h = parsed['header'];
  const gubun = h['gubun'];
  if (gubun !== 'R') throw unusable(`header.gubun is ${quoted(gubun)}, expected "R" (a response)`);
  const answeredSid = h['sid'];
  if (answeredSid !== sid) throw unusable(`header.sid is ${quoted(answeredSid)}, expected "${sid}" (the sid sent)`);
  const rawCode = h['resCode'];
  // A JSON number (0, 1003) is its digits; text counts only when it is exactly a 4-digit code.
  const resCode =
    typeof rawCode === 'number' && Number.isInteger(rawCode) && rawCode >= 0 && rawCode <= 9999
      ? String(rawCode).padStart(4, '0')
      : text(h, 'resCode');
  if (resCode === '') throw unusable('no header.resCode');
  if (!/^\d{4}$/.test(resCode)) throw unusable('header.resCode is not exactly a 4-digit code');
  const header: DataResponseHeader = {
    sid,
    trDtm: text(h, 'trDtm'),
    gubun,
    resCode,
    resMsg: text(h, 'resMsg'),
  };
  if (/^[89]/.test(resCode)) {
    const said = `the data host answered ${resCode} (an internal or communication error)`;
    throw mutating
      ? new NicepayGatewayError(
          'NICEPAY_OUTCOME_UNKNOWN',
          `${sid}: ${said}; the request may have been processed: check before retrying`,
          { resultCode: resCode },
        )
      : new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `${sid}: ${said}; nothing changed, ask again`, {
          resultCode: resCode,
        });
  }
  if (resCode !== RES_CODE_OK) throw new NicepayDataApiError(resCode, header.resMsg, reasonOf(resCode), sid);
  const body = isObject(parsed['body']) ? withoutSecrets(parsed['body']) : {};
  return { header, body };
}

/** A header value for an error message: short JSON text, so "", 'R ' and 42 read apart. */
function quoted(value: unknown): string {
  if (value === undefined) return 'missing';
  const t = JSON.stringify(value) ?? String(value);
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

/** Member names that hold a request secret echoed back (reqInfo.body.encKey, any spelling). */
const SECRET_KEY = /^enckey$/i;

/**
 * The body without any `encKey` member at any depth (reqInfo echoes the request, and
 * unknown fields may be added without notice, so no single path is assumed). Objects and
 * arrays holding one are copied; the rest is returned as parsed.
 */
export function withoutSecrets(body: JsonObject): JsonObject {
  return scrub(body) as JsonObject;
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k)) continue;
    // defineProperty: a `__proto__` member stays an own key, as JSON.parse made it.
    Object.defineProperty(out, k, { value: scrub(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
