import { createHash } from 'node:crypto';
import { NicepayRequestError } from '../errors/index.js';
import type { Charset } from '../wire/charset.js';
import { mediaType } from '../wire/content-type.js';

const FORM = 'application/x-www-form-urlencoded';

/**
 * The charset a notice body is read in: always EUC-KR. Notices are EUC-KR forms whatever their
 * header says (lifecycle-facts §3: there is no charset parameter to rely on), and the source
 * address, checked before, is their authentication; so a charset label (`MS949`, `x-euc-kr`,
 * `KSC5601`, `UTF-8`, `ISO-8859-1`) or a missing Content-Type changes nothing. Refusing one
 * would have the gateway retry a genuine deposit until it gives up. Only what cannot be a form
 * is refused (415): another media type, or a compressed body.
 */
export function noticeBodyCharset(contentType: string | undefined, contentEncoding: string | undefined): Charset {
  const type = mediaType(contentType);
  if (type !== '' && type !== FORM) {
    throw new NicepayRequestError(
      'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
      `unsupported content type ${JSON.stringify(type.slice(0, 60))}; a notice is ${FORM}`,
    );
  }
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    throw new NicepayRequestError(
      'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
      `unsupported content encoding ${JSON.stringify(encoding.slice(0, 40))}`,
    );
  }
  return 'euc-kr';
}

/**
 * The fields that tell one cancel from another: a repeat is the same notice, never merely a
 * similar one. Two partial cancels of the same amount on the same day differ in the cancel's
 * own order number (`CancelMOID`, lifecycle-facts §3: every cancel the package sends carries a
 * Moid of its own) and, where the gateway sends them, its time and number.
 */
export const CANCEL_IDENTITY = [
  'TID',
  'ResultCode',
  'PayMethod',
  'StateCd',
  'Amt',
  'CancelDate',
  'CancelTime',
  'CancelNum',
  'CancelMOID',
] as const;

/**
 * The once-key of a notice. A deposit is one per virtual account, so its TID names it; a
 * cancel is named by every field of {@link CANCEL_IDENTITY} (trimmed, absent as empty),
 * hashed to bound the key's length whatever the gateway puts in them.
 */
export function noticeKey(mid: string, kind: 'deposit' | 'cancel', get: (field: string) => string): string {
  if (kind === 'deposit') return `notice:${mid}:deposit:${get('TID')}`;
  const identity = createHash('sha256')
    .update(JSON.stringify(CANCEL_IDENTITY.map(get)))
    .digest('hex')
    .slice(0, 40);
  return `notice:${mid}:cancel:${get('TID')}:${identity}`;
}
