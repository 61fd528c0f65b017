import type { ClientContext } from '../context.js';
import { NicepayConfigError, NicepayHookError, NicepayRequestError } from '../errors/index.js';
import type { ApprovedKeyin, KeyinInput } from '../keyin/types.js';
import { approvedHookKey, errorText, runHookOnce } from './hook-runner.js';

/** When key-in's onApproved `signal` aborts, unless the call says otherwise (as checkout's). */
export const KEYIN_HOOK_TIMEOUT_MS = 30_000;

/** Key-in's onApproved and its timeout, checked once per call. */
export interface KeyinHook {
  onApproved: NonNullable<KeyinInput['onApproved']>;
  timeoutMs: number;
}

/** The hook a key-in call asks for, or undefined; a bad one is the shop's own mistake (500). */
export function keyinHookOf(input: KeyinInput): KeyinHook | undefined {
  const { onApproved, hookTimeoutMs } = input;
  if (onApproved !== undefined && typeof onApproved !== 'function') throw new NicepayConfigError('keyin onApproved', 'a function (result, { signal }) => void');
  const timeoutMs = hookTimeoutMs ?? KEYIN_HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new NicepayConfigError('keyin hookTimeoutMs', 'a positive number of ms');
  return onApproved ? { onApproved, timeoutMs } : undefined;
}

/**
 * Runs key-in's onApproved for an approved (or duplicate approved) result through the hook
 * runner, keyed by the TID like checkout's. It runs until it resolved once for the payment:
 * a resubmission after it threw runs it again, so the order gets recorded instead of showing
 * a paid duplicate the shop never recorded; one while it runs waits up to its timeout, then
 * is refused 409 NICEPAY_IN_PROGRESS. Key-in has no net cancel: if the hook rejects or never
 * settles, the card stays charged and the call rejects with NICEPAY_HOOK_FAILED and the TID.
 */
export async function runKeyinHook(ctx: ClientContext, result: ApprovedKeyin, hook: KeyinHook, resultTtlMs: number): Promise<void> {
  const { config } = ctx;
  const { tid, moid } = result;
  const run = await runHookOnce(
    { store: config.store, key: approvedHookKey(config.mid, tid), timeoutMs: hook.timeoutMs, resultTtlMs, logger: config.logger, hookName: 'onApproved', log: { tid, moid, step: 'keyin-hook' } },
    (context) => hook.onApproved(result, context),
  );
  if (run.state === 'done') return;
  if (run.state === 'in-progress') {
    throw new NicepayRequestError('NICEPAY_IN_PROGRESS', `onApproved of order ${moid} is still running (TID ${tid}); retry shortly`);
  }
  const { verdict } = run;
  if (verdict.kind === 'resolved') {
    if (verdict.late) config.logger.warn({ tid, moid, step: 'keyin-hook' }, 'onApproved settled after its signal aborted; it resolved, so the order is recorded');
    return;
  }
  if (verdict.kind === 'hung') {
    throw new NicepayHookError('NICEPAY_HOOK_FAILED', `onApproved of order ${moid} did not settle within ${2 * hook.timeoutMs} ms; the card WAS charged (TID ${tid}) and the hook runs on: it is not run again while it does; check the order`, { tid, moid, charged: true });
  }
  config.logger.error({ tid, moid, step: 'keyin-hook', late: verdict.late, error: errorText(verdict.error) }, 'onApproved failed after a key-in approval');
  throw new NicepayHookError('NICEPAY_HOOK_FAILED', `onApproved failed for order ${moid}; the card WAS charged (TID ${tid}) and key-in has no net cancel: a resubmission runs it again, or record or cancel it by hand`, { tid, moid, charged: true, cause: verdict.error });
}
