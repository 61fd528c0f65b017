import { escapeColon } from '../cancel/operation.js';
import { isObject, type JsonObject, text } from '../data-api/lenient.js';
import type { LedgerRecord } from '../pipeline/index.js';

/** A payout request as checked: what it sends, and what names it in the ledger. */
export interface NormalizedPayout {
  subId: string;
  amount: number;
  settlmntDt: string;
  dupCheck: boolean;
  accntDesc: string | undefined;
  /** Only for the schedule check of the first sending: nothing of it goes on the wire. */
  crossBorder: boolean;
  /** Without the duplicate check: the idempotencyKey (given, or a fresh random one). With it: ''. */
  once: string;
  /**
   * With the duplicate check: how many earlier payouts of the sub-merchant and day this ledger
   * recorded and the shop then cancelled (the gateway takes a new one after a cancel).
   */
  generation: number;
}

/**
 * The ledger key of a payout: with the duplicate check the gateway's own identifiers,
 * `payout:<MID>:<settlmntDt>:<subId>` (the gateway takes one per sub-merchant and day), and
 * `…:after-cancel:<n>` for the one requested after the n-th was cancelled; without it,
 * `…:key:<idempotencyKey>`. ':' and '%' in subId and key are percent-encoded, so no two
 * payouts share a key.
 */
export function payoutStoreKey(mid: string, n: NormalizedPayout): string {
  const base = `payout:${mid}:${n.settlmntDt}:${escapeColon(n.subId)}`;
  if (!n.dupCheck) return `${base}:key:${escapeColon(n.once)}`;
  return n.generation === 0 ? base : `${base}:after-cancel:${n.generation}`;
}

/** The tally of the seqs of a sub-merchant's payouts on one day that the shop cancelled. */
export function payoutCancelsTally(mid: string, n: Pick<NormalizedPayout, 'settlmntDt' | 'subId'>): string {
  return `payout-cancels:${mid}:${n.settlmntDt}:${escapeColon(n.subId)}`;
}

/** The tally of a sub-merchant's payouts on one day: every one the ledger made, by its key. */
export function payoutTally(mid: string, n: Pick<NormalizedPayout, 'settlmntDt' | 'subId'>): string {
  return `payouts:${mid}:${n.settlmntDt}:${escapeColon(n.subId)}`;
}

/** What the record keeps of the request, so settlement can send it again or find it. */
export function toData(n: NormalizedPayout): Record<string, string> {
  return {
    subId: n.subId, settlmntDt: n.settlmntDt, dupCheck: n.dupCheck ? 'Y' : 'N', once: n.once, generation: String(n.generation),
    ...(n.accntDesc === undefined ? {} : { accntDesc: n.accntDesc }),
  };
}

/** The request a record holds (its schedule was checked when it was first sent). */
export function fromRecord(r: LedgerRecord): NormalizedPayout {
  const d = r.data;
  return {
    subId: d.subId ?? r.moid, amount: r.amount, settlmntDt: d.settlmntDt ?? r.tid, dupCheck: d.dupCheck !== 'N', accntDesc: d.accntDesc, crossBorder: false,
    once: d.once ?? '', generation: Number(d.generation ?? '0'),
  };
}

/** The same payout record: the same request of its day with the duplicate check, or the same idempotencyKey. */
export function samePayout(a: LedgerRecord, b: LedgerRecord): boolean {
  const x = fromRecord(a);
  const y = fromRecord(b);
  return x.dupCheck === y.dupCheck && x.once === y.once && x.generation === y.generation;
}

/**
 * The answer a record keeps: the data host's body (its encKey echo already removed) as JSON
 * text under one field, since it nests (reqInfo) and a record's fields are text.
 */
export function answerFields(body: JsonObject): Record<string, string> {
  return { answer: JSON.stringify(body) };
}

/** The answer body a record keeps ({} when none: a payout the gateway confirmed only by 1103). */
export function answerOf(r: LedgerRecord): JsonObject {
  const fields = r.fields ?? {};
  if (!Object.hasOwn(fields, 'answer')) return {};
  try {
    const body: unknown = JSON.parse(fields['answer'] ?? '');
    return isObject(body) ? body : {};
  } catch {
    return {};
  }
}

/** The seq a record holds ('' when none: unknown yet, or confirmed only by the gateway's 1103). */
export function seqOf(r: LedgerRecord): string {
  return text(answerOf(r), 'seq');
}
