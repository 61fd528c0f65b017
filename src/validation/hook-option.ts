import { NicepayRequestError } from '../errors/index.js';

/** When a call's onApproved `signal` aborts, unless the call says otherwise. */
export const HOOK_TIMEOUT_MS = 30_000;

/** A call's onApproved, checked: the function and when its signal aborts. */
export interface HookOption<A, C> {
  run(result: A, context: C): unknown;
  timeoutMs: number;
}

/**
 * Reads the `onApproved` and `hookTimeoutMs` options of one call (key-in, billing charge):
 * undefined without a hook; a hook that is not a function, or a timeout that is not a positive
 * number of ms, is this call's bad input (400 NICEPAY_FIELD_INVALID, nothing sent).
 */
export function hookOption<A, C>(
  what: string,
  input: { onApproved?: ((result: A, context: C) => unknown) | undefined; hookTimeoutMs?: number | undefined },
): HookOption<A, C> | undefined {
  const { onApproved, hookTimeoutMs } = input;
  if (onApproved !== undefined && typeof onApproved !== 'function') {
    throw new NicepayRequestError(
      'NICEPAY_FIELD_INVALID',
      `${what}: onApproved must be a function (result, { signal }) => void; nothing was sent`,
      'onApproved',
    );
  }
  const timeoutMs = hookTimeoutMs ?? HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw new NicepayRequestError(
      'NICEPAY_FIELD_INVALID',
      `${what}: hookTimeoutMs must be a positive number of ms; nothing was sent`,
      'hookTimeoutMs',
    );
  }
  return onApproved ? { run: onApproved, timeoutMs } : undefined;
}
