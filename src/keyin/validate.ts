import { isValidAmount } from '../wire/amount.js';
import { type Charset, normalizeCharset } from '../wire/charset.js';
import { cardNumberOf, holderNumberOf, passwordPrefixOf } from '../validation/card-fields.js';
import { fieldInvalid, wireBuyer, wireText } from '../validation/input-text.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import { kstParts } from '../wire/kst.js';
import { KEYIN_BUYER_KEYS, KEYIN_CARD_KEYS, KEYIN_INPUT_KEYS, type KeyinEdiType, type KeyinInput } from './types.js';

/** A key-in input after validation: every value in its wire form, nothing left undefined but the optional fields. */
export interface NormalizedKeyin {
  moid: string;
  amount: number;
  goodsName: string;
  cardNumber: string;
  expiry: string;
  buyerAuthNum: string | undefined;
  password2: string | undefined;
  /** CardQuota: '00' or two digits 02-99. */
  quota: string;
  /** CardInterest. */
  interest: '0' | '1';
  buyerName: string | undefined;
  buyerEmail: string | undefined;
  buyerTel: string | undefined;
  mallReserved: string | undefined;
  charset: Charset;
  ediType: KeyinEdiType;
}

/**
 * Checks a key-in input against the rules of interface B and returns its wire form. `now`
 * decides whether the expiry lies in the past, in KST. Throws the first problem found; a key
 * the input type (`known`, a charger's input has no hook) does not declare is one, `caller`
 * naming the method in its message.
 */
export function validateKeyinInput(
  input: KeyinInput,
  now: Date,
  caller = 'keyin()',
  known: readonly string[] = KEYIN_INPUT_KEYS,
): NormalizedKeyin {
  if (typeof input !== 'object' || input === null) throw fieldInvalid('input', 'must be an object');
  refuseUnknownInput(input, known, caller);
  const moid = wireText(input.moid, 'moid', 64, true)!;
  if (!isValidAmount(input.amount))
    throw fieldInvalid('amount', 'must be a positive whole number of won with at most 12 digits');
  const goodsName = wireText(input.goodsName, 'goodsName', 40, true)!;

  const card = input.card as KeyinInput['card'] | undefined;
  if (typeof card !== 'object' || card === null) throw fieldInvalid('card', 'must be an object with number and expiry');
  refuseUnknownInput(card, KEYIN_CARD_KEYS, caller, 'card.');
  // The spec's EncData CardNo holds at most 16 bytes (gateway-interface.md, B): a 17-19 digit
  // card cannot be keyed in, whatever ISO/IEC 7812 allows (docs/keyin.md, "Card numbers").
  const cardNumber = cardNumberOf(card.number, "the gateway's key-in CardNo");
  const expiry = checkExpiry(card.expiry, now);
  const buyerAuthNum = holderNumberOf(card.buyerAuthNum, 'card.buyerAuthNum');
  const password2 = passwordPrefixOf(card.password2, 'card.password2');

  const buyer = wireBuyer(input.buyer, KEYIN_BUYER_KEYS, caller);
  const ediType = input.ediType ?? 'JSON';
  if (ediType !== 'JSON' && ediType !== 'KV') throw fieldInvalid('ediType', "must be 'JSON' or 'KV'");
  const charset = input.charset === undefined ? 'euc-kr' : normalizeCharset(input.charset);
  if (!charset) throw fieldInvalid('charset', "must be 'euc-kr' or 'utf-8'");
  if (input.interestFree !== undefined && typeof input.interestFree !== 'boolean')
    throw fieldInvalid('interestFree', 'must be a boolean');

  const mallReserved = wireText(input.mallReserved, 'mallReserved', 500, false);

  return {
    moid,
    amount: input.amount,
    goodsName,
    cardNumber,
    expiry,
    buyerAuthNum,
    password2,
    quota: checkQuota(input.quota),
    interest: input.interestFree ? '1' : '0',
    ...buyer,
    mallReserved,
    charset,
    ediType,
  };
}

function checkExpiry(value: unknown, now: Date): string {
  if (typeof value !== 'string' || !/^\d{4}$/.test(value))
    throw fieldInvalid('card.expiry', 'must be 4 digits YYMM (year first, as the gateway wants it)');
  const yy = Number(value.slice(0, 2));
  const mm = Number(value.slice(2));
  if (mm < 1 || mm > 12) throw fieldInvalid('card.expiry', 'must be YYMM with a month 01-12');
  const k = kstParts(now);
  // A card is valid through the last day of its expiry month (KST).
  if (2000 + yy < k.year || (2000 + yy === k.year && mm < k.month))
    throw fieldInvalid('card.expiry', 'lies in the past: the card has expired');
  return value;
}

function checkQuota(value: unknown): string {
  if (value === undefined || value === null || value === '') return '00';
  const s = typeof value === 'number' ? String(value) : value;
  if (typeof s !== 'string' || !/^\d{1,2}$/.test(s))
    throw fieldInvalid('quota', 'must be 0 (lump sum) or 2-99 installment months');
  const n = Number(s);
  if (n === 1)
    throw fieldInvalid('quota', 'must be 0 (lump sum) or 2-99 installment months; 1 month is not an installment');
  return String(n).padStart(2, '0');
}
