import type { ClientContext } from '../context.js';
import { NicepayGatewayError, NicepayRequestError, NicepayHookError, NicepayServiceError } from '../errors/index.js';
import { admit, runFlowOnce } from '../pipeline/index.js';
import type { CheckoutResult, CommittedCheckout } from '../types/checkout.js';
import { digestEquals, secretDigest } from '../util/secret-digest.js';
import { parseAmount } from '../wire/amount.js';
import type { Charset } from '../wire/charset.js';
import { approve, outcomeError } from './approve.js';
import { type HookVerdict, runApprovedHook } from './approved-hook.js';
import { returnBodyCharset, verifyAuthReturn, type VerifiedReturn } from './auth-return.js';
import { type CheckoutOptions, resolveCheckoutOptions } from './checkout-options.js';
import { type CheckoutRecord, checkoutRecordCodec, parseRecord } from './checkout-record.js';
import { toCheckoutResult } from './checkout-result.js';
import { gatewayEndpoints } from './trusted-url.js';
import { netCancel } from '../pipeline/net-cancel.js';
import { claimTid } from './tid-claim.js';

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
   * TxTid and AuthToken, net-cancelling anything whose outcome is unknown. Resolves to the
   * result, or rejects with a NicepayError. `req` only reaches the shop's hooks.
   */
  complete(bytes: Uint8Array, charset: Charset, req: Req): Promise<CheckoutResult>;
}

/**
 * Creates the checkout-return client for one route. In order: decode and verify the return;
 * stop on a failed authentication; check the shop's own amount; then approve at most once per
 * (TxTid, AuthToken) through the store, bound to that token (docs/security.md, "A TxTid is
 * bound to its AuthToken"), and run onApproved.
 */
