import type { ClientContext } from '../context.js';
import { cancelFormNetCancel, cancelReversal } from '../cancel/reversal.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { NicepayRequestError } from '../errors/index.js';
import { cardResult, chargeTable, type SentCharge } from '../keyin/operation.js';
import type { AnswerTable, OperationCall, OperationKind } from '../pipeline/index.js';
import { holdingByStatus } from '../status/holding.js';
import { secretDigest } from '../util/secret-digest.js';
import { BILLING_APPROVED_CODE, BILLING_CHARGE_PATH } from '../wire/billing-fields.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { withoutBid } from './answer.js';
import { buildChargeForm } from './request.js';
import { issueBillingTid } from './tid.js';
import type { BillingChargeResult } from './types.js';
import type { NormalizedCharge } from './validate.js';

/** How long a charge's closed record answers repeats of its Moid (a month and then some). */
export const BILLING_RESULT_TTL_MS = 35 * 24 * 60 * 60 * 1000;

/**
 * The billing-charge kind of the ledger (billing-facts §1b): a record per Moid, its result the
 * card payment or the decline (read like key-in's), reversed by a cancel of the whole amount.
 */
export function billingChargeKind(ctx: ClientContext): OperationKind<BillingChargeResult> {
  return {
    op: 'billing.charge',
    what: 'billing charge',
    keepMs: BILLING_RESULT_TTL_MS,
    result: (r, duplicate) => cardResult(r, duplicate) as BillingChargeResult,
    reversal: (r) => cancelReversal(ctx.config, r),
    inquire: (r) => holdingByStatus(ctx, r.tid),
  };
}

/** A charge's answer table (billing-facts §1b): read like key-in's, 3001 approved. */
export function billingChargeTable(sent: SentCharge): AnswerTable {
  return chargeTable(sent, { success: new Set([BILLING_APPROVED_CODE]), amount: { field: 'Amt', value: sent.amount } });
}

/** One charge, as the ledger runs it: once per Moid, bound to the amount and the BID. */
export function billingChargeCall(ctx: ClientContext, kind: OperationKind<BillingChargeResult>, n: NormalizedCharge, hook: OperationCall<BillingChargeResult>['hook']): OperationCall<BillingChargeResult> {
  const { config } = ctx;
  // One reading of the clock: the TID's time part and EdiDate name the same second.
  const now = config.clock();
  const tid = issueBillingTid(config.mid, now);
  return {
    kind,
    key: `billing:${config.mid}:${n.moid}`,
    // A keyed digest binds the Moid to the amount and BID that paid it: never the BID itself.
    start: {
      tid, moid: n.moid, amount: n.amount, binding: secretDigest(config.merchantKey, 'billing-bid', String(n.amount), n.bid),
      data: { goodsName: n.goodsName, buyerName: n.buyerName ?? '', buyerEmail: n.buyerEmail ?? '', buyerTel: n.buyerTel ?? '' },
    },
    mismatch: () => new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', `order ${n.moid} was already charged with another billing key or amount; nothing was sent: use a new Moid for a new charge`, 'moid'),
    send: {
      url: gatewayEndpoint(config.baseUrl, BILLING_CHARGE_PATH),
      ids: { tid, moid: n.moid },
      request: () => ({ body: buildChargeForm(n, config.mid, config.merchantKey, tid, kstTimestamp14(now)), contentType: 'application/x-www-form-urlencoded; charset=euc-kr' }),
      table: billingChargeTable({ tid, mid: config.mid, moid: n.moid, amount: n.amount, charset: n.charset, ediType: n.ediType }),
    },
    // The answer's BID charges the card: never kept.
    keep: withoutBid,
    refusal: 'kept',
    reverseNow: cancelFormNetCancel(config, { tid, moid: n.moid, amount: n.amount }),
    ...(hook ? { hook } : {}),
  };
}
