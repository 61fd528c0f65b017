import type { ClientContext } from '../context.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { TransportError } from '../transport.js';
import { transportOutcome } from '../transport-failure.js';
import { checkFields } from '../wire/field-sizes.js';
import { encodeForm } from '../wire/form-codec.js';
import { kstTimestamp14, parseKstTimestamp } from '../wire/kst.js';
import { STATUS_PATH, STATUS_REQUEST_FIELDS } from '../wire/lifecycle-fields.js';
import { statusSignData } from '../wire/signatures.js';
import { type GatewayFields, ownField, parseGatewayBody } from '../wire/response-body.js';
import type { TransactionStatus } from './types.js';

const STATUS_OF: Readonly<Record<string, TransactionStatus['status']>> = { '0': 'approved', '1': 'cancelled', '9': 'not-found' };

/** Asks the gateway what became of a TID; see {@link TransactionStatus}. */
export type StatusFn = (tid: string) => Promise<TransactionStatus>;

/**
 * The status inquiry client (`POST {baseUrl}/webapi/inquery/trans_status.jsp`, lifecycle-facts
 * §4): SignData = sha256(TID + MID + EdiDate + key), the answer asked for as UTF-8 JSON. The
 * inquiry changes nothing, so every failure is a plain error the shop may retry.
 */
export function createStatusClient(ctx: ClientContext): StatusFn {
  const { config } = ctx;
  const url = gatewayEndpoint(config.baseUrl, STATUS_PATH);
  return async function status(tid: string): Promise<TransactionStatus> {
    if (typeof tid !== 'string' || tid.trim() === '' || tid !== tid.trim()) {
      throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'status: tid is required (a non-empty string without surrounding whitespace)', 400, 'tid');
    }
    if (ctx.isClosing()) throw new NicepayRequestError('NICEPAY_SHUTTING_DOWN', 'server is shutting down: no new status inquiry is sent; retry shortly');
    const ediDate = kstTimestamp14(config.clock());
    const fields = { TID: tid, MID: config.mid, EdiDate: ediDate, SignData: statusSignData(tid, config.mid, ediDate, config.merchantKey), CharSet: 'utf-8', EdiType: 'JSON' };
    const problem = checkFields(STATUS_REQUEST_FIELDS, fields, 'euc-kr');
    if (problem) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `status: ${problem.message}`, 400, problem.field === 'TID' ? 'tid' : problem.field);
    return ctx.track(ask(fields.TID, encodeForm(fields, 'euc-kr')));
  };

  async function ask(tid: string, form: Buffer): Promise<TransactionStatus> {
    const started = Date.now();
    let raw: GatewayFields;
    try {
      const res = await ctx.web.post(url, form, 'application/x-www-form-urlencoded; charset=euc-kr');
      raw = parseGatewayBody(res.body, 'utf-8', 'JSON');
    } catch (err) {
      // Only a request that never left is "unreachable"; a parse failure or a timeout after
      // sending is an unusable answer to a query (nothing changed either way).
      const unreachable = err instanceof TransportError && transportOutcome(err) === 'not-sent';
      config.logger.warn({ tid, step: 'status', durationMs: Date.now() - started }, 'status inquiry failed');
      throw new NicepayGatewayError(
        unreachable ? 'NICEPAY_GATEWAY_UNREACHABLE' : 'NICEPAY_GATEWAY_ERROR',
        `status inquiry of TID ${tid} failed: ${(err as Error).message}; nothing changed, it may be retried`,
        { tid, cause: err },
      );
    }
    const code = ownField(raw, 'ResultCode') ?? '';
    const statusText = ownField(raw, 'Status') ?? '';
    config.logger.info({ tid, step: 'status', resultCode: code, durationMs: Date.now() - started }, 'status inquiry answered');
    if (code !== '0000' || !Object.hasOwn(STATUS_OF, statusText) || (ownField(raw, 'TID') ?? tid) !== tid) {
      throw new NicepayGatewayError('NICEPAY_GATEWAY_ERROR', `status inquiry of TID ${tid} was refused: ${code || 'no ResultCode'} ${ownField(raw, 'ResultMsg') ?? ''}`.trim(), { tid, resultCode: code });
    }
    const authDateText = ownField(raw, 'AuthDate') ?? '';
    return {
      status: STATUS_OF[statusText]!,
      tid,
      authCode: ownField(raw, 'AuthCode') || undefined,
      authDate: authDateText ? parseKstTimestamp(authDateText) : undefined,
      message: ownField(raw, 'ResultMsg') ?? '',
      raw,
    };
  }
}
