import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { approve, outcomeError } from '../approval/approve.js';
import { netCancel } from '../approval/net-cancel.js';
import { trustedUrlChecker } from '../approval/trusted-url.js';
import type { ClientContext } from '../context.js';
import { NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { runOnce, storeErrorText } from '../store/wait-for-result.js';
import type { CheckoutResult, CommittedCheckout } from '../types/checkout.js';
import { parseAmount } from '../wire/amount.js';
import { AUTH_RETURN_FIELDS, AUTH_SUCCESS_REQUIRED, checkFields } from '../wire/field-sizes.js';
import { decodeForm, type FormFields } from '../wire/form-codec.js';
import { ownField } from '../wire/response-body.js';
import { hexEquals } from '../wire/hash.js';
import { frozenFields, isPayMethod, mapPayment } from '../wire/payment-mapper.js';
import { authReturnSignature } from '../wire/signatures.js';
import { type CheckoutReturnOptions, resolveCheckoutOptions } from './checkout-options.js';
import { type CheckoutRecord, parseRecord, serializeRecord } from './checkout-record.js';
import { readFormBody } from './read-body.js';

export type { CheckoutReturnOptions } from './checkout-options.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verified outcome of the payment window's return, set by `checkoutReturn()`. */
      checkout?: CheckoutResult;
    }
  }
}

/**
 * Builds the return-route middleware (interface A). In order: read and decode the body
 * itself; validate fields; stop on a failed authentication; check the auth-return
 * Signature, the NextAppURL / NetCancelURL hosts and the shop's own amount; then approve at
 * most once per TxTid through the store, net-cancelling anything whose outcome is unknown.
 */
