import type { ClientContext } from '../context.js';
import { NicepayDataApiError, NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { callGateway, type GatewayOperation, MERCHANT_KEY_HINT, transportOutcome } from '../pipeline/index.js';
import { type DataSid, SID } from '../wire/data-fields.js';
import { checkFields, type FieldProblem, type FieldTable } from '../wire/field-sizes.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { buildEnvelope, type DataPath } from './envelope.js';
import { parseDataResponse, type DataResponse } from './parse-response.js';
import { reasonOf } from './res-codes.js';

/** One call to the data host. */
export interface DataCall {
  path: DataPath;
  sid: string;
  /** Body fields except encKey; undefined ones are left out. */
  body: Readonly<Record<string, string | undefined>>;
  /** Field table (sizes in UTF-8 bytes) the body, encKey included, is checked against. */
  fields: FieldTable;
  /** encKey for the message's trDtm (payoutEncKey / reconEncKey). */
  encKey: (trDtm: string) => string;
  /** True for calls that change state (register, payout request, cancel). */
  mutating: boolean;
  /**
   * Part of work already admitted and tracked (a ledger operation's exchange, settlement's
   * result query): neither refused after close() nor tracked again.
   * @default false
   */
  continuation?: boolean;
}

const HEADER_FIELDS: FieldTable = {
  sid: { max: 10, required: true },
  trDtm: { max: 14, required: true, pattern: /^\d{14}$/ },
};

/** `${dataUrl}${path}`, keeping a path prefix of dataUrl. */
export function dataHostUrl(dataUrl: URL, path: DataPath): URL {
  const base = dataUrl.href.replace(/\/+$/, '');
  return new URL(base + path);
}

/** The operation name of each data-host message id, for log lines and diagnostics. */
const OPERATION_OF: Readonly<Record<DataSid, GatewayOperation>> = {
  [SID.balance]: 'payout.balance',
  [SID.subMerchant]: 'payout.sub-merchant',
  [SID.payoutRequest]: 'payout.request',
  [SID.payoutCancel]: 'payout.cancel',
  [SID.payoutResults]: 'payout.results',
  [SID.cashReceipts]: 'recon',
};

/** resCode 1000: the data host could not authenticate the caller (its encKey, made with the merchant key). */
const AUTH_FAILED = '1000';

/**
 * The data host's refusal of `sid` as the shop is told it: a refused authentication (1000)
 * carries the same question about the merchant key as every web API flow's signature refusal
 * (and, for reconciliation, about usrId, which the encKey covers there instead of the MID).
 */
export function dataHostRefusal(resCode: string, resMsg: string, sid: string, path: DataPath): NicepayDataApiError {
  const hint =
    resCode !== AUTH_FAILED
      ? undefined
      : path === '/recon/api'
        ? `${MERCHANT_KEY_HINT.replace(/\?$/, '')}, and is usrId its merchant admin login id?`
        : MERCHANT_KEY_HINT;
  return new NicepayDataApiError(resCode, resMsg, reasonOf(resCode), sid, hint);
}

/** The answer read by parse-response.ts, a refusal told as {@link dataHostRefusal} says. */
function readAnswer(body: Buffer, call: DataCall): DataResponse {
  try {
    return parseDataResponse(body, call.sid, call.mutating);
  } catch (err) {
    if (err instanceof NicepayDataApiError) throw dataHostRefusal(err.resCode, err.resMsg, call.sid, call.path);
    throw err;
  }
}

/**
 * Checks a request body (sizes in UTF-8 bytes, formats) against its field table, encKey aside:
 * the check {@link callDataHost} makes before sending, for a caller that must refuse bad input
 * before anything else happens (a ledger lookup). Throws NICEPAY_FIELD_INVALID naming the field.
 */
export function checkDataBody(
  sid: string,
  fields: FieldTable,
  body: Readonly<Record<string, string | undefined>>,
): void {
  const { encKey: _encKey, ...table } = fields;
  fieldProblem(sid, checkFields(table, body, 'utf-8'));
}

/** The refusal of a field problem, naming the field (never its value). */
function fieldProblem(sid: string, problem: FieldProblem | undefined): void {
  if (problem)
    throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `data host ${sid}: ${problem.message}`, problem.field);
}

/**
 * Sends one envelope (POST, application/json, UTF-8) through the pipeline and returns the
 * successful response. Field sizes are checked before anything is sent; a problem is a
 * NicepayRequestError (NICEPAY_FIELD_INVALID) naming the field, never its value. Failures:
 * nothing sent (connect failure) NICEPAY_GATEWAY_UNREACHABLE; a timeout or reset after
 * sending NICEPAY_OUTCOME_UNKNOWN (the gateway may have acted); an HTTP error status
 * NICEPAY_GATEWAY_ERROR for a query, NICEPAY_OUTCOME_UNKNOWN for a call that changes state;
 * an answer refused as parse-response.ts says.
 */
export function callDataHost(ctx: ClientContext, call: DataCall): Promise<DataResponse> {
  const operation = OPERATION_OF[call.sid as DataSid] ?? 'recon';
  return callGateway<DataResponse>(ctx, {
    operation,
    host: 'data',
    url: dataHostUrl(ctx.config.dataUrl, call.path),
    ids: { sid: call.sid },
    continuation: call.continuation ?? false,
    request() {
      const trDtm = kstTimestamp14(ctx.config.clock());
      const envelope = buildEnvelope(call.sid, trDtm, { ...call.body, encKey: call.encKey(trDtm) });
      fieldProblem(
        call.sid,
        checkFields(HEADER_FIELDS, envelope.header as unknown as Record<string, string>, 'utf-8') ??
          checkFields(call.fields, envelope.body, 'utf-8'),
      );
      return { body: Buffer.from(JSON.stringify(envelope), 'utf8'), contentType: 'application/json; charset=utf-8' };
    },
    notSent(failure) {
      throw new NicepayGatewayError('NICEPAY_GATEWAY_UNREACHABLE', `data host ${call.sid}: ${failure.message}`, {
        cause: failure,
      });
    },
    lost(failure) {
      if (transportOutcome(failure) === 'http-status' && !call.mutating) {
        throw new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `data host ${call.sid}: ${failure.message}`, {
          cause: failure,
        });
      }
      throw new NicepayGatewayError(
        'NICEPAY_OUTCOME_UNKNOWN',
        `data host ${call.sid}: ${failure.message}; the outcome is unknown`,
        { cause: failure },
      );
    },
    answer: (body) => readAnswer(body, call),
    report: (res) => ({ outcome: call.mutating ? 'succeeded' : 'answered', resultCode: res.header.resCode }),
  });
}
