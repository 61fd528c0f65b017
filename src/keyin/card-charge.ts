/**
 * What the card charges the shop sends with a TID of its own share (key-in and billing charges;
 * cash receipts share the answer table): the call's shape, its answer table and its result.
 * Each declaration brings only what differs: its key, TID, binding, request and success code.
 */
import type { ClientContext } from '../context.js';
import { cancelFormNetCancel } from '../cancel/reversal.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import type { AnswerTable, LedgerRecord, OperationCall, OperationKind, OwnTidOperation } from '../pipeline/index.js';
import type { CardPayment } from '../types/payment.js';
import type { Charset } from '../wire/charset.js';
import { EUC_KR_FORM } from '../wire/content-type.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { frozenFields, mapPayment } from '../wire/payment-mapper.js';
import { type EdiType, ownField } from '../wire/response-body.js';
import type { ApprovedKeyin, KeyinResult } from './types.js';

/**
 * The result of a card charge's record (key-in and billing charges share it): the approved
 * payment, its fields the answer does not echo filled from what was sent, or the decline.
 */
export function cardResult(
  r: LedgerRecord,
  duplicate: boolean,
): ApprovedKeyin | Extract<KeyinResult, { status: 'declined' }> {
  const { tid, moid, amount } = r;
  const fields = r.fields ?? {};
  if (r.state === 'declined') {
    return {
      status: 'declined',
      code: r.resultCode ?? '',
      message: r.reason ?? ownField(fields, 'ResultMsg') ?? '',
      tid,
      moid,
      amount,
      duplicate,
      raw: frozenFields(fields),
    };
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

/** What a charge of order `n` sent under `tid` for `mid`, as its answer table checks it. */
export function sentCharge(
  mid: string,
  tid: string,
  n: Pick<SentCharge, 'moid' | 'amount' | 'charset' | 'ediType'>,
): SentCharge {
  return { tid, mid, moid: n.moid, amount: n.amount, charset: n.charset, ediType: n.ediType };
}

/**
 * The answer table of a charge the shop sent with a TID of its own (key-in, billing, cash
 * receipt): read in the CharSet and EdiType asked for, naming that TID, and no other MID or Moid;
 * `rest` says what success is and which amount field must be the one sent.
 */
export function chargeTable(sent: SentCharge, rest: Pick<AnswerTable, 'success'> & Partial<AnswerTable>): AnswerTable {
  return {
    charset: sent.charset,
    ediType: sent.ediType,
    mustEcho: { TID: sent.tid },
    mayEcho: { MID: sent.mid, Moid: sent.moid },
    ...rest,
  };
}

/** The order a card charge carries, as validated. */
export interface ChargeOrder {
  moid: string;
  amount: number;
  goodsName: string;
  buyerName: string | undefined;
  buyerEmail: string | undefined;
  buyerTel: string | undefined;
  charset: Charset;
  ediType: EdiType;
}

/** What one kind of card charge declares for {@link cardChargeCall}. */
export interface CardChargeSpec {
  /** The ledger key's prefix: a Moid is charged once under `${keyPrefix}:${MID}:${Moid}`. */
  keyPrefix: string;
  /** A new TID of this kind, its time part from `now`. */
  issueTid(mid: string, now: Date): string;
  /** The keyed digest binding the Moid to what paid it (never a card number or BID itself). */
  binding: string;
  /** How a repeat with another binding was charged, in its refusal: "already <this>". */
  repeatRefused: string;
  /** The gateway path the request is posted to. */
  path: string;
  /** The request body, EUC-KR form bytes, for this TID and EdiDate. */
  body(tid: string, ediDate: string): Buffer;
  /** The answer table for what was sent. */
  table(sent: SentCharge): AnswerTable;
  /** The answer's fields the record keeps (default: all). */
  keep?: OperationCall<unknown>['keep'];
  /** Whether a decline is kept for the Moid's repeats (default) or leaves nothing. */
  refusal?: OperationCall<unknown>['refusal'];
}

/**
 * One card charge sent with the shop's own TID, as the ledger runs it: once per Moid, bound to
 * what paid it, a decline kept unless the spec says otherwise, net-cancelled by a whole-amount
 * cancel.
 */
export function cardChargeCall<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  n: ChargeOrder,
  hook: OperationCall<R>['hook'],
  spec: CardChargeSpec,
): OwnTidOperation<R> {
  const { config } = ctx;
  // One reading of the clock: the TID's time part and EdiDate name the same second.
  const now = config.clock();
  return {
    kind,
    drawTid: () => spec.issueTid(config.mid, now),
    call: (tid) => ({
      kind,
      key: `${spec.keyPrefix}:${config.mid}:${n.moid}`,
      start: {
        tid,
        moid: n.moid,
        amount: n.amount,
        binding: spec.binding,
        data: {
          goodsName: n.goodsName,
          buyerName: n.buyerName ?? '',
          buyerEmail: n.buyerEmail ?? '',
          buyerTel: n.buyerTel ?? '',
        },
      },
      mismatch: {
        field: 'moid',
        message: (own) =>
          `order ${own.moid} was already ${spec.repeatRefused}; nothing was sent: use a new Moid for a new charge`,
      },
      send: {
        url: gatewayEndpoint(config.baseUrl, spec.path),
        ids: { tid, moid: n.moid },
        request: () => ({ body: spec.body(tid, kstTimestamp14(now)), contentType: EUC_KR_FORM }),
        table: spec.table(sentCharge(config.mid, tid, n)),
      },
      ...(spec.keep ? { keep: spec.keep } : {}),
      refusal: spec.refusal ?? 'kept',
      reverseNow: () => cancelFormNetCancel(config, { tid, moid: n.moid, amount: n.amount }),
      ...(hook ? { hook } : {}),
    }),
  };
}