export function checkoutReturn(ctx: ClientContext, options: CheckoutReturnOptions): RequestHandler {
  const opts = resolveCheckoutOptions(options);
  const { config } = ctx;
  // Approval and a possible net cancel each take at most connect + response; the hook is
  // bounded too, so a live holder never loses its lock to a duplicate.
  const lockTtlMs = 2 * (config.connectMs + config.responseMs) + opts.hookTimeoutMs + 30_000;
  const trustedGatewayUrl = trustedUrlChecker(config);
  const onceOptions = { lockTtlMs, resultTtlMs: opts.resultTtlMs };

  async function handle(req: Request): Promise<CheckoutResult> {
    const { bytes, charset } = await readFormBody(req, { limit: opts.limit, defaultCharset: opts.defaultCharset });
    let form: FormFields;
    try {
      form = decodeForm(bytes, charset, { maxFields: 64 });
    } catch (err) {
      throw new NicepayRequestError('NICEPAY_BODY_MALFORMED', `auth return is not a valid ${charset} form: ${(err as Error).message}`, 400, undefined, err);
    }
    const problem = checkFields(AUTH_RETURN_FIELDS, form, charset);
    if (problem) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `auth return: ${problem.message}`, 400, problem.field);
    if (form.MID !== config.mid) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'auth return: MID is not this merchant', 400, 'MID');
    const moid = form.Moid!;

    if (form.AuthResultCode !== '0000') {
      return { status: 'auth-failed', moid, code: form.AuthResultCode!, message: form.AuthResultMsg ?? '', duplicate: false };
    }
    for (const field of AUTH_SUCCESS_REQUIRED) {
      if (!form[field]) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `auth return: ${field} is required`, 400, field);
    }
    const { AuthToken: authToken, TxTid: tid, Amt: amt } = form as Record<(typeof AUTH_SUCCESS_REQUIRED)[number], string>;
    if (!isPayMethod(form.PayMethod ?? '')) {
      throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'auth return: PayMethod must be CARD, BANK, VBANK or CELLPHONE', 400, 'PayMethod');
    }
    if (!hexEquals(authReturnSignature(authToken, config.mid, amt, config.merchantKey), form.Signature!)) {
      throw new NicepayRequestError('NICEPAY_SIGNATURE_MISMATCH', 'auth return Signature does not verify (is merchantKey the one of this MID?)', 400, 'Signature');
    }
    const nextAppUrl = trustedGatewayUrl(form.NextAppURL!, 'NextAppURL');
    const netCancelUrl = trustedGatewayUrl(form.NetCancelURL!, 'NetCancelURL');

    const amountOrPromise = opts.expectedAmount(moid, req);
    const expected = typeof amountOrPromise === 'number' ? amountOrPromise : await amountOrPromise;
    if (expected === undefined || expected === null) {
      throw new NicepayRequestError('NICEPAY_UNKNOWN_ORDER', 'no order with this Moid (expectedAmount returned nothing)', 404, 'Moid');
    }
    if (!Number.isSafeInteger(expected) || expected <= 0) {
      throw new NicepayRequestError('NICEPAY_CONFIG_INVALID', 'expectedAmount must return a positive integer number of won', 500);
    }
    if (parseAmount(amt) !== expected) {
      throw new NicepayRequestError('NICEPAY_AMOUNT_MISMATCH', "auth return Amt differs from the order's amount; nothing was approved", 400, 'Amt');
    }
    if (ctx.isClosing()) throw new NicepayGatewayError('NICEPAY_SHUTTING_DOWN', 'server is shutting down; retry shortly', { tid, moid });

    const v: Verified = { form, moid, tid, authToken, amount: expected, nextAppUrl, netCancelUrl, stored: undefined };
    const once = await runOnce(config.store, `checkout:${config.mid}:${tid}`, onceOptions, () =>
      ctx.track(approveAndRecord(req, v)),
    );
    if (!once) throw new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', 'approval produced no result', { tid, moid });
    if (!once.stored) {
      config.logger.error({ tid, moid, step: 'store', error: storeErrorText(once.storeError) }, 'approval result not stored: a duplicate may be declined by the gateway');
    }
    // The request that did the work already holds its outcome: only a duplicate reads the
    // stored record back.
    if (once.fresh && v.stored) return toResult(v.stored, false);
    let record: CheckoutRecord;
    try {
      record = parseRecord(once.value);
    } catch {
      // Another instance (or another version) wrote a result this one cannot read: the TID
      // went through approval once, so it may be charged.
      throw new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', `the stored result for TID ${tid} cannot be read; it may be approved: reconcile it`, { tid, moid });
    }
    return toResult(record, !once.fresh);
  }

  interface Verified {
    form: FormFields; moid: string; tid: string; authToken: string; amount: number; nextAppUrl: URL; netCancelUrl: URL;
    /** The outcome approveAndRecord stored, kept for the request that did the work. */
    stored: CheckoutRecord | undefined;
  }

  async function approveAndRecord(req: Request, v: Verified): Promise<string> {
    const outcome = await approve(ctx, {
      nextAppUrl: v.nextAppUrl,
      netCancelUrl: v.netCancelUrl,
      tid: v.tid,
      authToken: v.authToken,
      amount: v.amount,
      moid: v.moid,
      payMethod: v.form.PayMethod ?? '',
      responseCharset: opts.responseCharset,
      ediType: opts.ediType,
    });
    if (outcome.kind === 'failed' && outcome.code === 'NICEPAY_GATEWAY_UNREACHABLE') {
      // Never sent: nothing to remember. Throwing releases the key, so the buyer may retry.
      throw outcomeError(outcome, v.tid, v.moid);
    }
    let stored: CheckoutRecord = Object.assign(outcome, { moid: v.moid, tid: v.tid, amount: v.amount });
    if (outcome.kind === 'committed' && opts.onApproved) {
      try {
        await withTimeout(opts.onApproved(toResult(stored, false) as CommittedCheckout, req), opts.hookTimeoutMs);
      } catch (err) {
        const nc = await netCancel(ctx, { netCancelUrl: v.netCancelUrl, tid: v.tid, authToken: v.authToken, amount: v.amount });
        config.logger.error({ tid: v.tid, moid: v.moid, step: 'on-approved', netCancel: nc, error: (err as Error)?.message }, 'onApproved failed');
        stored = {
          kind: 'failed',
          code: 'NICEPAY_HOOK_FAILED',
          message: `onApproved failed (${String((err as Error)?.message ?? err).slice(0, 200)}); net cancel ${nc === 'succeeded' ? 'succeeded: nothing was charged' : 'FAILED: reconcile TID ' + v.tid}`,
          netCancel: nc,
          moid: v.moid,
          tid: v.tid,
          amount: v.amount,
        };
      }
    }
    v.stored = stored;
    return serializeRecord(stored, opts.responseCharset, opts.ediType);
  }

  return function nicepayCheckoutReturn(req: Request, _res: Response, next: NextFunction): void {
    handle(req).then(
      (result) => {
        req.checkout = result;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** Resolves like `work`, or rejects once `ms` have passed. */
async function withTimeout(work: void | Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`onApproved took longer than ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function toResult(s: CheckoutRecord, duplicate: boolean): CheckoutResult {
  const { moid, tid, amount } = s;
  switch (s.kind) {
    case 'committed': {
      const payment = mapPayment(s.raw, s.method, amount);
      return payment.method === 'VBANK'
        ? { moid, tid, amount, duplicate, status: 'awaiting-deposit', payment }
        : { moid, tid, amount, duplicate, status: 'approved', payment };
    }
    case 'declined':
      return { moid, tid, amount, duplicate, status: 'declined', code: ownField(s.raw, 'ResultCode') ?? '', message: ownField(s.raw, 'ResultMsg') ?? '', raw: frozenFields(s.raw) };
    case 'failed':
      throw outcomeError(s, s.tid, s.moid);
  }
}
