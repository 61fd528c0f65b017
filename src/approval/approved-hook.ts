import type { ClientContext } from '../context.js';
import { NicepayRequestError } from '../errors/index.js';
import { approvedHookKey, runHookOnce, type HookVerdict } from '../pipeline/hook-runner.js';
import type { CommittedCheckout } from '../types/checkout.js';
import type { CheckoutOptions } from './checkout-options.js';

export type { HookVerdict } from '../pipeline/hook-runner.js';

/**
 * Runs checkout's onApproved through the hook runner, keyed by the TID (the key key-in's
 * onApproved and a recovered approval use too), and answers with what the hook finally did.
 * The payment follows the hook: resolved means kept, rejected means net-cancelled, `hung`
 * means neither (the hook may still record the order; its key stays locked until it settles).
 * A hook that already resolved for this TID (a recovered approval whose first run was
 * recorded) counts as resolved; one still running elsewhere is refused as in progress.
 */
export async function runApprovedHook<Req>(
  ctx: ClientContext,
  hook: NonNullable<CheckoutOptions<Req>['onApproved']>,
  result: CommittedCheckout,
  req: Req,
  timeoutMs: number,
  resultTtlMs: number,
): Promise<HookVerdict> {
  const { config } = ctx;
  const run = await runHookOnce(
    { store: config.store, key: approvedHookKey(config.mid, result.tid), timeoutMs, resultTtlMs, logger: config.logger, hookName: 'onApproved', log: { tid: result.tid, moid: result.moid, step: 'on-approved' } },
    (context) => hook(result, req, context),
  );
  if (run.state === 'done') return { kind: 'resolved', late: false };
  if (run.state === 'in-progress') {
    throw new NicepayRequestError('NICEPAY_IN_PROGRESS', `onApproved for TID ${result.tid} is still running; retry shortly`);
  }
  return run.verdict;
}
