import type { ClientContext } from '../context.js';
import { NicepayDataApiError, NicepayGatewayError } from '../errors/index.js';
import type { ExchangeReading, Reading } from '../pipeline/index.js';
import { callDataHost, type DataCall } from './call.js';
import type { DataResponse } from './parse-response.js';

/**
 * One data-host call as a ledger operation's exchange (src/pipeline/operation.ts): callDataHost
 * sends it as part of the work already admitted (envelope, encKey, field sizes, strict reading,
 * the 8xxx / 9xxx rule) and what came of it becomes a reading the state machine understands:
 *
 * - a 0000 answer is what `success` reads of it (a success, or unknown when it does not verify);
 * - a refusal (any other resCode) is `refused` with its resCode and resMsg: nothing happened;
 * - a request that provably never left is `not-sent`;
 * - a lost, unusable or 8xxx / 9xxx answer is `unknown` (the gateway may have acted).
 *
 * Bad input, found before anything is sent, rejects as it was thrown (NICEPAY_FIELD_INVALID).
 */
export async function dataHostReading(ctx: ClientContext, call: DataCall, success: (res: DataResponse) => Reading): Promise<ExchangeReading> {
  let res: DataResponse;
  try {
    res = await callDataHost(ctx, { ...call, continuation: true });
  } catch (err) {
    if (err instanceof NicepayDataApiError) return { kind: 'refused', fields: {}, code: err.resCode, message: err.resMsg };
    if (err instanceof NicepayGatewayError) {
      if (err.code === 'NICEPAY_GATEWAY_UNREACHABLE') return { kind: 'not-sent', reason: err.message };
      return { kind: 'unknown', reason: err.message, ...(err.resultCode ? { code: err.resultCode } : {}) };
    }
    throw err;
  }
  return success(res);
}
