import type { CommittedCheckout } from '../types/checkout.js';
import type { CheckoutOptions } from './checkout-options.js';

/**
 * What the shop's onApproved finally did: resolved or rejected (`late` when after its signal
 * aborted), or `hung`: still unsettled a second `timeoutMs` after the abort.
 */
export type HookVerdict =
  | { kind: 'resolved'; late: boolean }
  | { kind: 'rejected'; error: unknown; late: boolean }
  | { kind: 'hung' };

/**
 * Runs onApproved and lets its own promise decide (issue 18 item 3). `timeoutMs` decides
 * nothing by itself: it aborts the hook's `signal`, asking it to give up. Deciding at the
 * timeout would split the truth: a hook that goes on to record the order after the payment
 * was net-cancelled leaves the shop saying "paid" and the gateway "cancelled". So the payment
 * follows the hook: resolved means kept, rejected means net-cancelled, late or not. A hook
 * still unsettled `timeoutMs` after the abort is reported `hung` (the caller neither keeps
 * nor cancels: it may still record the order), which bounds the request, close() and the lock.
 */
export async function runApprovedHook<Req>(
  hook: NonNullable<CheckoutOptions<Req>['onApproved']>,
  result: CommittedCheckout,
  req: Req,
  timeoutMs: number,
): Promise<HookVerdict> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<HookVerdict>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`onApproved took longer than ${timeoutMs} ms`));
      timer = setTimeout(() => resolve({ kind: 'hung' }), timeoutMs);
    }, timeoutMs);
  });
  const settled = (async (): Promise<HookVerdict> => {
    try {
      await hook(result, req, { signal: controller.signal });
      return { kind: 'resolved', late: controller.signal.aborted };
    } catch (error) {
      return { kind: 'rejected', error, late: controller.signal.aborted };
    }
  })();
  try {
    return await Promise.race([settled, hung]);
  } finally {
    clearTimeout(timer);
  }
}
