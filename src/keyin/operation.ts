import type { ClientContext } from '../context.js';
import { cancelReversal } from '../cancel/reversal.js';
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
import { KEYIN_PATH, KEYIN_SUCCESS_CODE } from '../wire/keyin-fields.js';
import { cardChargeCall, cardResult, chargeTable, type SentCharge } from './card-charge.js';
import { buildKeyinRequest } from './request.js';
import { issueKeyinTid } from './tid.js';
import type { KeyinResult } from './types.js';
import type { NormalizedKeyin } from './validate.js';

/**
 * How long a key-in's closed record answers repeats of its Moid: as long as a billing charge's
 * (35 days), so a Moid resubmitted days later is answered from its record, never sent again. A
 * later repeat the gateway refuses as a duplicate Moid (1681) rejects, never charges again.
 */
export const KEYIN_RESULT_TTL_MS = 35 * 24 * 60 * 60 * 1000;

/**
 * 1621 (duplicate request): the gateway saw this TID before, so an earlier key-in with it may
 * have been charged: never a decline.
 */
const DUPLICATE_REQUEST = '1621';

/**
 * The key-in kind of the ledger (interface B): a record per Moid, its result the card payment
 * or the issuer's decline, reversed by a cancel of the whole amount, its state learned by the
 * status inquiry.
 */
export function keyinKind(ctx: ClientContext): OperationKind<KeyinResult> {
  return {
    op: 'keyin',
    what: 'key-in',
    keepMs: KEYIN_RESULT_TTL_MS,
    result: (r, duplicate) => cardResult(r, duplicate) as KeyinResult,
    reversal: (r) => cancelReversal(ctx.config, r),
    inquire: (r) => holdingByStatus(ctx, r.tid),
  };
}

/**
 * A key-in's answer table (gateway-interface.md, B): 3001 naming our TID and the amount sent,
 * and no other MID or Moid, is approved; 1621 can be read two ways; 1681 / A127 say the Moid was
 * charged before (no decline of the order); any other exact code is the issuer's decline (unless
 * it names another TID).
 */
export function keyinTable(sent: SentCharge): AnswerTable {
  return chargeTable(sent, {
    success: new Set([KEYIN_SUCCESS_CODE]),
    ambiguous: new Set([DUPLICATE_REQUEST, ...CARD_COMPANY_TIMEOUTS]),
    chargedBefore: DUPLICATE_MOID_REFUSALS,
    amount: { field: 'Amt', value: sent.amount },
  });
}

/** One key-in, as the ledger runs it: once per Moid, bound to the amount and the card. */
export function keyinCall(
  ctx: ClientContext,
  kind: OperationKind<KeyinResult>,
  n: NormalizedKeyin,
  hook: OperationCall<KeyinResult>['hook'],
): OwnTidOperation<KeyinResult> {
  return cardChargeCall(ctx, kind, n, hook, {
    keyPrefix: 'keyin',
    issueTid: issueKeyinTid,
    // Binds the Moid's record to the amount and the card that paid it (a keyed digest: never the
    // number), so a resubmission with another card is refused rather than shown the first payment.
    binding: secretDigest(ctx.config.merchantKey, 'keyin-card', String(n.amount), n.cardNumber, n.expiry),
    repeatRefused: 'submitted for key-in with another card or amount',
    path: KEYIN_PATH,
    body: (tid, ediDate) => buildKeyinRequest(n, ctx.config.mid, ctx.config.merchantKey, tid, ediDate).body,
    table: keyinTable,
    // A decline leaves nothing: the buyer may pay the same order with another card, and nobody
    // who learns a pending order's Moid can lock its buyer out by posting a card that fails.
    refusal: 'forgotten',
  });
}
