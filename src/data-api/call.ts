import type { ClientContext } from '../context.js';
import { NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { TransportError } from '../transport.js';
import { transportOutcome } from '../transport-failure.js';
import { checkFields, type FieldTable } from '../wire/field-sizes.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { buildEnvelope, type DataPath } from './envelope.js';
import { parseDataResponse, type DataResponse } from './parse-response.js';

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

/**
 * Sends one envelope (POST, application/json, UTF-8) and returns the successful response.
 * Field sizes are checked before anything is sent; a problem is a NicepayRequestError
 * (NICEPAY_FIELD_INVALID) naming the field, never its value.
 */
export async function callDataHost(ctx: ClientContext, call: DataCall): Promise<DataResponse> {
  if (ctx.isClosing()) throw new NicepayRequestError('NICEPAY_SHUTTING_DOWN', 'express-nicepay is closing; no new data host calls are made', 503);
  const trDtm = kstTimestamp14(ctx.config.clock());
  const envelope = buildEnvelope(call.sid, trDtm, { ...call.body, encKey: call.encKey(trDtm) });
  const problem = checkFields(HEADER_FIELDS, envelope.header as unknown as Record<string, string>, 'utf-8') ?? checkFields(call.fields, envelope.body, 'utf-8');
  if (problem) {
    throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `data host ${call.sid}: ${problem.message}`, 400, problem.field);
  }
  return ctx.track(send(ctx, call, envelope));
}

async function send(ctx: ClientContext, call: DataCall, envelope: ReturnType<typeof buildEnvelope>): Promise<DataResponse> {
  const url = dataHostUrl(ctx.config.dataUrl, call.path);
  const started = Date.now();
  const log = ctx.config.logger;
  let raw: Buffer;
  try {
    const res = await ctx.data.post(url, Buffer.from(JSON.stringify(envelope), 'utf8'), 'application/json; charset=utf-8');
    raw = res.body;
  } catch (err) {
    log.warn({ sid: call.sid, step: 'data-host', durationMs: Date.now() - started }, 'data host call failed');
    throw transportFailure(err, call);
  }
  try {
    const out = parseDataResponse(raw, call.sid, call.mutating);
    log.debug({ sid: call.sid, step: 'data-host', durationMs: Date.now() - started }, 'data host answered');
    return out;
  } catch (err) {
    const resCode = (err as { resCode?: unknown }).resCode;
    log.warn({ sid: call.sid, step: 'data-host', durationMs: Date.now() - started, ...(typeof resCode === 'string' ? { resCode } : {}) }, 'data host answer refused');
    throw err;
  }
}

/**
 * Maps a transport failure. Nothing sent (connect failure): NICEPAY_GATEWAY_UNREACHABLE.
 * A timeout or reset after sending: NICEPAY_OUTCOME_UNKNOWN (the gateway may have acted).
 * An HTTP error status: NICEPAY_GATEWAY_ERROR for a query, NICEPAY_OUTCOME_UNKNOWN for a
 * call that changes state.
 */
function transportFailure(err: unknown, call: DataCall): NicepayGatewayError {
  if (!(err instanceof TransportError)) {
    return new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', `data host call ${call.sid} failed unexpectedly`, { cause: err });
  }
  const outcome = transportOutcome(err);
  if (outcome === 'not-sent') return new NicepayGatewayError('NICEPAY_GATEWAY_UNREACHABLE', `data host ${call.sid}: ${err.message}`, { cause: err });
  if (outcome === 'http-status' && !call.mutating) {
    return new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `data host ${call.sid}: ${err.message}`, { cause: err });
  }
  return new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', `data host ${call.sid}: ${err.message}; the outcome is unknown`, { cause: err });
}
