import type { ClientContext } from '../context.js';
import { type DataCall, dataHostRefusal } from '../data-api/call.js';
import { dataHostReading } from '../data-api/exchange.js';
import { pick, text, type JsonObject } from '../data-api/lenient.js';
import { NicepayGatewayError } from '../errors/index.js';
import {
  type Exchange,
  type ExchangeReading,
  type LedgerRecord,
  type OperationCall,
  type OperationKind,
  type Reading,
  readRecord,
  readTallyValues,
} from '../pipeline/index.js';
import { PAYOUT_CANCEL_FIELDS, SID } from '../wire/data-fields.js';
import { payoutEncKey } from '../wire/signatures.js';
import {
  answerFields,
  answerOf,
  PAYOUT_RESULT_TTL_MS,
  payoutCancelStoreKey,
  payoutKeepMs,
  type PayoutSeq,
  payoutTally,
  seqOf,
  settlmntAmtOf,
} from './payout-record.js';
import { findCancelInResults, settleOnPayoutDay } from './settle-results.js';
import type { PayoutCancelResult } from './types.js';

/**
 * 1104, no request data: the gateway holds no live payout under the seq. Sent again after a
 * first sending whose answer was lost, it says the first one deleted it (or that the seq named
 * none to begin with, which the first sending was refused for alike): either way nothing is paid
 * under that seq, which is what the cancel was for.
 */
const NO_REQUEST_DATA = '1104';
/** 1107: past the day's 10:30 cut-off (or the payout was executed at 11:00). */
const PAST_CUTOFF = '1107';

/**
 * The payout cancel kind of the ledger (interface C, 0103001). A cancel cannot be reversed, so
 * one whose outcome is unknown is settled to what the gateway did ({@link settleOnPayoutDay}):
 * before its day's 10:30 KST cut-off by sending it again (the gateway cancels it, or answers
 * 1104, no live payout under the seq: done); otherwise by the result query from 16:00 KST of its
 * day ({@link findCancelInResults}: the seq listed deleted, kept; else it never happened).
 */
export function payoutCancelKind(ctx: ClientContext): OperationKind<PayoutCancelResult> {
  return {
    op: 'payout.cancel',
    what: 'payout cancel',
    keepMs: PAYOUT_RESULT_TTL_MS,
    result: cancelResult,
    inquire: () => Promise.reject(new Error('a payout cancel is settled by sending it again or by its result query')),
    resend: (r) => {
      const c = fromRecord(r);
      return settleOnPayoutDay(ctx, c.settlmntDt, {
        what: 'payout cancel',
        again: { ...cancelExchange(ctx, c, r.amount, true), doneAlready: (code) => code === NO_REQUEST_DATA },
        notAgain: "its day's 10:30 KST cut-off has passed, so it is not sent again",
        results: () => findCancelInResults(ctx, c),
      });
    },
  };
}

/** The caller's result of a payout cancel record: the cancelled payout, or the refusal thrown. */
function cancelResult(r: LedgerRecord, duplicate: boolean): PayoutCancelResult {
  const c = fromRecord(r);
  if (r.state === 'declined') {
    if (r.resultCode) throw dataHostRefusal(r.resultCode, r.reason ?? '', SID.payoutCancel, '/om/api');
    // Settlement found the payout not deleted, for a cancel whose process died before any answer.
    throw new NicepayGatewayError(
      'NICEPAY_OUTCOME_UNKNOWN',
      `payout cancel of ${c.seq} to ${c.subId} on ${c.settlmntDt}: ${r.reason ?? 'never made'}; nothing was cancelled`,
      { settlement: 'never-charged' },
    );
  }
  // {} when the gateway confirmed it only by 1104: the amount is then the ledger's record of the payout.
  const body = answerOf(r);
  return {
    mid: r.mid,
    subId: c.subId,
    settlmntDt: c.settlmntDt,
    amount: settlmntAmtOf(body) ?? r.amount,
    seq: c.seq,
    duplicate,
    raw: body,
  };
}

/** The body of the payout cancel (0103001), encKey aside. */
export function cancelBody(mid: string, c: PayoutSeq): Record<string, string> {
  return { mid, settlmntDt: c.settlmntDt, subId: c.subId, seq: c.seq };
}

/**
 * The payout cancel on the data host, read by {@link readCancelAnswer}. Sent `again` by
 * settlement, a cut-off refusal (1107) is no word on the first sending (the gateway's clock may
 * pass 10:30 before this one): it is unknown, and the day's result query tells.
 */
