import { type ClientContext, registerRouteHook } from '../context.js';
import { NicepayHookError, NicepayRequestError } from '../errors/index.js';
import { type OperationKind, runOperation } from '../pipeline/index.js';
import type { CheckoutResult } from '../types/checkout.js';
import { parseAmount } from '../wire/amount.js';
import type { Charset } from '../wire/charset.js';
import { isPayMethod } from '../wire/payment-mapper.js';
import { returnBodyCharset, verifyAuthReturn } from './auth-return.js';
import { type CheckoutOptions, resolveCheckoutOptions } from './checkout-options.js';
import { approvalCall, type ApprovalResult } from './operation.js';
import { gatewayEndpoints } from './trusted-url.js';

/** The checkout-return flow of interface A, free of any web framework. */
export interface CheckoutClient<Req = unknown> {
  /** Largest auth-return body to read, in bytes (the route's `limit`). */
  readonly limit: number;
  /**
   * The charset to decode the body by, from the request's Content-Type and Content-Encoding;
   * throws 415 before anything is read. See {@link returnBodyCharset}.
   */
  bodyCharset(contentType: string | undefined, contentEncoding: string | undefined): Charset;
  /**
   * Verifies an auth return (its raw bytes, in `charset`) and approves it at most once per
   * TxTid, bound to its AuthToken, through the payment ledger. Resolves to the result, or
   * rejects with a NicepayError. `req` only reaches the shop's hooks.
   */
  complete(bytes: Uint8Array, charset: Charset, req: Req): Promise<CheckoutResult>;
}

/**
 * Creates the checkout-return client for one route. In order: decode and verify the return;
 * stop on a failed authentication; check the shop's own amount; then run the approval as one
 * ledger operation keyed by the TxTid and bound to its AuthToken (docs/security.md, "A TxTid is
 * bound to its AuthToken"), with onApproved as its hook. The route's onApproved is also the
 * one settlement runs again for an approval whose hook never resolved (with no request).
 */
export function createCheckoutClient<Req>(
  ctx: ClientContext,
  kind: OperationKind<ApprovalResult>,
  options: CheckoutOptions<Req>,
): CheckoutClient<Req> {
  const opts = resolveCheckoutOptions(options);
  const { config } = ctx;
  const endpoints = gatewayEndpoints(config);
  const onApproved = opts.onApproved;
  const hookName = onApproved
    ? registerRouteHook(ctx, 'approval', opts.name, (result, context) =>
        onApproved(result as Parameters<typeof onApproved>[0], undefined, context),
      )
    : undefined;

  async function complete(bytes: Uint8Array, charset: Charset, req: Req): Promise<CheckoutResult> {
    const v = verifyAuthReturn(bytes, charset, config, endpoints);
    if (!('kind' in v)) return v;
    const { moid, tid } = v;
    const amountOrPromise = opts.expectedAmount(moid, req);
    const expected = typeof amountOrPromise === 'number' ? amountOrPromise : await amountOrPromise;
    if (expected === undefined || expected === null) {
      throw new NicepayRequestError(
        'NICEPAY_UNKNOWN_ORDER',
        'no order with this Moid (expectedAmount returned nothing)',
        'Moid',
      );
    }
    if (!Number.isSafeInteger(expected) || expected <= 0) {
      throw new NicepayHookError(
        'NICEPAY_HOOK_RESULT_INVALID',
        `expectedAmount returned what is not a positive integer number of won for order ${moid}; nothing was sent`,
        { moid },
      );
    }
    if (parseAmount(v.amt) !== expected) {
      throw new NicepayRequestError(
        'NICEPAY_AMOUNT_MISMATCH',
        "auth return Amt differs from the order's amount; nothing was approved",
        'Amt',
      );
    }
    if (!isPayMethod(v.payMethod))
      throw new NicepayRequestError(
        'NICEPAY_FIELD_INVALID',
        'auth return: PayMethod must be CARD, BANK, VBANK or CELLPHONE',
        'PayMethod',
      );
    return runOperation(
      ctx,
      approvalCall(ctx, kind, {
        nextAppUrl: v.nextAppUrl,
        netCancelUrl: v.netCancelUrl,
        tid,
        authToken: v.authToken,
        // The verified auth Signature is already a keyed digest of the AuthToken: no second one.
        tokenDigest: v.signature,
        amount: expected,
        moid,
        payMethod: v.payMethod,
        responseCharset: opts.responseCharset,
        ediType: opts.ediType,
        keepMs: opts.resultTtlMs,
        ...(onApproved
          ? {
              hook: {
                run: (result, context) => onApproved(result as Parameters<typeof onApproved>[0], req, context),
                timeoutMs: opts.hookTimeoutMs,
                name: hookName,
              },
            }
          : {}),
      }),
    );
  }

  return {
    limit: opts.limit,
    bodyCharset: (contentType, contentEncoding) =>
      returnBodyCharset(contentType, contentEncoding, config.windowCharset),
    complete,
  };
}
