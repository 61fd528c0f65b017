/**
 * The JSON envelope of the data host (gateway-interface.md, "C and D. Envelope shared by
 * payout and reconciliation"): every request and response is `{ header, body }`.
 */

/** Message ids (header.sid) of the data host operations. */
export const SID = {
  balance: '0101001',
  subMerchant: '0105001',
  payoutRequest: '0102001',
  payoutCancel: '0103001',
  payoutResults: '0101002',
  cashReceipts: '0301002',
} as const;

/** One of the data host message ids. */
export type DataSid = (typeof SID)[keyof typeof SID];

/** The request header: resCode and resMsg are sent empty, gubun is S (request). */
export interface DataRequestHeader {
  sid: string;
  /** YYYYMMDDHHMISS in KST. */
  trDtm: string;
  gubun: 'S';
  resCode: '';
  resMsg: '';
}

/** A request envelope. Request values are all strings (the spec's convention). */
export interface DataRequestEnvelope {
  header: DataRequestHeader;
  body: Record<string, string>;
}

/** Builds a request envelope; omits body fields that are undefined. */
export function buildEnvelope(sid: string, trDtm: string, body: Readonly<Record<string, string | undefined>>): DataRequestEnvelope {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (v !== undefined) clean[k] = v;
  return { header: { sid, trDtm, gubun: 'S', resCode: '', resMsg: '' }, body: clean };
}

/** The two data host paths. */
export type DataPath = '/om/api' | '/recon/api';
