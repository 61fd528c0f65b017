import type { ClientContext } from '../context.js';
import { type OperationKind, runOperation } from '../pipeline/index.js';
import { cancelCall } from './operation.js';
import { validateCancel } from './request.js';
import type { CancelInput, CancelResult } from './types.js';

/** Cancels and refunds; see {@link Nicepay.cancel}. */
export type CancelFn = (input: CancelInput) => Promise<CancelResult>;

/**
 * The cancel client (lifecycle-facts §2): validates, then runs each (TID, amount, key) as one
 * ledger operation. A cancelled or refunded outcome answers repeats for a day; a refusal, a
 * retry answer or an unsent call keeps nothing (nothing happened: the shop may try again); an
 * unknown outcome is completed by settlement, which sends the same cancel again.
 */
export function createCancelClient(ctx: ClientContext, kind: OperationKind<CancelResult>): CancelFn {
  return async function cancel(input: CancelInput): Promise<CancelResult> {
    return runOperation(ctx, cancelCall(ctx, kind, validateCancel(input)));
  };
}
