import type { ClientContext } from '../context.js';
import { type OperationKind, runOwnTidOperation } from '../pipeline/index.js';
import { cashReceiptCall } from './operation.js';
import type { CashReceiptClient, CashReceiptInput, CashReceiptResult } from './types.js';
import { maskIdentity, validateReceipt } from './validate.js';

/**
 * Creates `nicepay.cashReceipt`: one receipt per Moid as a ledger operation (key
 * `cash-receipt:${mid}:${moid}`). A receipt has no net cancel: an unknown outcome is settled
 * by reconciliation, and reversed by a cancel when the gateway issued it.
 */
export function createCashReceiptClient(ctx: ClientContext, kind: OperationKind<CashReceiptResult>): CashReceiptClient {
  return {
    async issue(input: CashReceiptInput): Promise<CashReceiptResult> {
      const n = validateReceipt(input);
      const result = await runOwnTidOperation(ctx, cashReceiptCall(ctx, kind, n));
      if (result.status === 'issued' && !result.duplicate)
        ctx.config.logger.info(
          { tid: result.tid, moid: result.moid, identity: maskIdentity(n.identity), step: 'cash-receipt' },
          'cash receipt issued',
        );
      return result;
    },
  };
}
