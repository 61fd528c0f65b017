import type { ClientContext } from '../context.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { callGateway, readAnswerFields, readResultCode, withMerchantKeyHint } from '../pipeline/index.js';
import { checkFields } from '../wire/field-sizes.js';
import { encodeForm } from '../wire/form-codec.js';
import { kstTimestamp14, parseKstTimestamp } from '../wire/kst.js';
import { STATUS_PATH, STATUS_REQUEST_FIELDS } from '../wire/lifecycle-fields.js';
import { statusSignData } from '../wire/signatures.js';
import { ownField } from '../wire/response-body.js';
import type { TransactionStatus } from './types.js';
import { EUC_KR_FORM } from '../wire/content-type.js';

const STATUS_OF: Readonly<Record<string, TransactionStatus['status']>> = {
  '0': 'approved',
  '1': 'cancelled',
  '9': 'not-found',
};

/**
 * Asks the gateway what became of a TID; see {@link TransactionStatus}. Rejects with
 * NICEPAY_FIELD_INVALID (bad tid), NICEPAY_SHUTTING_DOWN, NICEPAY_GATEWAY_UNREACHABLE (nothing
 * sent), NICEPAY_GATEWAY_ERROR (no usable answer) or NICEPAY_QUERY_REFUSED (the gateway refused
 * the inquiry; a refused signature says to check merchantKey). Nothing changes at the gateway
 * either way, so each may be retried.
 */
export type StatusFn = (tid: string) => Promise<TransactionStatus>;

/**
 * The status inquiry client (`POST {baseUrl}/webapi/inquery/trans_status.jsp`, lifecycle-facts
 * §4): SignData = sha256(TID + MID + EdiDate + key), the answer asked for as UTF-8 JSON. The
 * inquiry changes nothing, so every failure is a plain error the shop may retry.
 */
export function createStatusClient(ctx: ClientContext): StatusFn {
  return (tid) => askStatus(ctx, tid, false);
}

/**
 * One status inquiry through the pipeline. `continuation` when it settles work already in
 * flight (an unknown approval or cancel): then it is neither refused while closing nor
 * tracked again.
 */
export function askStatus(ctx: ClientContext, tid: string, continuation: boolean): Promise<TransactionStatus> {
  const { config } = ctx;
  if (typeof tid !== 'string' || tid.trim() === '' || tid !== tid.trim()) {
    return Promise.reject(
      new NicepayRequestError(
        'NICEPAY_FIELD_INVALID',
        'status: tid is required (a non-empty string without surrounding whitespace)',
        'tid',
      ),
    );
  }
  const unusable = (why: string, cause?: unknown): NicepayGatewayError =>
    new NicepayGatewayError(
      'NICEPAY_GATEWAY_ERROR',
      `status inquiry of TID ${tid} failed: ${why}; nothing changed, it may be retried`,
      { tid, cause },
    );
  return callGateway<TransactionStatus>(ctx, {
    operation: 'status',
    host: 'web',
    url: gatewayEndpoint(config.baseUrl, STATUS_PATH),
    ids: { tid },
    continuation,
    request() {
      const ediDate = kstTimestamp14(config.clock());
      const fields = {
        TID: tid,
        MID: config.mid,
        EdiDate: ediDate,
        SignData: statusSignData(tid, config.mid, ediDate, config.merchantKey),
        CharSet: 'utf-8',
        EdiType: 'JSON',
      };
      const problem = checkFields(STATUS_REQUEST_FIELDS, fields, 'euc-kr');
      if (problem)
        throw new NicepayRequestError(
          'NICEPAY_FIELD_INVALID',
          `status: ${problem.message}`,
          problem.field === 'TID' ? 'tid' : problem.field,
        );
      return { body: encodeForm(fields, 'euc-kr'), contentType: EUC_KR_FORM };
    },
    // A timeout after sending or an error status is an unusable answer to a query.
    lost: (failure) => {
      throw unusable(failure.message, failure);
    },
    answer(body) {
      const read = readAnswerFields(body, 'utf-8', 'JSON');
      if (!read.ok) throw unusable(read.reason);
      const { raw } = read;
      const reading = readResultCode(raw);
      const code = reading.kind === 'code' ? reading.code : '';
      const statusText = ownField(raw, 'Status') ?? '';
      if (code !== '0000' || !Object.hasOwn(STATUS_OF, statusText) || (ownField(raw, 'TID') ?? tid) !== tid) {
        const said = `${code || 'no exact ResultCode'} ${ownField(raw, 'ResultMsg') ?? ''}`.trim();
        // A 0000 that does not say a Status of this TID is not an answer; another code is a refusal.
        if (code === '0000' || code === '') throw unusable(`the answer does not say the status of this TID (${said})`);
        throw new NicepayGatewayError(
          'NICEPAY_QUERY_REFUSED',
          withMerchantKeyHint(code, `status inquiry of TID ${tid} was refused: ${said}; nothing changed`),
          { tid, resultCode: code },
        );
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
    },
    report: () => ({ outcome: 'answered', resultCode: '0000' }),
  });
}
