import type { ClientContext } from '../context.js';
import type { DataCall } from '../data-api/call.js';
import { dataHostReading } from '../data-api/exchange.js';
import { type ExchangeReading, type LedgerRecord, type Reading, tallyRecords } from '../pipeline/index.js';
import { PAYOUT_RESULTS_FIELDS, SID } from '../wire/data-fields.js';
import { payoutEncKey } from '../wire/signatures.js';
import { mapResults } from './map-response.js';
import { answerFields, type NormalizedPayout, payoutTally, samePayout, seqOf } from './payout-record.js';

/**
 * Settles a payout whose outcome is unknown by the result query of its day (0101002, from
 * 16:00 KST): the listed payout to its sub-merchant of its amount, not deleted, whose seq no
 * other record of the ledger holds, is it (a success, kept with that seq); none is a refusal
 * (never made). The other records are its tally's: every payout of that sub-merchant and day
 * the ledger knows. One kept without a seq (confirmed by the gateway's 1103) holds one such
 * payout too, which one unknown. A failed query is unknown: asked again after the back-off.
 */
export async function findInResults(ctx: ClientContext, r: LedgerRecord, n: NormalizedPayout): Promise<ExchangeReading> {
  const { mid, merchantKey } = ctx.config;
  const others = (await tallyRecords(ctx, payoutTally(mid, n))).filter((o) => !samePayout(o, r));
  const claimed = new Set(others.map(seqOf).filter((seq) => seq !== ''));
  const heldWithoutSeq = others.filter((o) => (o.state === 'recorded' || o.state === 'committed') && seqOf(o) === '' && o.amount === n.amount).length;
  const call: DataCall = {
    path: '/om/api', sid: SID.payoutResults, fields: PAYOUT_RESULTS_FIELDS, body: { mid, settlmntDt: n.settlmntDt, subId: n.subId }, mutating: false,
    encKey: (trDtm) => payoutEncKey(SID.payoutResults, mid, trDtm, merchantKey),
  };
  const reading = await dataHostReading(ctx, call, (res): Reading => {
    const rows = mapResults(res.body).items.filter((i) => i.subId === n.subId && i.amount === n.amount && i.status !== 'deleted' && i.seq !== '' && !claimed.has(i.seq));
    const row = rows[heldWithoutSeq];
    if (!row) {
      return { kind: 'refused', fields: {}, code: '', message: `the result query of ${n.settlmntDt} lists no payout of ${n.amount} won to ${n.subId} that another request does not hold: it was never made` };
    }
    return { kind: 'success', code: res.header.resCode, fields: answerFields({ seq: row.seq, subId: row.subId, settlmntDt: row.settlmntDt || n.settlmntDt, settlmntAmt: row.amount, statusNm: row.statusNm }) };
  });
  // A refusal of the query itself is no word on the payout: it is asked again later.
  return reading.kind === 'refused' && reading.code !== '' ? { kind: 'unknown', reason: `the result query was refused (${reading.code})`, code: reading.code } : reading;
}
