import type { PayMethod } from '../types/payment.js';
import type { Charset } from '../wire/charset.js';
import { type EdiType, parseGatewayLatin1 } from '../wire/response-body.js';
import type { RecordCodec } from '../store/run-once.js';
import type { ApprovalOutcome } from './approve.js';

/**
 * One return's approval outcome with the order it belongs to: what duplicates are answered
 * from. `tokenDigest` binds it to the AuthToken that produced it: it is
 * served only to a return carrying the same token.
 */
export type CheckoutRecord = ApprovalOutcome & { moid: string; tid: string; amount: number; tokenDigest: string };

/** The first line of a stored record: everything but the gateway's answer. */
interface RecordHeader {
  kind: ApprovalOutcome['kind'];
  moid: string;
  tid: string;
  amount: number;
  tokenDigest: string;
  method?: PayMethod;
  charset?: Charset;
  ediType?: EdiType;
  code?: string;
  message?: string;
  netCancel?: string;
  resultCode?: string;
  recovered?: true;
}

/**
 * The text kept in the idempotency store: a JSON header line, then, for a committed or
 * declined outcome, the gateway's answer bytes as latin1 text (one character per byte), so
 * the record is the answer itself rather than a re-serialisation of its parsed fields, and a
 * duplicate parses it with the same parser as the first request did.
 */
export function serializeRecord(r: CheckoutRecord, charset: Charset, ediType: EdiType): string {
  switch (r.kind) {
    case 'committed':
    case 'declined': {
      // JSON.stringify gives the header as one flat string; a template of its parts would be a
      // tree of concatenations, and the store keeps the record for a day (~300 bytes more per TID).
      // An outcome read in another format than the route's (a recovered approval keeps the
      // status inquiry's UTF-8 JSON) names its own.
      const header: RecordHeader = { kind: r.kind, moid: r.moid, tid: r.tid, amount: r.amount, tokenDigest: r.tokenDigest, charset: r.charset ?? charset, ediType: r.ediType ?? ediType };
      if (r.kind === 'committed') {
        header.method = r.method;
        if (r.recovered) header.recovered = true;
      }
      return JSON.stringify(header) + '\n' + r.answer;
    }
    case 'failed':
      return JSON.stringify(r);
  }
}

/** Reads a record written by {@link serializeRecord}; throws on one it did not write. */
export function parseRecord(text: string): CheckoutRecord {
  const nl = text.indexOf('\n');
  const header = JSON.parse(nl === -1 ? text : text.slice(0, nl)) as RecordHeader;
  const { kind, moid, tid, amount, tokenDigest } = header;
  if (typeof tokenDigest !== 'string') throw new Error(`stored checkout record for ${String(tid)} is not bound to a token`);
  if (kind === 'failed') return header as CheckoutRecord;
  if (nl === -1 || !header.charset || !header.ediType || (kind === 'committed' && !header.method)) {
    throw new Error(`stored checkout record for ${String(tid)} is incomplete`);
  }
  const answer = text.slice(nl + 1);
  const raw = parseGatewayLatin1(answer, header.charset, header.ediType);
  return kind === 'committed'
    ? { kind, method: header.method!, raw, answer, moid, tid, amount, tokenDigest, ...(header.recovered ? { recovered: true as const, charset: header.charset, ediType: header.ediType } : {}) }
    : { kind, raw, answer, moid, tid, amount, tokenDigest };
}

/** The store codec of checkout records answered in `charset` / `ediType`. */
export function checkoutRecordCodec(charset: Charset, ediType: EdiType): RecordCodec<CheckoutRecord> {
  return { serialize: (r) => serializeRecord(r, charset, ediType), parse: parseRecord };
}
