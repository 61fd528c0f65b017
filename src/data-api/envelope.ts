/**
 * The JSON envelope of the data host (gateway-interface.md, "C and D. Envelope shared by
 * payout and reconciliation"): every request and response is `{ header, body }`.
 */

// The message ids are a wire fact shared with the sandbox; re-exported here for the client.
export { SID, type DataSid } from '../wire/data-fields.js';

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
export function buildEnvelope(
  sid: string,
  trDtm: string,
  body: Readonly<Record<string, string | undefined>>,
): DataRequestEnvelope {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (v !== undefined) clean[k] = v;
  return { header: { sid, trDtm, gubun: 'S', resCode: '', resMsg: '' }, body: clean };
}

/** The two data host paths. */
export type DataPath = '/om/api' | '/recon/api';
