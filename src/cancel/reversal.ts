import type { ResolvedConfig } from '../config.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import type { AnswerTable, ReversalRequest } from '../pipeline/index.js';
import { CANCEL_DONE_CODES } from '../wire/cancel-codes.js';
import { ownField } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { CANCEL_PATH } from '../wire/lifecycle-fields.js';
import { EUC_KR_FORM } from '../wire/content-type.js';
import { cancelTable } from './operation.js';
import { buildCancelForm, cancelMoidOf } from './request.js';

/** What a cancel-shaped reversal needs of the operation it reverses. */
export interface Reversible {
  tid: string;
  moid: string;
  /** The whole amount: a reversal never cancels part of a payment. */
  amount: number;
}

/**
 * Settlement's reversal of a payment (an approval, key-in, billing charge or cash receipt): the
 * ordinary cancel of lifecycle-facts §2 for the whole amount, which works whenever it is sent (a
 * net cancel's window is short). Its Moid is derived from the TID and amount, the same for every
 * attempt, so a reversal repeated after its answer was lost is refused as done rather than done twice.
 */
export function cancelReversal(config: ResolvedConfig, op: Reversible): ReversalRequest {
  return {
    table: reversalTable(config, op),
    url: gatewayEndpoint(config.baseUrl, CANCEL_PATH),
    request: () => ({ body: reversalForm(config, op, '결제 취소(정산)', 'settle'), contentType: EUC_KR_FORM }),
  };
}

/**
 * The immediate reversal of a transaction without an AuthToken (a key-in or billing charge whose
 * outcome is unknown): the documented cancel of the whole amount with NetCancel=1.
 */
export function cancelFormNetCancel(config: ResolvedConfig, op: Reversible): ReversalRequest {
  return {
    table: reversalTable(config, op),
    url: gatewayEndpoint(config.baseUrl, CANCEL_PATH),
    request: () => ({
      body: Buffer.concat([reversalForm(config, op, '망취소', ''), Buffer.from('&NetCancel=1', 'latin1')]),
      contentType: EUC_KR_FORM,
    }),
  };
}

/**
 * The answer table of a reversal, net cancel or cancel: a cancel's (signed, naming the TID, the
 * whole amount as CancelAmt), where only a cancel done (2001, 2211) is a success: a refund still
 * to be paid out is not a reversal of a payment whose outcome was unknown. A net cancel's answer
 * may leave MID out (gateway-facts lists its fields without it): it must not name another, and
 * its Signature is then over the MID that was sent.
 */
export function reversalTable(config: ResolvedConfig, op: Reversible): AnswerTable {
  return {
    ...cancelTable(config, op),
    success: CANCEL_DONE_CODES,
    signature: (f) =>
      cancelResponseSignature(
        ownField(f, 'TID') ?? '',
        ownField(f, 'MID') || config.mid,
        ownField(f, 'CancelAmt') ?? '',
        config.merchantKey,
      ),
    mustEcho: { TID: op.tid },
    mayEcho: { MID: config.mid },
  };
}

function reversalForm(config: ResolvedConfig, op: Reversible, reason: string, key: string): Buffer {
  return buildCancelForm(config, {
    tid: op.tid,
    moid: op.moid,
    amount: op.amount,
    reason,
    partial: false,
    refund: undefined,
    key,
    cancelMoid: cancelMoidOf(op.tid, op.amount, key),
    remainingAmount: undefined,
    mallReserved: undefined,
  });
}
