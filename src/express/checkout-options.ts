import type { Request } from 'express';
import { NicepayConfigError } from '../errors/index.js';
import type { CommittedCheckout } from '../types/checkout.js';
import type { Charset } from '../wire/charset.js';
import { normalizeCharset } from '../wire/charset.js';
import type { EdiType } from '../wire/response-body.js';

/** Options of `nicepay.checkoutReturn()`, set per route. */
export interface CheckoutReturnOptions {
  /**
   * Required. The shop's own amount for an order, in won: the auth return's Amt is
   * buyer-controlled input. Return undefined (or null) for an unknown Moid: the request
   * then fails with 404 NICEPAY_UNKNOWN_ORDER before any gateway call.
   */
  expectedAmount: (moid: string, req: Request) => number | undefined | null | Promise<number | undefined | null>;
  /**
   * Runs once per TID after the gateway committed the payment (approved, or virtual account
   * issued), before `req.checkout` is set. If it throws, the approval is net-cancelled and
   * the request fails with NICEPAY_HOOK_FAILED, so the gateway never keeps a payment the
   * shop did not record.
   */
  onApproved?: (result: CommittedCheckout, req: Request) => void | Promise<void>;
  /**
   * Longest onApproved may take. Past it the hook counts as failed (the approval is
   * net-cancelled), so the idempotency lock never expires under a running hook. @default 30000
   */
  hookTimeoutMs?: number;
  /** Largest auth-return body, in bytes. @default 16384 */
  limit?: number;
  /** Charset of a return whose Content-Type names none. @default 'euc-kr' */
  defaultCharset?: Charset;
  /** CharSet asked of the approval response. @default 'euc-kr' */
  responseCharset?: Charset;
  /** EdiType asked of the approval response. @default 'JSON' */
  ediType?: EdiType;
  /** How long a TID's result is kept for duplicates, in ms. @default 86400000 (24 h) */
  resultTtlMs?: number;
}

/** The options with every default filled in. */
export interface ResolvedCheckoutOptions extends Required<Omit<CheckoutReturnOptions, 'onApproved'>> {
  onApproved: CheckoutReturnOptions['onApproved'];
}

/** Validates the route options when the middleware is created, naming the bad option. */
export function resolveCheckoutOptions(options: CheckoutReturnOptions): ResolvedCheckoutOptions {
  if (typeof options !== 'object' || options === null) throw new NicepayConfigError('checkoutReturn(options)', 'an object');
  if (typeof options.expectedAmount !== 'function') {
    throw new NicepayConfigError('expectedAmount', "a function (moid, req) => the order's amount; the auth return's Amt cannot be trusted");
  }
  if (options.onApproved !== undefined && typeof options.onApproved !== 'function') throw new NicepayConfigError('onApproved', 'a function');
  const limit = options.limit ?? 16_384;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new NicepayConfigError('limit', 'a positive number of bytes');
  const charset = (name: string, v: Charset | undefined): Charset => {
    const c = normalizeCharset(v ?? 'euc-kr');
    if (!c) throw new NicepayConfigError(name, "'euc-kr' or 'utf-8'");
    return c;
  };
  const ediType = options.ediType ?? 'JSON';
  if (ediType !== 'JSON' && ediType !== 'KV') throw new NicepayConfigError('ediType', "'JSON' or 'KV'");
  const hookTimeoutMs = options.hookTimeoutMs ?? 30_000;
  if (!Number.isSafeInteger(hookTimeoutMs) || hookTimeoutMs <= 0) throw new NicepayConfigError('hookTimeoutMs', 'a positive number of ms');
  const resultTtlMs = options.resultTtlMs ?? 86_400_000;
  if (!Number.isSafeInteger(resultTtlMs) || resultTtlMs <= 0) throw new NicepayConfigError('resultTtlMs', 'a positive number of ms');
  return {
    expectedAmount: options.expectedAmount,
    onApproved: options.onApproved,
    limit,
    defaultCharset: charset('defaultCharset', options.defaultCharset),
    responseCharset: charset('responseCharset', options.responseCharset),
    ediType,
    resultTtlMs,
    hookTimeoutMs,
  };
}
