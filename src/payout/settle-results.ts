import type { ClientContext } from '../context.js';
import type { DataCall } from '../data-api/call.js';
import { dataHostReading } from '../data-api/exchange.js';
import { type ExchangeReading, type LedgerRecord, type Reading, type Resend, tallyRecords } from '../pipeline/index.js';
import { PAYOUT_RESULTS_FIELDS, SID } from '../wire/data-fields.js';
import { payoutEncKey } from '../wire/signatures.js';
import { mapResults } from './map-response.js';
import {
  answerFields,
  type NormalizedPayout,
  type PayoutSeq,
  payoutTally,
  samePayout,
  seqOf,
} from './payout-record.js';
import { CUTOFF, kstTimeOn, RESULTS_FROM } from './schedule.js';
import type { PayoutResultItem } from './types.js';

/**
 * How settlement learns now what an operation on the payout of `settlmntDt` did (a payout
 * request, a payout cancel), neither of which can be reversed: before the day's 10:30 KST
 * cut-off by sending it `again` (when it may be: the gateway refuses both from then); otherwise
 * by the day's result query from 16:00 KST (`results`), the record waiting until then, its
 * reason saying why it is not sent again (`notAgain`).
 */
export function settleOnPayoutDay(
  ctx: ClientContext,
  settlmntDt: string,
  how: { what: string; again: Resend | undefined; notAgain: string; results: () => Promise<ExchangeReading> },
): Resend | { wait: string; until: number } {
  const now = ctx.config.clock().getTime();
  if (how.again && now < kstTimeOn(settlmntDt, CUTOFF.hour, CUTOFF.minute).getTime()) return how.again;
  const from = kstTimeOn(settlmntDt, RESULTS_FROM.hour, RESULTS_FROM.minute).getTime();
  if (now < from)
    return {
      wait: `the ${how.what}'s outcome is unknown and ${how.notAgain}: the result query of ${settlmntDt} tells, from 16:00 KST`,
      until: from,
    };
  return { exchange: how.results, doneAlready: () => false };
}

/**
 * The result query of a sub-merchant's payouts on one day (0101002) as settlement's exchange:
 * `read` says what its rows mean. A failed query is unknown, and so is a refusal of the query
 * itself (no word on the operation): either is asked again after the back-off.
 */
async function askResults(
  ctx: ClientContext,
  settlmntDt: string,
  subId: string,
  read: (items: PayoutResultItem[], resCode: string) => Reading,
): Promise<ExchangeReading> {
  const { mid, merchantKey } = ctx.config;
  const call: DataCall = {
    path: '/om/api',
    sid: SID.payoutResults,
    fields: PAYOUT_RESULTS_FIELDS,
    body: { mid, settlmntDt, subId },
    mutating: false,
    encKey: (trDtm) => payoutEncKey(SID.payoutResults, mid, trDtm, merchantKey),
  };
  const reading = await dataHostReading(ctx, call, (res) =>
    read(
      mapResults(res.body).items.filter((i) => i.subId === subId),
      res.header.resCode,
    ),
  );
  return reading.kind === 'refused' && reading.code !== ''
    ? { kind: 'unknown', reason: `the result query was refused (${reading.code})`, code: reading.code }
    : reading;
}

/**
 * Settles a payout whose outcome is unknown by the result query of its day (0101002, from
 * 16:00 KST): the listed payout to its sub-merchant of its amount, not deleted, whose seq no
 * other record of the ledger holds, is it (a success, kept with that seq); none is a refusal
 * (never made). The other records are its tally's: every payout of that sub-merchant and day
 * the ledger knows. One kept without a seq (confirmed by the gateway's 1103) holds one such
 * payout too, which one unknown.
 */
export async function findInResults(
  ctx: ClientContext,
  r: LedgerRecord,
  n: NormalizedPayout,
): Promise<ExchangeReading> {
  const records = await tallyRecords(ctx, payoutTally(ctx.config.mid, n));
  const others = records.filter((o) => !samePayout(o, r));
  const claimed = new Set(others.map(seqOf).filter((seq) => seq !== ''));
  const heldWithoutSeq = others.filter(
    (o) => (o.state === 'recorded' || o.state === 'committed') && seqOf(o) === '' && o.amount === n.amount,
  ).length;
  // Of the records of this amount still unknown, each takes the row of its own rank in the
  // tally (the order they were sent): instances settling several at once each take another row,
  // and one that already took its row is counted among `claimed` instead, so the ranks agree.
  const rank = records
    .filter((o) => (o.state === 'unknown' || o.state === 'sending') && o.amount === n.amount && seqOf(o) === '')
    .findIndex((o) => samePayout(o, r));
  return askResults(ctx, n.settlmntDt, n.subId, (items, resCode): Reading => {
    const rows = items.filter(
      (i) => i.amount === n.amount && i.status !== 'deleted' && i.seq !== '' && !claimed.has(i.seq),
    );
    const row = rows[heldWithoutSeq + Math.max(rank, 0)];
    if (!row) {
      return {
        kind: 'refused',
        fields: {},
        code: '',
        message: `the result query of ${n.settlmntDt} lists no payout of ${n.amount} won to ${n.subId} that another request does not hold: it was never made`,
      };
    }
    return { kind: 'success', code: resCode, fields: rowFields(row, n.settlmntDt) };
  });
}

/**
 * Settles a payout cancel whose outcome is unknown by the result query of its day (from 16:00
 * KST): the row of its seq listed 삭제 (deleted) is the cancel done (a success, kept); any other
 * status says the payout stands, and no row that there was none to cancel: the cancel never
 * happened (a refusal).
 */
export function findCancelInResults(ctx: ClientContext, c: PayoutSeq): Promise<ExchangeReading> {
  return askResults(ctx, c.settlmntDt, c.subId, (items, resCode): Reading => {
    const row = items.find((i) => i.seq === c.seq);
    if (row?.status === 'deleted') return { kind: 'success', code: resCode, fields: rowFields(row, c.settlmntDt) };
    const listed = row
      ? `lists payout ${c.seq} as ${row.statusNm || 'no status'}, not deleted`
      : `lists no payout ${c.seq} of ${c.subId}`;
    return {
      kind: 'refused',
      fields: {},
      code: '',
      message: `the result query of ${c.settlmntDt} ${listed}: the cancel never happened`,
    };
  });
}

/** What a record keeps of a listed row (of the payout date `settlmntDt`), as the answer body it settles by. */
function rowFields(row: PayoutResultItem, settlmntDt: string): Record<string, string> {
  return answerFields({
    seq: row.seq,
    subId: row.subId,
    settlmntDt: row.settlmntDt || settlmntDt,
    settlmntAmt: row.amount,
    statusNm: row.statusNm,
  });
}
