import type { CommittedCheckout } from '../types/checkout.js';
import type { CheckoutOptions } from './checkout-options.js';

/** What the shop's onApproved finally did. `late` when it settled after its signal aborted. */
export type HookVerdict = { ok: true; late: boolean } | { ok: false; error: unknown; late: boolean };

/**
 * Runs onApproved and waits for its own promise to settle, however long it takes (issue 18
 * item 3). `timeoutMs` does not decide anything: it only aborts the hook's `signal`, asking it
 * to give up. Deciding at the timeout would split the truth: a hook that goes on to record the
 * order after the payment was net-cancelled leaves the shop saying "paid" and the gateway
 * "cancelled". So the payment follows the hook: resolved means kept, rejected means
 * net-cancelled, late or not.
 */
export async function runApprovedHook<Req>(
  hook: NonNullable<CheckoutOptions<Req>['onApproved']>,
  result: CommittedCheckout,
  req: Req,
  timeoutMs: number,
): Promise<HookVerdict> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`onApproved took longer than ${timeoutMs} ms`)), timeoutMs);
  try {
    await hook(result, req, { signal: controller.signal });
    return { ok: true, late: controller.signal.aborted };
  } catch (error) {
    return { ok: false, error, late: controller.signal.aborted };
  } finally {
    clearTimeout(timer);
  }
}
