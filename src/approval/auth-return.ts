import type { ResolvedConfig } from '../config.js';
import { NicepayRequestError } from '../errors/index.js';
import type { AuthFailedCheckout } from '../types/checkout.js';

import { type Charset, normalizeCharset } from '../wire/charset.js';
import { charsetParam, mediaType } from '../wire/content-type.js';
import { AUTH_RETURN_FIELDS, AUTH_SUCCESS_REQUIRED, checkFields } from '../wire/field-sizes.js';
import { decodeForm, type FormFields } from '../wire/form-codec.js';
import { hexEquals } from '../wire/hash.js';
import { ownCopy } from '../own-copy.js';
import { isPayMethod } from '../wire/payment-mapper.js';
import { authReturnSignature } from '../wire/signatures.js';
import { type GatewayEndpoints, trustedGatewayUrl } from './trusted-url.js';

/** An authenticated return whose Signature, MID and gateway URLs were checked. */
export interface VerifiedReturn {
  kind: 'authenticated';
  /**
   * A copy of its own (ownCopy), as is `tid`: it reaches the shop's expectedAmount, the errors
   * and log lines that name the order, and a value cut from the return would keep the whole
   * return, AuthToken included.
   */
  moid: string;
  tid: string;
  authToken: string;
  /** The Amt string the Signature covers, as posted. */
  amt: string;
  /**
   * The Signature, verified: sha256(AuthToken + MID + Amt + merchantKey), a digest of the
   * AuthToken keyed by the merchant key. It tells two tokens apart as a digest of the token
   * alone would: Amt is digits and the MID ends in a letter, so no other AuthToken and Amt
   * give the same text.
   */
  signature: string;
  payMethod: string;
  nextAppUrl: URL;
  netCancelUrl: URL;
}

/**
 * The charset to decode an auth return by. The payment window posts the
 * return in the charset it was opened with, and real browsers name none in the Content-Type,
 * so the route decodes by that one setting (`charset` of createNicepay); a return that
 * declares another charset is refused (415) rather than guessed at. Checked before the body
 * is read.
 */
export function returnBodyCharset(
  contentType: string | undefined,
  contentEncoding: string | undefined,
  windowCharset: Charset,
): Charset {
  const type = mediaType(contentType);
  if (type !== 'application/x-www-form-urlencoded') {
    throw new NicepayRequestError(
      'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
      `unsupported content type ${JSON.stringify(type.slice(0, 60))}; expected application/x-www-form-urlencoded`,
    );
  }
  const encoding = (contentEncoding ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    throw new NicepayRequestError(
      'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
      `unsupported content encoding ${JSON.stringify(encoding.slice(0, 40))}`,
    );
  }
  const declared = charsetParam(contentType);
  if (declared === undefined) return windowCharset;
  const charset = normalizeCharset(declared);
  if (!charset) {
    throw new NicepayRequestError(
      'NICEPAY_CHARSET_UNSUPPORTED',
      `unsupported charset ${JSON.stringify(declared.slice(0, 40))}; expected euc-kr or utf-8`,
    );
  }
  if (charset !== windowCharset) {
    throw new NicepayRequestError(
      'NICEPAY_CHARSET_UNSUPPORTED',
      `the return declares ${charset} but the payment window was opened with ${windowCharset} (the charset option of createNicepay)`,
    );
  }
  return charset;
}

/**
 * Decodes and checks an auth return: fields and their byte sizes, MID, then either a failed
 * authentication (returned as is: unauthenticated text, see docs/security.md) or the
 * Signature over AuthToken+MID+Amt and the two gateway URLs. Throws a NicepayRequestError
 * naming the field for anything else; nothing has been sent.
 */
export function verifyAuthReturn(
  bytes: Uint8Array,
  charset: Charset,
  config: ResolvedConfig,
  endpoints: GatewayEndpoints,
): VerifiedReturn | AuthFailedCheckout {
  let form: FormFields;
  try {
    form = decodeForm(bytes, charset, { maxFields: 64 });
  } catch (err) {
    throw new NicepayRequestError(
      'NICEPAY_BODY_MALFORMED',
      `auth return is not a valid ${charset} form: ${(err as Error).message}`,
      undefined,
      err,
    );
  }
  const problem = checkFields(AUTH_RETURN_FIELDS, form, charset);
  if (problem) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `auth return: ${problem.message}`, problem.field);
  if (form.MID !== config.mid)
    throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'auth return: MID is not this merchant', 'MID');
  const moid = form.Moid!;
  if (form.AuthResultCode !== '0000') {
    return {
      status: 'auth-failed',
      verified: false,
      moid,
      buyerPosted: { authResultCode: form.AuthResultCode!, authResultMsg: form.AuthResultMsg ?? '' },
      duplicate: false,
    };
  }
  for (const field of AUTH_SUCCESS_REQUIRED) {
    if (!form[field])
      throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `auth return: ${field} is required`, field);
  }
  const { AuthToken: authToken, TxTid: tid, Amt: amt } = form as Record<(typeof AUTH_SUCCESS_REQUIRED)[number], string>;
  const payMethod = form.PayMethod ?? '';
  if (!isPayMethod(payMethod)) {
    throw new NicepayRequestError(
      'NICEPAY_FIELD_INVALID',
      'auth return: PayMethod must be CARD, BANK, VBANK or CELLPHONE',
      'PayMethod',
    );
  }
  const signature = authReturnSignature(authToken, config.mid, amt, config.merchantKey);
  if (!hexEquals(signature, form.Signature!)) {
    throw new NicepayRequestError(
      'NICEPAY_SIGNATURE_MISMATCH',
      'auth return Signature does not verify (is merchantKey the one of this MID?)',
      'Signature',
    );
  }
  return {
    kind: 'authenticated',
    moid: ownCopy(moid),
    tid: ownCopy(tid),
    authToken,
    amt,
    signature,
    payMethod,
    nextAppUrl: trustedGatewayUrl(form.NextAppURL!, 'NextAppURL', config, endpoints),
    netCancelUrl: trustedGatewayUrl(form.NetCancelURL!, 'NetCancelURL', config, endpoints),
  };
}