export function createCheckoutClient<Req>(ctx: ClientContext, options: CheckoutOptions<Req>): CheckoutClient<Req> {
  const opts = resolveCheckoutOptions(options);
  const { config } = ctx;
  // Approval and a possible net cancel each take at most connect + response; the hook is
  // asked to stop at hookTimeoutMs and waited for as long again (approved-hook.ts), plus
  // slack, so a live holder never loses its lock to a duplicate.
  const lockTtlMs = 2 * (config.connectMs + config.responseMs) + 2 * opts.hookTimeoutMs + 30_000;
  const onceOptions = { lockTtlMs, resultTtlMs: opts.resultTtlMs };
  const codec = checkoutRecordCodec(opts.responseCharset, opts.ediType);
  const endpoints = gatewayEndpoints(config);

  async function complete(bytes: Uint8Array, charset: Charset, req: Req): Promise<CheckoutResult> {
    const v = verifyAuthReturn(bytes, charset, config, endpoints);
    if (!('kind' in v)) return v;
    const { moid, tid } = v;
    const amountOrPromise = opts.expectedAmount(moid, req);
    const expected = typeof amountOrPromise === 'number' ? amountOrPromise : await amountOrPromise;
    if (expected === undefined || expected === null) {
      throw new NicepayRequestError('NICEPAY_UNKNOWN_ORDER', 'no order with this Moid (expectedAmount returned nothing)', 'Moid');
    }
    if (!Number.isSafeInteger(expected) || expected <= 0) {
      throw new NicepayHookError('NICEPAY_HOOK_RESULT_INVALID', `expectedAmount returned what is not a positive integer number of won for order ${moid}; nothing was sent`, { moid });
    }
    if (parseAmount(v.amt) !== expected) {
      throw new NicepayRequestError('NICEPAY_AMOUNT_MISMATCH', "auth return Amt differs from the order's amount; nothing was approved", 'Amt');
    }

    const tokenDigest = secretDigest(config.merchantKey, 'checkout-auth-token', v.authToken);
    // The key holds the token's digest: a return with another token on this TxTid never
    // reads, waits on or overwrites this token's result.
    const key = `checkout:${config.mid}:${tid}:${tokenDigest.slice(0, 32)}`;
    // Admitted (refused after close(), else tracked) as a whole: the wait behind a duplicate,
    // the approval, its net cancel or recovery, and the hook.
    const once = await admit(ctx, 'approval', () =>
      runFlowOnce(ctx, {
        key,
        ...onceOptions,
        codec: { serialize: codec.serialize, parse: (text) => readStored(text, tid, moid) },
        ids: { tid, moid },
        noResult: () => new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', 'approval produced no result', { tid, moid }),
        notStored: 'approval result not stored: a duplicate may be declined by the gateway',
        // A fresh value is this request's own work, bound to its token by construction.
        binding: {
          matches: (record) => digestEquals(record.tokenDigest, tokenDigest),
          mismatch: () => new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', `TID ${tid} was presented with another AuthToken; its result is not served and nothing was sent`, 'AuthToken'),
        },
      }, () => approveAndRecord(v, expected, tokenDigest, req)),
    );
    return toCheckoutResult(once.record, once.duplicate);
  }

  /** A duplicate's stored record; one this instance cannot read means the TID may be charged. */
  function readStored(text: string, tid: string, moid: string): CheckoutRecord {
    try {
      return parseRecord(text);
    } catch {
      throw new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', `the stored result for TID ${tid} cannot be read; it may be approved: reconcile it`, { tid, moid });
    }
  }

  async function approveAndRecord(v: VerifiedReturn, amount: number, tokenDigest: string, req: Req): Promise<CheckoutRecord> {
    const { tid, moid } = v;
    const claim = await claimTid(config.store, `checkout-tid:${config.mid}:${tid}`, tokenDigest, lockTtlMs);
    let record: CheckoutRecord | undefined;
    try {
      const outcome = await approve(ctx, {
        nextAppUrl: v.nextAppUrl,
        netCancelUrl: v.netCancelUrl,
        tid,
        authToken: v.authToken,
        amount,
        moid,
        payMethod: v.payMethod,
        responseCharset: opts.responseCharset,
        ediType: opts.ediType,
      });
      if (outcome.kind === 'failed' && outcome.code === 'NICEPAY_GATEWAY_UNREACHABLE') {
        // Never sent: nothing to remember. Throwing releases both keys, so the buyer may retry.
        throw outcomeError(outcome, tid, moid);
      }
      record = Object.assign(outcome, { moid, tid, amount, tokenDigest });
      if (record.kind === 'committed' && opts.onApproved) record = await afterHook(record, v, req);
      return record;
    } finally {
      // Only a token the gateway accepted (or may have) owns the TID; a decline or a call
      // never sent leaves it free, so a forged return posted first never blocks the buyer.
      await claim.settle(record !== undefined && record.kind !== 'declined', config.logger, opts.resultTtlMs);
    }
  }

  async function afterHook(record: CheckoutRecord & { kind: 'committed' }, v: VerifiedReturn, req: Req): Promise<CheckoutRecord> {
    const { tid, moid, amount, tokenDigest } = record;
    let verdict: HookVerdict;
    try {
      verdict = await runApprovedHook(ctx, opts.onApproved!, toCheckoutResult(record, false) as CommittedCheckout, req, opts.hookTimeoutMs, opts.resultTtlMs);
    } catch (err) {
      // In progress (another request runs this TID's hook) is passed on: that run decides.
      if (!(err instanceof NicepayServiceError)) throw err;
      // The store could not even let the hook start, after the gateway committed. A store that
      // fails may also have lost this TID's lock, so another instance may be recovering the
      // same approval and recording it right now: a net cancel here could reverse a payment the
      // shop records. The payment is kept and nothing is stored for this TID (the throw frees
      // its key): the buyer's retry, once the store answers, finds the approval at the gateway,
      // recovers it through the status inquiry and runs the hook; or the shop reconciles.
      config.logger.error({ tid, moid, step: 'on-approved', netCancel: 'not-attempted', error: err.message }, 'onApproved could not start: the store failed; the payment was not cancelled');
      throw new NicepayHookError('NICEPAY_HOOK_FAILED', `onApproved could not start (${err.message}); the payment was NOT cancelled and the order is not recorded yet: the buyer's retry records it once the store answers, or reconcile TID ${tid}`, { tid, moid, netCancel: 'not-attempted' });
    }
    if (verdict.kind === 'resolved') {
      if (verdict.late) config.logger.warn({ tid, moid, step: 'on-approved' }, 'onApproved settled after its signal aborted; it resolved, so the payment is kept');
      return record;
    }
    if (verdict.kind === 'hung') {
      // Neither kept nor cancelled for sure: the hook may still record the order, so a net
      // cancel now could split the truth the other way. The shop reconciles the TID.
      config.logger.error({ tid, moid, step: 'on-approved', netCancel: 'not-attempted' }, 'onApproved never settled after its signal aborted; the payment was not cancelled');
      return {
        kind: 'failed',
        code: 'NICEPAY_HOOK_FAILED',
        message: `onApproved did not settle within ${opts.hookTimeoutMs} ms after its signal aborted; the payment was NOT cancelled and the order may or may not be recorded: reconcile TID ${tid}`,
        netCancel: 'not-attempted',
        moid, tid, amount, tokenDigest,
      };
    }
    const err = verdict.error as Error | undefined;
    if (record.recovered) {
      // A recovered approval was committed by an earlier request whose own run of the hook may
      // have recorded the order before the store forgot it: reversing now could leave the shop
      // with a paid order the gateway cancelled. The payment stays; the shop reconciles.
      config.logger.error({ tid, moid, step: 'on-approved', netCancel: 'not-attempted', recovered: true, error: err?.message }, 'onApproved failed for a recovered approval; the payment was not cancelled');
      return {
        kind: 'failed',
        code: 'NICEPAY_HOOK_FAILED',
        message: `onApproved failed (${String(err?.message ?? err).slice(0, 200)}) for a recovered approval, which an earlier request may already have recorded; the payment was NOT cancelled: reconcile TID ${tid}`,
        netCancel: 'not-attempted',
        moid, tid, amount, tokenDigest,
      };
    }
    const nc = await netCancel(ctx, { netCancelUrl: v.netCancelUrl, tid, authToken: v.authToken, amount, moid });
    config.logger.error({ tid, moid, step: 'on-approved', netCancel: nc, late: verdict.late, error: err?.message }, 'onApproved failed');
    return {
      kind: 'failed',
      code: 'NICEPAY_HOOK_FAILED',
      message: `onApproved failed (${String(err?.message ?? err).slice(0, 200)}); net cancel ${nc === 'succeeded' ? 'succeeded: nothing was charged' : 'FAILED: reconcile TID ' + tid}`,
      netCancel: nc,
      moid, tid, amount, tokenDigest,
    };
  }

  return {
    limit: opts.limit,
    bodyCharset: (contentType, contentEncoding) => returnBodyCharset(contentType, contentEncoding, config.windowCharset),
    complete,
  };
}
