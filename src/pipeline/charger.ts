import { type ClientContext, registerRouteHook } from '../context.js';
import { NicepayConfigError, NicepayRequestError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';
import { knownKeys, refuseUnknown } from '../validation/known-keys.js';
import { HOOK_TIMEOUT_MS } from '../validation/hook-option.js';
import type { HookContext } from './hook-runner-verdict.js';

/**
 * Options of a charger (`nicepay.keyinCharger()`, `nicepay.billing.charger()`): a charge
 * function whose onApproved is registered in the ledger under a name, as a route's is.
 */
export interface ChargerOptions<A> {
  /** Records an approved charge; runs once per TID, as a call's own `onApproved` does. */
  onApproved: (result: A, context: HookContext) => void | Promise<void>;
  /** When onApproved's `signal` aborts; its own promise still decides. @default 30000 */
  hookTimeoutMs?: number;
  /**
   * Required. The name the hook is registered under in the ledger, the same in every instance
   * that may settle its charges, and its own: a charge whose process died is settled with the
   * hook of this name on whichever instance settles it (an instance that never created it
   * leaves the charge to one that did).
   */
  name: string;
}

/** Every option of {@link ChargerOptions}. */
const CHARGER_OPTION_NAMES = knownKeys<ChargerOptions<unknown>>({ onApproved: true, hookTimeoutMs: true, name: true });

/** The hook a charger gives each of its calls: its function, its timeout and its registered name. */
export interface ChargerHook<A> {
  run: (result: A, context: HookContext) => unknown;
  timeoutMs: number;
  name: string;
}

/**
 * A charger's options checked (`what` names the method in errors) and its hook registered for
 * settlement under its name, for records of `operation` only. Throws NicepayConfigError for a
 * bad option, a missing name or a name already registered.
 */
export function chargerHook<A>(
  ctx: ClientContext,
  operation: string,
  what: string,
  options: ChargerOptions<A>,
): ChargerHook<A> {
  if (isObject(options)) refuseUnknown(options, CHARGER_OPTION_NAMES, '', `${what}()`);
  if (!isObject(options) || typeof options.onApproved !== 'function')
    throw new NicepayConfigError(`${what} onApproved`, 'a function (result, { signal }) => void');
  // No default: a default by creation order would bind one instance's charges to another's hook.
  if (typeof options.name !== 'string' || options.name === '')
    throw new NicepayConfigError(
      `${what} name`,
      "the hook's own name, the same in every instance that settles its charges",
    );
  const timeoutMs = options.hookTimeoutMs ?? HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)
    throw new NicepayConfigError(`${what} hookTimeoutMs`, 'a positive number of ms');
  const { onApproved } = options;
  const name = registerRouteHook(ctx, operation, options.name, (r, context) => onApproved(r as A, context));
  return { run: onApproved, timeoutMs, name };
}

/**
 * Refuses a charger call that brings a hook of its own: it would not be the one settlement runs
 * (400 NICEPAY_FIELD_INVALID, nothing sent).
 */
export function refuseOwnHook(what: string, input: unknown): void {
  const own = input as { onApproved?: unknown; hookTimeoutMs?: unknown };
  if (isObject(own) && (own.onApproved !== undefined || own.hookTimeoutMs !== undefined))
    throw new NicepayRequestError(
      'NICEPAY_FIELD_INVALID',
      `${what}: a charge through a charger runs the charger's onApproved; nothing was sent`,
      'onApproved',
    );
}
