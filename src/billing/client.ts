import type { ClientContext } from '../context.js';
import { NicepayConfigError, NicepayGatewayError, NicepayRequestError, type NetCancelOutcome } from '../errors/index.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { approvedHookKey, errorText, runHookOnce } from '../pipeline/hook-runner.js';
import { admit, callGateway, type RecordCodec, runOnce, storeErrorText, withMerchantKeyHint } from '../pipeline/index.js';
import { digestEquals, secretDigest } from '../util/secret-digest.js';
import { BILLING_CHARGE_PATH, BILLING_REGISTER_PATH, BILLING_REMOVE_PATH } from '../wire/billing-fields.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { ownField } from '../wire/response-body.js';
import { readChargeAnswer } from './answer.js';
import { netCancelWithoutAuthToken } from '../pipeline/net-cancel.js';
import { approvedResult, type ChargeRecord, chargeResult } from './record.js';
import { createRegistration } from './register.js';
import { buildChargeForm } from './request.js';
import { issueBillingTid } from './tid.js';
import type { BillingChargeInput, BillingChargeResult, BillingClient } from './types.js';
import { maskBid, type NormalizedCharge, validateCharge } from './validate.js';

/** How long a charge's result (approved, declined, unknown, hook failed) answers repeats of its Moid. */
export const BILLING_RESULT_TTL_MS = 35 * 24 * 60 * 60 * 1000;
/** When onApproved's `signal` aborts, unless the call says otherwise. */
export const BILLING_HOOK_TIMEOUT_MS = 30_000;
/** Slack added to the outbound timeouts for the in-flight lock of a Moid. */
const LOCK_SLACK_MS = 10_000;
const FORM = 'application/x-www-form-urlencoded; charset=euc-kr';

/** Charge records are plain JSON: the answer without BID, never card data. */
const CHARGE_CODEC: RecordCodec<ChargeRecord> = { serialize: (r) => JSON.stringify(r), parse: (t) => JSON.parse(t) as ChargeRecord };

/**
 * Creates `nicepay.billing` over a client context. Every call goes through the pipeline; a
 * charge runs at most once per Moid through the store (key `billing:${mid}:${moid}`), its
 * unknown outcome or failed onApproved is net-cancelled, and onApproved runs through the hook
 * runner keyed by the TID.
 */
