import type { ClientContext } from '../context.js';
import { cancelFormNetCancel, cancelReversal } from '../cancel/reversal.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { NicepayRequestError } from '../errors/index.js';
import type { AnswerTable, HookContext, LedgerRecord, OperationCall, OperationKind } from '../pipeline/index.js';
import type { Charset } from '../wire/charset.js';
import type { EdiType } from '../wire/response-body.js';
import { holdingByStatus } from '../status/holding.js';
import type { CardPayment } from '../types/payment.js';
import { secretDigest } from '../util/secret-digest.js';
import { KEYIN_PATH, KEYIN_SUCCESS_CODE } from '../wire/keyin-fields.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { frozenFields, mapPayment } from '../wire/payment-mapper.js';
import { ownField } from '../wire/response-body.js';
import { buildKeyinRequest } from './request.js';
import { issueKeyinTid } from './tid.js';
import type { ApprovedKeyin, KeyinResult } from './types.js';
import type { NormalizedKeyin } from './validate.js';

/** How long a key-in's closed record answers repeats of its Moid. */
export const KEYIN_RESULT_TTL_MS = 24 * 60 * 60 * 1000;

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
 * The result of a card charge's record (key-in and billing charges share it): the approved
 * payment, its fields the answer does not echo filled from what was sent, or the decline.
 */
export function cardResult(r: LedgerRecord, duplicate: boolean): ApprovedKeyin | Extract<KeyinResult, { status: 'declined' }> {
  const { tid, moid, amount } = r;
  const fields = r.fields ?? {};
  if (r.state === 'declined') {
    return { status: 'declined', code: r.resultCode ?? '', message: r.reason ?? ownField(fields, 'ResultMsg') ?? '', tid, moid, amount, duplicate, raw: frozenFields(fields) };
  }
  const payment = mapPayment(fields, 'CARD', amount) as CardPayment;
  payment.mid ||= r.mid;
  payment.moid ||= moid;
  payment.goodsName ||= r.data.goodsName ?? '';
  payment.buyerName ||= r.data.buyerName ?? '';
  payment.buyerEmail ||= r.data.buyerEmail ?? '';
  payment.buyerTel ||= r.data.buyerTel ?? '';
  return { status: 'approved', payment, tid, moid, amount, duplicate };
}

/** What a card charge sent, to read its answer against. */
export interface SentCharge {
  tid: string;
  mid: string;
  moid: string;
  amount: number;
  charset: Charset;
  ediType: EdiType;
}

/**
 * A key-in's answer table (gateway-interface.md, B): 3001 naming our TID and the amount sent,
 * and no other MID or Moid, is approved; 1621 can be read two ways; any other exact code is the
 * issuer's decline (unless it names another TID).
 */
export function keyinTable(sent: SentCharge): AnswerTable {
  return chargeTable(sent, { success: new Set([KEYIN_SUCCESS_CODE]), ambiguous: new Set([DUPLICATE_REQUEST]), amount: { field: 'Amt', value: sent.amount } });
}

/**
 * The answer table of a charge the shop sent with a TID of its own (key-in, billing, cash
 * receipt): read in the CharSet and EdiType asked for, naming that TID, and no other MID or Moid;
 * `rest` says what success is and which amount field must be the one sent.
 */
export function chargeTable(sent: SentCharge, rest: Pick<AnswerTable, 'success'> & Partial<AnswerTable>): AnswerTable {
  return { charset: sent.charset, ediType: sent.ediType, mustEcho: { TID: sent.tid }, mayEcho: { MID: sent.mid, Moid: sent.moid }, ...rest };
}

/** One key-in, as the ledger runs it: once per Moid, bound to the amount and the card. */
export function keyinCall(ctx: ClientContext, kind: OperationKind<KeyinResult>, n: NormalizedKeyin, hook: OperationCall<KeyinResult>['hook']): OperationCall<KeyinResult> {
  const { config } = ctx;
  // One reading of the clock: the TID's time part and EdiDate name the same second.
  const now = config.clock();
  const tid = issueKeyinTid(config.mid, now);
  return {
    kind,
    key: `keyin:${config.mid}:${n.moid}`,
    // Binds the Moid's record to the amount and the card that paid it (a keyed digest: never the
    // number), so a resubmission with another card is refused rather than shown the first payment.
    start: {
      tid, moid: n.moid, amount: n.amount, binding: secretDigest(config.merchantKey, 'keyin-card', String(n.amount), n.cardNumber, n.expiry),
      data: { goodsName: n.goodsName, buyerName: n.buyerName ?? '', buyerEmail: n.buyerEmail ?? '', buyerTel: n.buyerTel ?? '' },
    },
    mismatch: () => new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', `order ${n.moid} was already submitted for key-in with another card or amount; nothing was sent: use a new Moid for a new charge`, 'moid'),
    send: {
      url: gatewayEndpoint(config.baseUrl, KEYIN_PATH),
      ids: { tid, moid: n.moid },
      request: () => ({ body: buildKeyinRequest(n, config.mid, config.merchantKey, tid, kstTimestamp14(now)).body, contentType: 'application/x-www-form-urlencoded; charset=euc-kr' }),
      table: keyinTable({ tid, mid: config.mid, moid: n.moid, amount: n.amount, charset: n.charset, ediType: n.ediType }),
    },
    refusal: 'kept',
    reverseNow: cancelFormNetCancel(config, { tid, moid: n.moid, amount: n.amount }),
    ...(hook ? { hook } : {}),
  };
}
