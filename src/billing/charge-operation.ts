import type { ClientContext } from '../context.js';
import { cancelReversal } from '../cancel/reversal.js';
import { cardChargeCall, cardResult, chargeTable, type SentCharge } from '../keyin/card-charge.js';
import {
  type AnswerTable,
  CARD_COMPANY_TIMEOUTS,
  DUPLICATE_MOID_REFUSALS,
  type OperationCall,
  type OperationKind,
  type OwnTidOperation,
} from '../pipeline/index.js';
import { holdingByStatus } from '../status/holding.js';
import { secretDigest } from '../util/secret-digest.js';
import { BILLING_APPROVED_CODE, BILLING_CHARGE_PATH } from '../wire/billing-fields.js';
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
  return chargeTable(sent, {
    success: new Set([BILLING_APPROVED_CODE]),
    ambiguous: new Set(CARD_COMPANY_TIMEOUTS),
    chargedBefore: DUPLICATE_MOID_REFUSALS,
    amount: { field: 'Amt', value: sent.amount },
  });
}

/** One charge, as the ledger runs it: once per Moid, bound to the amount and the BID. */
export function billingChargeCall(
  ctx: ClientContext,
  kind: OperationKind<BillingChargeResult>,
  n: NormalizedCharge,
  hook: OperationCall<BillingChargeResult>['hook'],
): OwnTidOperation<BillingChargeResult> {
  return cardChargeCall(ctx, kind, n, hook, {
    keyPrefix: 'billing',
    issueTid: issueBillingTid,
    // A keyed digest binds the Moid to the amount and BID that paid it: never the BID itself.
    binding: secretDigest(ctx.config.merchantKey, 'billing-bid', String(n.amount), n.bid),
    repeatRefused: 'charged with another billing key or amount',
    path: BILLING_CHARGE_PATH,
    body: (tid, ediDate) => buildChargeForm(n, ctx.config.mid, ctx.config.merchantKey, tid, ediDate),
    table: billingChargeTable,
    // The answer's BID charges the card: never kept.
    keep: withoutBid,
  });
}
