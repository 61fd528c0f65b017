import { NicepayDataApiError, NicepayGatewayError } from '../errors/index.js';
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
 * - not JSON, not `{ header: {...} }`, or no resCode: NicepayGatewayError. When `mutating`
 *   (register, request, cancel) the request reached the gateway and may have been acted on,
 *   so the code is NICEPAY_OUTCOME_UNKNOWN; for a query it is NICEPAY_GATEWAY_ERROR.
 * - resCode other than 0000: NicepayDataApiError with a stable `reason` (res-codes.ts);
 *   `outcomeUnknown` for 8xxx / 9xxx.
 */
export function parseDataResponse(raw: Buffer | string, sid: string, mutating = false): DataResponse {
  const unusable = (why: string, cause?: unknown): NicepayGatewayError =>
    mutating
      ? new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', `data host answer to ${sid} is unusable (${why}); the request may have been processed: check before retrying`, { cause })
      : new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `data host answer to ${sid} is unusable (${why})`, { cause });
  const source = typeof raw === 'string' ? raw : raw.toString('utf8');
  // A field named twice reads one way to JSON.parse (last wins) and maybe another to the
  // gateway: for a state change the outcome is unknown (issue 18 item 6).
  if (hasDuplicateKeys(source, 'JSON')) throw unusable('a field is named twice');
  let parsed: unknown;
  try {
    parsed = JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw unusable('not JSON', err);
  }
  if (!isObject(parsed) || !isObject(parsed['header'])) throw unusable('no header object');
  const h = parsed['header'];
  let resCode = text(h, 'resCode').trim();
  if (resCode === '') throw unusable('no header.resCode');
  if (/^\d{1,3}$/.test(resCode)) resCode = resCode.padStart(4, '0'); // a number 0 or 1003 sent as JSON number
  const header: DataResponseHeader = {
    sid: text(h, 'sid'),
    trDtm: text(h, 'trDtm'),
    gubun: text(h, 'gubun'),
    resCode,
    resMsg: text(h, 'resMsg'),
  };
  if (resCode !== RES_CODE_OK) throw new NicepayDataApiError(resCode, header.resMsg, reasonOf(resCode), sid);
  const body = isObject(parsed['body']) ? parsed['body'] : {};
  return { header, body };
}
