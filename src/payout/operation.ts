import type { ClientContext } from '../context.js';
import { dataHostRefusal, type DataCall } from '../data-api/call.js';
import { dataHostReading } from '../data-api/exchange.js';
import { pick, text, type JsonObject } from '../data-api/lenient.js';
import { NicepayGatewayError } from '../errors/index.js';
import type { Exchange, LedgerRecord, OperationCall, OperationKind, Reading } from '../pipeline/index.js';
import { readRecord } from '../pipeline/index.js';
import { digestEquals, secretDigest } from '../util/secret-digest.js';
import { PAYOUT_REQUEST_FIELDS, SID } from '../wire/data-fields.js';
import { payoutEncKey } from '../wire/signatures.js';
import { cancelKept } from './cancel-operation.js';
import {
  answerFields,
  answerOf,
  fromRecord,
  type NormalizedPayout,
  PAYOUT_RESULT_TTL_MS,
  payoutKeepMs,
  payoutStoreKey,
  payoutTally,
  seqOf,
  settlmntAmtOf,
  toData,
} from './payout-record.js';
import { findInResults, settleOnPayoutDay } from './settle-results.js';
import type { PayoutRequestResult } from './types.js';

/** 1103: a payout for the same subId and date is registered already (dupChkYn Y). */
const ALREADY_REGISTERED = '1103';

/**
 * The payout kind of the ledger (interface C, 0102001). A payout cannot be reversed (a cancel
 * needs its seq and is refused from 10:30 KST), so one whose outcome is unknown is settled to
 * what the gateway did ({@link settleOnPayoutDay}): before its day's 10:30 cut-off, with the
 * duplicate check, by sending it again (the gateway pays it, or refuses it as registered already,
 * 1103: it was done); otherwise by the result query from 16:00 KST of its day
 * ({@link findInResults}), waiting until then. A payout without the duplicate check is never
 * sent again: it could be paid twice.
 */
export function payoutKind(ctx: ClientContext): OperationKind<PayoutRequestResult> {
  return {
    op: 'payout',
    what: 'payout',
    keepMs: PAYOUT_RESULT_TTL_MS,
    result: payoutResult,
    inquire: () => Promise.reject(new Error('a payout is settled by sending it again or by its result query')),
    // Every payout of a sub-merchant and day: the result query tells them apart by their seqs.
    tally: (r) => payoutTally(r.mid, fromRecord(r)),
    resend: (r) => {
      const n = fromRecord(r);
      return settleOnPayoutDay(ctx, n.settlmntDt, {
        what: 'payout',
        again: n.dupCheck
          ? { ...requestExchange(ctx, n), doneAlready: (code) => code === ALREADY_REGISTERED }
          : undefined,
        notAgain: n.dupCheck
          ? "its day's 10:30 KST cut-off has passed, so it is not sent again"
          : 'a payout without the duplicate check is never sent again (it could be paid twice)',
        results: () => findInResults(ctx, r, n),
      });
    },
  };
}

/** The caller's result of a payout record: the payout (`seq` '' when the gateway confirmed it only by 1103), or the refusal thrown. */
function payoutResult(r: LedgerRecord, duplicate: boolean): PayoutRequestResult {
  const n = fromRecord(r);
  if (r.state === 'declined') {
    if (r.resultCode) throw dataHostRefusal(r.resultCode, r.reason ?? '', SID.payoutRequest, '/om/api');
    // Settlement found no such payout for a request whose process died before any answer.
    throw new NicepayGatewayError(
      'NICEPAY_OUTCOME_UNKNOWN',
      `payout of ${r.amount} won to ${n.subId} on ${n.settlmntDt}: ${r.reason ?? 'never made'}; nothing was paid out`,
      { settlement: 'never-charged' },
    );
  }
  const body = answerOf(r);
  const flag = text(body, 'dupChkYn', 'dupYn').toUpperCase();
  return {
    seq: text(body, 'seq'),
    subId: n.subId,
    settlmntDt: n.settlmntDt,
    amount: r.amount,
    dupCheck: flag === '' ? n.dupCheck : flag === 'Y',
    duplicate,
    cancelled: false,
    raw: body,
  };
}

/** The body of the payout request (0102001), encKey aside. */
export function requestBody(mid: string, n: NormalizedPayout): Record<string, string | undefined> {
  return {
    mid,
    settlmntDt: n.settlmntDt,
    subId: n.subId,
    settlmntAmt: String(n.amount),
    dupChkYn: n.dupCheck ? 'Y' : 'N',
    accntDesc: n.accntDesc,
  };
}