export function createBillingClient(ctx: ClientContext): BillingClient {
  const { config } = ctx;
  const chargeUrl = gatewayEndpoint(config.baseUrl, BILLING_CHARGE_PATH);
  const registration = createRegistration(ctx, gatewayEndpoint(config.baseUrl, BILLING_REGISTER_PATH), gatewayEndpoint(config.baseUrl, BILLING_REMOVE_PATH));

  /** Reverses a charge whose outcome is unknown or whose hook failed. */
  function reverse(tid: string, moid: string, amount: number): Promise<NetCancelOutcome> {
    return netCancelWithoutAuthToken(ctx, { tid, moid, amount });
  }

  /** The one real charge: the call, and then the net cancel or the hook. Returns what to store. */
  async function chargeOnce(n: NormalizedCharge, bidDigest: string, hook: Hook | undefined): Promise<ChargeRecord> {
    // One reading of the clock: the TID's time part and EdiDate name the same second.
    const now = config.clock();
    const tid = issueBillingTid(config.mid, now);
    const base = { tid, moid: n.moid, amount: n.amount, bidDigest, goodsName: n.goodsName, buyerName: n.buyerName ?? '', buyerEmail: n.buyerEmail ?? '', buyerTel: n.buyerTel ?? '' };
    type Read = Exclude<ChargeRecord, { kind: 'unknown' | 'hook-failed' }> | (typeof base & { kind: 'lost'; reason: string; code?: string });
    const read = await callGateway<Read>(ctx, {
      operation: 'billing.charge',
      host: 'web',
      url: chargeUrl,
      ids: { tid, moid: n.moid },
      continuation: true,
      request: () => ({ body: buildChargeForm(n, config.mid, config.merchantKey, tid, kstTimestamp14(now)), contentType: FORM }),
      notSent(failure) {
        throw new NicepayGatewayError('NICEPAY_GATEWAY_UNREACHABLE', `billing charge of order ${n.moid} was not sent: ${failure.message}; nothing was charged, it may be retried`, { tid, moid: n.moid, cause: failure });
      },
      lost: (failure) => ({ ...base, kind: 'lost', reason: failure.message }),
      answer(body) {
        const a = readChargeAnswer(body, { mid: config.mid, moid: n.moid, tid, amount: n.amount, charset: n.charset, ediType: n.ediType });
        if (a.kind === 'unknown') return { ...base, kind: 'lost', reason: a.reason };
        if (a.kind === 'refused') return { ...base, kind: 'declined', code: a.code, message: withMerchantKeyHint(a.code, a.message), raw: a.raw };
        return { ...base, kind: 'approved', raw: a.raw };
      },
      report: (r) => ({
        outcome: r.kind === 'approved' ? 'succeeded' : r.kind === 'declined' ? 'refused' : 'unknown',
        resultCode: r.kind === 'lost' ? undefined : ownField(r.raw, 'ResultCode'),
      }),
    });
    const log = { tid, moid: n.moid, bid: maskBid(n.bid), step: 'billing-charge' };
    if (read.kind === 'lost') {
      const outcome = await reverse(tid, n.moid, n.amount);
      config.logger.error({ ...log, netCancel: outcome }, 'billing charge outcome unknown; net cancel tried');
      return { ...base, kind: 'unknown', reason: read.reason, netCancel: outcome };
    }
    if (read.kind === 'declined' || !hook) return read;
    const failure = await runApprovedHook(approvedResult(read, config.mid, false), hook);
    if (failure === undefined) return read;
    // A hook that never settled may still record the order: reversing under it would split the
    // truth, so it is reported, not cancelled (its key stays locked until it settles).
    const outcome: NetCancelOutcome = failure.hung ? 'not-attempted' : await reverse(tid, n.moid, n.amount);
    config.logger.error({ ...log, netCancel: outcome, error: failure.reason }, 'onApproved failed after a billing charge; net cancel tried');
    return { ...base, kind: 'hook-failed', reason: failure.reason, netCancel: outcome };
  }

  /** Runs onApproved through the hook runner (one run per TID); undefined when it resolved. */
  async function runApprovedHook(result: ReturnType<typeof approvedResult>, hook: Hook): Promise<{ reason: string; hung: boolean } | undefined> {
    let run: Awaited<ReturnType<typeof runHookOnce>>;
    try {
      run = await runHookOnce(
        { store: config.store, key: approvedHookKey(config.mid, result.tid), timeoutMs: hook.timeoutMs, resultTtlMs: BILLING_RESULT_TTL_MS, logger: config.logger, hookName: 'onApproved', log: { tid: result.tid, moid: result.moid, step: 'billing-hook' } },
        (context) => hook.onApproved(result, context),
      );
    } catch (err) {
      // The store failed before the hook could start: the charge follows the hook that could
      // not run (reversed), never a committed charge the shop does not hear of.
      return { reason: `onApproved could not start: ${errorText(err)}`, hung: false };
    }
    // A fresh TID has no earlier run: 'done' or 'in-progress' cannot happen here but would mean resolved elsewhere.
    if (run.state !== 'ran') return run.state === 'done' ? undefined : { reason: 'onApproved is running elsewhere', hung: true };
    const { verdict } = run;
    if (verdict.kind === 'resolved') return undefined;
    if (verdict.kind === 'hung') return { reason: `onApproved did not settle within ${2 * hook.timeoutMs} ms`, hung: true };
    return { reason: errorText(verdict.error), hung: false };
  }

  async function charge(n: NormalizedCharge, hook: Hook | undefined): Promise<BillingChargeResult> {
    // Binds the Moid's result to the BID that paid it (a keyed digest: never the BID), so a
    // resubmission with another BID or amount is refused rather than shown the first charge.
    const bidDigest = secretDigest(config.merchantKey, 'billing-bid', n.bid);
    const lockTtlMs = config.connectMs + config.responseMs + LOCK_SLACK_MS + (hook ? 2 * hook.timeoutMs : 0) + config.connectMs + config.responseMs;
    const outcome = await runOnce(config.store, `billing:${config.mid}:${n.moid}`, { lockTtlMs, resultTtlMs: BILLING_RESULT_TTL_MS }, () => chargeOnce(n, bidDigest, hook), CHARGE_CODEC);
    if (!outcome) throw new Error('billing idempotency store returned no result');
    const record = outcome.value;
    if (!outcome.stored) {
      config.logger.error({ tid: record.tid, moid: n.moid, step: 'store', error: storeErrorText(outcome.storeError) }, 'billing charge result not stored: a resubmission of this Moid may charge again');
    }
    const duplicate = !outcome.fresh;
    if (duplicate && (record.amount !== n.amount || typeof record.bidDigest !== 'string' || !digestEquals(record.bidDigest, bidDigest))) {
      throw new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', `order ${n.moid} was already charged with another billing key or amount; nothing was sent: use a new Moid for a new charge`, 'moid');
    }
    return chargeResult(record, config.mid, duplicate);
  }

  return {
    register: (input) => registration.register(input),
    remove: (input) => registration.remove(input),
    charge(input: BillingChargeInput): Promise<BillingChargeResult> {
      try {
        const n = validateCharge(input);
        const hook = hookOf(input);
        return admit(ctx, 'billing charge', () => charge(n, hook));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}

interface Hook {
  onApproved: NonNullable<BillingChargeInput['onApproved']>;
  timeoutMs: number;
}

/** The hook a charge asks for, or undefined; a bad one is the shop's own mistake. */
function hookOf(input: BillingChargeInput): Hook | undefined {
  const { onApproved, hookTimeoutMs } = input;
  if (onApproved !== undefined && typeof onApproved !== 'function') throw new NicepayConfigError('billing.charge onApproved', 'a function (result, { signal }) => void');
  const timeoutMs = hookTimeoutMs ?? BILLING_HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new NicepayConfigError('billing.charge hookTimeoutMs', 'a positive number of ms');
  return onApproved ? { onApproved, timeoutMs } : undefined;
}
