import { NicepayConfigError } from '../errors/index.js';
import type { CommittedCheckout } from '../types/checkout.js';
import type { EdiType } from '../wire/response-body.js';
import type { Charset } from '../wire/charset.js';
import { normalizeCharset } from '../wire/charset.js';
import { isObject } from '../util/is-object.js';
import { refuseUnknown } from '../validation/known-keys.js';
import { knownKeys } from '../validation/known-keys.js';
import type { HookContext } from '../pipeline/hook-runner.js';

/** What `onApproved` receives beside the result and the request: the one context of every hook. */
export type { HookContext };

/**
 * Options of the checkout-return client, set per route. `Req` is whatever the adapter passes
 * through to the shop's hooks (Express's Request for `checkoutReturn`); the client never
 * reads it.
 */
export interface CheckoutOptions<Req = unknown> {
  /**
   * Required. The shop's own amount for an order, in won: the auth return's Amt is
   * buyer-controlled input. Return undefined (or null) for an unknown Moid: the request
   * then fails with 404 NICEPAY_UNKNOWN_ORDER before any gateway call.
   */
  expectedAmount: (moid: string, req: Req) => number | undefined | null | Promise<number | undefined | null>;
  /**
   * Runs once per TID after the gateway committed the payment (approved, or virtual account
   * issued), before the result is returned. If it rejects, the approval is reversed and the
   * request fails with NICEPAY_HOOK_FAILED, so the gateway never keeps a payment the shop did
   * not record. Past `hookTimeoutMs` its `signal` aborts, and its own promise still decides.
   * `req` is undefined when settlement runs it again after the request that approved the
   * payment was lost (a crash, a hook that never settled): at-least-once, so make it
   * idempotent by TID (docs/hooks.md).
   */
  onApproved?: (result: CommittedCheckout, req: Req | undefined, context: HookContext) => void | Promise<void>;
  /**
   * When onApproved's `signal` aborts, asking it to give up. The hook's own promise still
   * decides if it settles within as long again (resolved: kept; rejected: net-cancelled), so
   * the gateway and the shop never disagree; one that never settles fails the request with
   * NICEPAY_HOOK_FAILED and keeps the payment while it runs (settlement takes over once it
   * ends). @default 30000
   */
  hookTimeoutMs?: number;
  /**
   * The name this route's onApproved is registered under in the ledger, so settlement runs this
   * route's hook, and no other, for this route's payments (docs/hooks.md). Name each route when
   * a shop has several. @default 'approval#n' for the n-th route created
   */
  name?: string;
  /** Largest auth-return body, in bytes. @default 16384 */
  limit?: number;
  /** CharSet asked of the approval response. @default 'euc-kr' */
  responseCharset?: Charset;
  /**
   * EdiType asked of the approval response. With `'KV'`, open this route's windows with
   * `paymentWindow({ ..., ediType: 'KV' })` too, so text the answer echoes is checked before
   * the buyer pays. @default 'JSON'
   */
  ediType?: EdiType;
  /** How long a TID's result is kept for duplicates, in ms. @default 86400000 (24 h) */
  resultTtlMs?: number;
}

/** Every option of {@link CheckoutOptions}; another key is a typo (`onApprove`) that would drop a hook. */
const CHECKOUT_OPTION_NAMES = knownKeys<CheckoutOptions>({
  expectedAmount: true,
  onApproved: true,
  hookTimeoutMs: true,
  name: true,
  limit: true,
  responseCharset: true,
  ediType: true,
  resultTtlMs: true,
});

/** The options with every default filled in. */
export interface ResolvedCheckoutOptions<Req = unknown>
  extends Required<Omit<CheckoutOptions<Req>, 'onApproved' | 'name'>> {
  onApproved: CheckoutOptions<Req>['onApproved'];
  name: string | undefined;
}

/** Validates the route options when the route is created, naming the bad option. */
export function resolveCheckoutOptions<Req>(options: CheckoutOptions<Req>): ResolvedCheckoutOptions<Req> {
  if (!isObject(options)) throw new NicepayConfigError('checkoutReturn(options)', 'an object');
  if ('defaultCharset' in options) {
    // The return is decoded by the charset the window was opened with.
    throw new NicepayConfigError(
      'defaultCharset',
      'no longer a route option: set `charset` on createNicepay(), the one charset of the window and its return',
    );
  }
  refuseUnknown(options, CHECKOUT_OPTION_NAMES, '', 'checkoutReturn()');
  if (typeof options.expectedAmount !== 'function') {
    throw new NicepayConfigError(
      'expectedAmount',
      "a function (moid, req) => the order's amount; the auth return's Amt cannot be trusted",
    );
  }
  if (options.onApproved !== undefined && typeof options.onApproved !== 'function')
    throw new NicepayConfigError('onApproved', 'a function');
  const limit = options.limit ?? 16_384;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new NicepayConfigError('limit', 'a positive number of bytes');
  const responseCharset = normalizeCharset(options.responseCharset ?? 'euc-kr');
  if (!responseCharset) throw new NicepayConfigError('responseCharset', "'euc-kr' or 'utf-8'");
  const ediType = options.ediType ?? 'JSON';
  if (ediType !== 'JSON' && ediType !== 'KV') throw new NicepayConfigError('ediType', "'JSON' or 'KV'");
  const hookTimeoutMs = options.hookTimeoutMs ?? 30_000;
  if (!Number.isSafeInteger(hookTimeoutMs) || hookTimeoutMs <= 0)
    throw new NicepayConfigError('hookTimeoutMs', 'a positive number of ms');
  const resultTtlMs = options.resultTtlMs ?? 86_400_000;
  if (!Number.isSafeInteger(resultTtlMs) || resultTtlMs <= 0)
    throw new NicepayConfigError('resultTtlMs', 'a positive number of ms');
  return {
    expectedAmount: options.expectedAmount,
    onApproved: options.onApproved,
    limit,
    responseCharset,
    ediType,
    resultTtlMs,
    hookTimeoutMs,
    name: options.name,
  };
}
