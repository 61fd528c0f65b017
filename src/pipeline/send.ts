import type { ClientContext } from '../context.js';
import { NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { type AnswerTable, readAnswer, type Reading } from './answer-rules.js';
import { callGateway } from './gateway-call.js';
import type { LedgerOperation } from './ledger-record.js';
import type { ExchangeReading, GatewayRequest, OperationCall } from './operation.js';
import { type CallIds, callOperation } from './operations.js';
import type { Step } from './walk.js';

/** The call through the pipeline, and what its answer means as a state-machine event. */
export async function send<R>(ctx: ClientContext, call: OperationCall<R>): Promise<Step> {
  const { kind } = call;
  const reading = 'exchange' in call.send ? await call.send.exchange() : await post(ctx, kind.op, call.send);
  switch (reading.kind) {
    case 'success':
      return {
        event: 'committed',
        patch: { fields: call.keep ? call.keep(reading.fields) : reading.fields, resultCode: reading.code },
      };
    case 'refused': {
      const patch = {
        fields: call.keep ? call.keep(reading.fields) : reading.fields,
        resultCode: reading.code,
        reason: reading.message,
      };
      return call.refusal === 'kept' ? { event: 'declined', patch } : { event: 'refused', patch };
    }
    case 'refused-elsewhere':
      return {
        event: 'declined-unattributed',
        error: new NicepayRequestError(
          'NICEPAY_DECLINE_ORDER_MISMATCH',
          `the gateway declined TID ${call.start.tid} (${reading.code}) for another order or none, not for order ${call.start.moid}: the request is forged or mismatched; nothing was charged and no order's result is reported`,
          'Moid',
        ),
      };
    case 'invalid':
      return {
        event: 'invalid',
        error: new NicepayRequestError(
          'NICEPAY_RETURN_INVALID',
          `the gateway refused this request as not valid for TID ${call.start.tid} (${reading.code} ${reading.message}): it is nobody's order; nothing was charged or recorded`,
          'AuthToken',
        ),
      };
    case 'charged-before':
      // Nothing was charged for this request: forgotten like an invalid one, never a decline of
      // an order the earlier charge may have paid.
      return {
        event: 'invalid',
        error: new NicepayGatewayError(
          'NICEPAY_MOID_CHARGED_BEFORE',
          `${subjectOf(call)} was refused: the gateway says its Moid was charged before (${reading.code} ${reading.message}); nothing was charged now and nothing recorded, and the earlier charge stands: look it up before charging the order again under a new Moid`,
          { tid: call.start.tid, moid: call.start.moid, resultCode: reading.code },
        ),
      };
    case 'retry':
      return {
        event: 'retry',
        error: new NicepayGatewayError(
          'NICEPAY_RETRY_LATER',
          `${subjectOf(call)} was not done: the gateway answered ${reading.code} (${reading.message}); nothing changed, retry later`,
          { tid: call.start.tid, moid: call.start.moid, resultCode: reading.code },
        ),
      };
    case 'processed': {
      const recovery = call.recover
        ? await call.recover(reading)
        : { recovered: false as const, why: 'this operation cannot be recovered' };
      if (recovery.recovered)
        return { event: 'recovered', patch: { fields: recovery.fields, resultCode: reading.code, recovered: true } };
      return {
        event: 'processed-elsewhere',
        error: new NicepayRequestError(
          'NICEPAY_ALREADY_PROCESSED',
          `the gateway had processed TID ${call.start.tid} before (${reading.code}) and ${recovery.why}: answered as a duplicate; nothing was changed or recorded`,
          'TxTid',
        ),
      };
    }
    case 'unknown':
      return {
        // An operation that cannot be reversed (a cancel) is completed instead: sent again.
        event: kind.reversal ? 'lost' : 'unconfirmed',
        patch: {
          reason: reading.reason,
          ...(reading.code ? { resultCode: reading.code } : {}),
          ...(reading.unverified
            ? {
                error: reading.unverified === 'amount' ? 'NICEPAY_ANSWER_AMOUNT_MISMATCH' : 'NICEPAY_ANSWER_UNVERIFIED',
              }
            : {}),
        },
      };
    case 'not-sent':
      return {
        event: 'not-sent',
        error: new NicepayGatewayError(
          'NICEPAY_GATEWAY_UNREACHABLE',
          `${subjectOf(call)} was not sent: ${reading.reason}; nothing was charged, it may be retried`,
          { tid: call.start.tid, moid: call.start.moid, netCancel: 'not-attempted' },
        ),
      };
  }
}

/** What a message calls the operation: its kind, order and TID. */
function subjectOf(call: OperationCall<unknown>): string {
  return `${call.kind.what} of order ${call.start.moid} (TID ${call.start.tid})`;
}

/** A web-host call: posted through the pipeline and read by its answer table. */
function post(
  ctx: ClientContext,
  op: LedgerOperation,
  send: GatewayRequest & { table: AnswerTable; ids: Omit<CallIds, 'mid'> },
): Promise<ExchangeReading> {
  return callGateway<ExchangeReading>(ctx, {
    operation: callOperation(op),
    host: 'web',
    url: send.url,
    ids: send.ids,
    continuation: true,
    request: send.request,
    answer: (body) => readAnswer(body, send.table),
    lost: (failure) => ({ kind: 'unknown', reason: failure.message }),
    notSent: (failure) => ({ kind: 'not-sent', reason: failure.message }),
    report: reportOf,
  });
}

/** What a reading is, for the call's log line and diagnostics. */
function reportOf(r: Reading | { kind: 'not-sent' }): {
  outcome: 'succeeded' | 'refused' | 'retry' | 'unknown' | 'not-sent';
  resultCode?: string;
} {
  switch (r.kind) {
    case 'success':
      return { outcome: 'succeeded', resultCode: r.code };
    case 'refused':
    case 'refused-elsewhere':
    case 'invalid':
    case 'charged-before':
      return { outcome: 'refused', resultCode: r.code };
    case 'retry':
      return { outcome: 'retry', resultCode: r.code };
    case 'processed':
      return { outcome: 'unknown', resultCode: r.code };
    case 'unknown':
      return { outcome: 'unknown', ...(r.code ? { resultCode: r.code } : {}) };
    case 'not-sent':
      return { outcome: 'not-sent' };
  }
}
