import { request } from 'undici';
import type { AuthReturn, Sandbox } from '../../src/sandbox/index.js';
import { type Charset, decodeBytes } from '../../src/wire/charset.js';
import { encodeForm } from '../../src/wire/form-codec.js';
import { kstTimestamp14 } from '../../src/wire/kst.js';
import { parseKv } from '../../src/wire/kv.js';
import { approvalSignData } from '../../src/wire/signatures.js';

/** A raw answer of the sandbox: status, Content-Type and bytes. */
export interface RawReply {
  status: number;
  contentType: string;
  bytes: Buffer;
}

/** POSTs bytes over loopback, as a server (or a browser) would. */
export async function postBytes(url: string, body: Buffer, contentType: string): Promise<RawReply> {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': contentType } });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, contentType: String(res.headers['content-type']), bytes };
}

/** Fields of a hand-built approval or net cancel; anything left out is computed correctly. */
export interface HandForm {
  tid?: string;
  authToken?: string;
  mid?: string;
  amt?: string;
  ediDate?: string;
  /** SignData as sent; by default computed over the fields as sent (lower-case hex). */
  signData?: string;
  charset?: string;
  ediType?: string;
  netCancel?: boolean;
  mallReserved?: string;
}

/**
 * Builds an approval (or net cancel) form by hand, the way the official samples do, from an
 * auth return: EdiDate is the sandbox clock's KST time unless given, SignData is computed over
 * exactly the values sent, the body is EUC-KR.
 */
export function handForm(sandbox: Sandbox, auth: AuthReturn, key: string, o: HandForm = {}): Buffer {
  const f = auth.fields;
  const tid = o.tid ?? f.TxTid!;
  const token = o.authToken ?? f.AuthToken!;
  const mid = o.mid ?? f.MID!;
  const amt = o.amt ?? f.Amt!;
  const ediDate = o.ediDate ?? kstTimestamp14(sandbox.clock.now());
  return encodeForm(
    {
      TID: tid,
      AuthToken: token,
      MID: mid,
      Amt: amt,
      EdiDate: ediDate,
      SignData: o.signData ?? approvalSignData(token, mid, amt, ediDate, key),
      CharSet: o.charset,
      EdiType: o.ediType,
      MallReserved: o.mallReserved,
      NetCancel: o.netCancel ? '1' : undefined,
    },
    'euc-kr',
  );
}

/** POSTs a hand-built form to the auth return's NextAppURL (or NetCancelURL), EUC-KR. */
export function sendHandForm(sandbox: Sandbox, auth: AuthReturn, key: string, o: HandForm = {}): Promise<RawReply> {
  const url = o.netCancel ? auth.fields.NetCancelURL! : auth.fields.NextAppURL!;
  return postBytes(url, handForm(sandbox, auth, key, o), 'application/x-www-form-urlencoded; charset=euc-kr');
}

/** Parses a gateway answer in the charset and EdiType it was asked for. */
export function parseReply(
  r: RawReply,
  charset: Charset = 'euc-kr',
  ediType: 'JSON' | 'KV' = 'JSON',
): Record<string, string> {
  return ediType === 'KV'
    ? { ...parseKv(r.bytes, charset) }
    : (JSON.parse(decodeBytes(r.bytes, charset)) as Record<string, string>);
}
