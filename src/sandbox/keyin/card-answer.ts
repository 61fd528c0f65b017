import { padAmount, parseAmount } from '../../wire/amount.js';
import type { FormFields } from '../../wire/form-codec.js';
import { kstParts } from '../../wire/kst.js';
import { field } from '../form-fields.js';
import type { SandboxTestCard } from './cards.js';

/**
 * The card result answer of key-in and billing charges: every field of the key-in result
 * table (empty where not applicable), `extra` over them, then the unlisted MID, which a client
 * must tolerate (spec, Versioning 1). Amt is echoed padded to 12 digits, '' when unreadable.
 */
export function cardAnswerFields(
  form: FormFields,
  result: { code: string; message: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  const amount = parseAmount(field(form, 'Amt'));
  return {
    ResultCode: result.code,
    ResultMsg: result.message,
    TID: field(form, 'TID'),
    Moid: field(form, 'Moid'),
    Amt: amount === undefined ? '' : padAmount(amount),
    AuthCode: '',
    AuthDate: '',
    AcquCardCode: '',
    AcquCardName: '',
    CardNo: '',
    CardCode: '',
    CardName: '',
    CardQuota: field(form, 'CardQuota'),
    CardCl: '',
    CcPartCl: '0',
    CardInterest: field(form, 'CardInterest'),
    MallReserved: field(form, 'MallReserved'),
    ...extra,
    MID: field(form, 'MID'),
  };
}

/** The answer's card fields for a test card: the number masked (first 6 and last 4 shown), issuer, acquirer, credit/debit. */
export function cardFields(card: SandboxTestCard, number: string): Record<string, string> {
  return {
    CardNo: number.slice(0, 6) + '*'.repeat(number.length - 10) + number.slice(-4),
    CardCode: card.cardCode,
    CardName: card.cardName,
    AcquCardCode: card.acquCode,
    AcquCardName: card.acquName,
    CardCl: card.cardCl,
  };
}

/** True when a card valid through YY/MM has expired at `now` (KST: valid through the last day of its month). */
export function expiredAt(expYear: string, expMonth: string, now: Date): boolean {
  const k = kstParts(now);
  const year = 2000 + Number(expYear);
  return year < k.year || (year === k.year && Number(expMonth) < k.month);
}