function cancelExchange(ctx: ClientContext, c: PayoutSeq, payoutAmount: number, again: boolean): Exchange {
  const { mid, merchantKey } = ctx.config;
  const call: DataCall = {
    path: '/om/api',
    sid: SID.payoutCancel,
    fields: PAYOUT_CANCEL_FIELDS,
    body: cancelBody(mid, c),
    mutating: true,
    encKey: (trDtm) => payoutEncKey(SID.payoutCancel, mid, trDtm, merchantKey),
  };
  return {
    async exchange(): Promise<ExchangeReading> {
      const reading = await dataHostReading(ctx, call, (res) => readCancelAnswer(mid, c, payoutAmount, res.body));
      if (!again || reading.kind !== 'refused' || reading.code !== PAST_CUTOFF) return reading;
      return {
        kind: 'unknown',
        reason: `sent again, the cancel met the gateway's 10:30 cut-off (${PAST_CUTOFF}): the result query of ${c.settlmntDt} tells, from 16:00 KST`,
        code: PAST_CUTOFF,
      };
    },
    amountChecked: payoutAmount > 0,
  };
}

/**
 * A 0000 answer to a payout cancel: a success only when it names the seq it cancelled (without
 * one, nothing says which payout went), naming no other MID, subId or payout date than was sent,
 * nor another settlmntAmt than the ledger's record of that payout (when it holds one).
 */
function readCancelAnswer(mid: string, c: PayoutSeq, payoutAmount: number, body: JsonObject): Reading {
  const code = '0000';
  const seq = text(body, 'seq');
  if (seq === '')
    return {
      kind: 'unknown',
      reason: 'the data host accepted the payout cancel without naming the seq it cancelled',
      code,
    };
  if (seq !== c.seq)
    return { kind: 'unknown', reason: `the answer (${code}) is for another seq`, code, unverified: 'answer' };
  for (const [field, sent] of [
    ['mid', mid],
    ['subId', c.subId],
    ['settlmntDt', c.settlmntDt],
  ] as const) {
    const echoed = text(body, field);
    if (echoed !== '' && echoed !== sent)
      return { kind: 'unknown', reason: `the answer (${code}) is for another ${field}`, code, unverified: 'answer' };
  }
  if (payoutAmount > 0 && pick(body, 'settlmntAmt') !== undefined && settlmntAmtOf(body) !== payoutAmount) {
    return {
      kind: 'unknown',
      reason: `the answer (${code}) reports another settlmntAmt than the ledger's payout ${c.seq}`,
      code,
      unverified: 'amount',
    };
  }
  return { kind: 'success', fields: answerFields(body), code };
}

/** What the record keeps of the cancel, so settlement can send it again or find it. */
function toData(c: PayoutSeq): Record<string, string> {
  return { subId: c.subId, settlmntDt: c.settlmntDt, seq: c.seq };
}

/** The cancel a record holds (its schedule was checked when it was first sent). */
function fromRecord(r: LedgerRecord): PayoutSeq {
  return { subId: r.data.subId ?? r.moid, settlmntDt: r.data.settlmntDt ?? '', seq: r.data.seq ?? r.tid };
}

/**
 * The amount of the payout `c` names, when this ledger made it (a record of its day's tally
 * holding that seq); 0 when it does not know it (a payout made elsewhere, or before the ledger).
 */
export async function payoutAmountOf(ctx: ClientContext, c: PayoutSeq): Promise<number> {
  for (const key of await readTallyValues(ctx, payoutTally(ctx.config.mid, c))) {
    const r = await readRecord(ctx, key);
    if (r && seqOf(r) === c.seq) return r.amount;
  }
  return 0;
}

/**
 * True when the ledger holds the cancel of payout `c` as kept: the gateway deleted it. The one
 * place that says a payout was cancelled: a repeat of its request reads it as cancelled, and with
 * the duplicate check the sub-merchant's next payout of that day is a new one.
 */
export async function cancelKept(ctx: ClientContext, c: PayoutSeq): Promise<boolean> {
  return (await readRecord(ctx, payoutCancelStoreKey(ctx.config.mid, c)))?.state === 'recorded';
}

/**
 * One payout cancel, as the ledger runs it: once per payout (MID, payout date, subId, seq), the
 * key naming the whole request, so every repeat is the same one. The record names the seq as
 * its TID, the subId as its Moid, and the payout's amount when the ledger knows it (else 0).
 */
export function payoutCancelCall(
  ctx: ClientContext,
  kind: OperationKind<PayoutCancelResult>,
  c: PayoutSeq,
  payoutAmount: number,
): OperationCall<PayoutCancelResult> {
  const { config } = ctx;
  return {
    kind,
    key: payoutCancelStoreKey(config.mid, c),
    keepMs: payoutKeepMs(c.settlmntDt, config.clock()),
    start: { tid: c.seq, moid: c.subId, amount: payoutAmount, binding: '', data: toData(c) },
    send: { ids: {}, ...cancelExchange(ctx, c, payoutAmount, false) },
    // Nothing was cancelled: the caller may correct the cause (the seq, the date) and ask again.
    refusal: 'forgotten',
  };
}
