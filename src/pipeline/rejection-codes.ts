import type { NicepayErrorCode } from '../errors/index.js';
import type { OperationCall } from './operation.js';

/**
 * Every code the pipeline can reject one call of an operation with, read off its declaration:
 * the refusals before anything is sent (bad input, busy, store, closing, unreachable), an unknown
 * outcome, and what its answer table and hook make possible (a Signature or echo that does not
 * verify, another amount, a retry answer, an invalid token, an already-processed TID, a refusal
 * naming another order, a failed hook). Each method's rejection list is held against it.
 */
export function pipelineCodes<R>(call: OperationCall<R>): ReadonlySet<NicepayErrorCode> {
  const codes = new Set<NicepayErrorCode>([
    'NICEPAY_FIELD_INVALID',
    'NICEPAY_IN_PROGRESS',
    'NICEPAY_STORE_UNAVAILABLE',
    'NICEPAY_STORE_FULL',
    'NICEPAY_SHUTTING_DOWN',
    'NICEPAY_GATEWAY_UNREACHABLE',
    'NICEPAY_OUTCOME_UNKNOWN',
    'NICEPAY_ANSWER_UNVERIFIED',
  ]);
  // An exchange (a data-host call) reads its own answers: success, refusal or unknown.
  const table = 'table' in call.send ? call.send.table : undefined;
  if (call.start.binding !== '') codes.add('NICEPAY_DUPLICATE_MISMATCH');
  if (table?.amount || ('exchange' in call.send && call.send.amountChecked))
    codes.add('NICEPAY_ANSWER_AMOUNT_MISMATCH');
  if (table?.retry) codes.add('NICEPAY_RETRY_LATER');
  if (table?.invalid) codes.add('NICEPAY_RETURN_INVALID');
  if (table?.processed) codes.add('NICEPAY_ALREADY_PROCESSED');
  if (table?.chargedBefore) codes.add('NICEPAY_MOID_CHARGED_BEFORE');
  if (table?.refusalMustName) codes.add('NICEPAY_DECLINE_ORDER_MISMATCH');
  if (call.hook) codes.add('NICEPAY_HOOK_FAILED');
  return codes;
}