/** The payout request on the data host, read by {@link readPayoutAnswer}. */
function requestExchange(ctx: ClientContext, n: NormalizedPayout): Exchange {
  const { mid, merchantKey } = ctx.config;
  const call: DataCall = {
    path: '/om/api',
    sid: SID.payoutRequest,
    fields: PAYOUT_REQUEST_FIELDS,
    body: requestBody(mid, n),
    mutating: true,
    encKey: (trDtm) => payoutEncKey(SID.payoutRequest, mid, trDtm, merchantKey),
  };
  return {
    exchange: () => dataHostReading(ctx, call, (res) => readPayoutAnswer(mid, n, res.body)),
    amountChecked: true,
  };
}

/**
 * A 0000 answer to a payout request: a success only with a seq (without one the payout exists
 * and can be neither matched nor cancelled), and naming no other MID, subId, payout date or
 * amount than was sent (an echo left out is not held against it).
 */
function readPayoutAnswer(mid: string, n: NormalizedPayout, body: JsonObject): Reading {
  const code = '0000';
  if (!text(body, 'seq'))
    return { kind: 'unknown', reason: 'the data host accepted the payout request without a seq', code };
  for (const [field, sent] of [
    ['mid', mid],
    ['subId', n.subId],
    ['settlmntDt', n.settlmntDt],
  ] as const) {
    const echoed = text(body, field);
    if (echoed !== '' && echoed !== sent)
      return { kind: 'unknown', reason: `the answer (${code}) is for another ${field}`, code, unverified: 'answer' };
  }
  if (pick(body, 'settlmntAmt') !== undefined && settlmntAmtOf(body) !== n.amount) {
    return {
      kind: 'unknown',
      reason: `the answer (${code}) reports another settlmntAmt than was sent`,
      code,
      unverified: 'amount',
    };
  }
  return { kind: 'success', fields: answerFields(body), code };
}

/**
 * The request with its generation: with the duplicate check, a payout this ledger recorded and
 * the shop then cancelled (the ledger holds its cancel as kept: {@link cancelKept}) no longer
 * names the sub-merchant's payout of that day, as the gateway no longer counts it: the next key
 * is taken.
 */
export async function withGeneration(ctx: ClientContext, n: NormalizedPayout): Promise<NormalizedPayout> {
  if (!n.dupCheck) return n;
  for (let generation = 0; ; generation++) {
    const r = await readRecord(ctx, payoutStoreKey(ctx.config.mid, { ...n, generation }));
    const seq = r?.state === 'recorded' ? seqOf(r) : '';
    if (seq === '' || !(await cancelKept(ctx, { subId: n.subId, settlmntDt: n.settlmntDt, seq })))
      return { ...n, generation };
  }
}

/**
 * True when `call` repeats an operation the ledger holds (the same key and binding: a payout of
 * the same amount, the same payout cancel): it is answered from its record whatever the time, so
 * only another request meets the schedule rules first.
 */
export async function repeatsRecorded<R>(ctx: ClientContext, call: OperationCall<R>): Promise<boolean> {
  const r = await readRecord(ctx, call.key);
  return r !== undefined && digestEquals(r.binding, call.start.binding);
}

/**
 * One payout request, as the ledger runs it: once per sub-merchant and day with the duplicate
 * check (once per idempotencyKey without it), bound to the amount. The record names the payout
 * date as its TID and the subId as its Moid (a payout has no TID; its seq is in its fields).
 */
export function payoutCall(
  ctx: ClientContext,
  kind: OperationKind<PayoutRequestResult>,
  n: NormalizedPayout,
): OperationCall<PayoutRequestResult> {
  const { config } = ctx;
  return {
    kind,
    key: payoutStoreKey(config.mid, n),
    keepMs: payoutKeepMs(n.settlmntDt, config.clock()),
    start: {
      tid: n.settlmntDt,
      moid: n.subId,
      amount: n.amount,
      binding: secretDigest(config.merchantKey, 'payout', String(n.amount)),
      data: toData(n),
    },
    mismatch: {
      field: 'amount',
      message: (own) =>
        `a payout to ${own.moid} on ${own.tid}${n.dupCheck ? '' : ' under this idempotencyKey'} was requested before with another amount; nothing was sent`,
    },
    send: { ids: {}, ...requestExchange(ctx, n) },
    // Nothing was paid out: the caller may correct the cause (register the sub-merchant) and ask again.
    refusal: 'forgotten',
  };
}
