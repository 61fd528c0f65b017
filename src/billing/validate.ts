import { isValidAmount } from '../wire/amount.js';
import { type Charset, normalizeCharset } from '../wire/charset.js';
import { BID_PATTERN } from '../wire/billing-fields.js';
import { kstParts } from '../wire/kst.js';
import type { EdiType } from '../wire/response-body.js';
import { cardNumberOf, holderNumberOf, passwordPrefixOf } from '../validation/card-fields.js';
import { fieldInvalid, type WireBuyer, wireBuyer, wireText } from '../validation/input-text.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import {
  BILLING_BUYER_KEYS,
  BILLING_CARD_KEYS,
  BILLING_CHARGE_KEYS,
  BILLING_REGISTER_KEYS,
  BILLING_REMOVE_KEYS,
  type BillingChargeInput,
  type BillingRegisterInput,
  type BillingRemoveInput,
} from './types.js';

/** Answer format fields every billing call shares. */
export interface WireFormat {
  charset: Charset;
  ediType: EdiType;
}

/** A registration in wire form. */
export interface NormalizedRegister extends WireBuyer, WireFormat {
  moid: string;
  cardNumber: string;
  expYear: string;
  expMonth: string;
  idNo: string | undefined;
  password2: string | undefined;
}

/** A charge in wire form. */
export interface NormalizedCharge extends WireBuyer, WireFormat {
  bid: string;
  moid: string;
  amount: number;
  goodsName: string;
  quota: string;
  interest: '0' | '1';
  cardPoint: '1' | undefined;
  mallReserved: string | undefined;
}

/** A removal in wire form. */
export interface NormalizedRemove extends WireFormat {
  bid: string;
  moid: string;
}

/** The answer format (CharSet, EdiType) a call asks for. */
export function wireFormat(input: { charset?: unknown; ediType?: unknown }): WireFormat {
  const ediType = input.ediType ?? 'JSON';
  if (ediType !== 'JSON' && ediType !== 'KV') throw fieldInvalid('ediType', "must be 'JSON' or 'KV'");
  const charset = input.charset === undefined ? 'euc-kr' : normalizeCharset(String(input.charset));
  if (!charset) throw fieldInvalid('charset', "must be 'euc-kr' or 'utf-8'");
  return { charset, ediType };
}

/** Refuses an input that is not an object, or that carries a key its type (`known`) does not declare. */
function object(input: unknown, known: readonly string[], caller: string): void {
  if (typeof input !== 'object' || input === null) throw fieldInvalid('input', 'must be an object');
  refuseUnknownInput(input, known, caller);
}

/** Checks a BID's shape (30 letters and digits); the message never shows it. */
export function checkBid(value: unknown): string {
  if (typeof value !== 'string' || !BID_PATTERN.test(value))
    throw fieldInvalid('bid', 'must be the 30-character billing key register() returned');
  return value;
}

/**
 * Checks a registration: a Luhn-valid 13-16 digit number, an expiry that has not passed (KST,
 * valid through the last day of its month), IDNo of 6 or 10 digits and CardPw of 2 when given.
 */
export function validateRegister(input: BillingRegisterInput, now: Date): NormalizedRegister {
  const caller = 'billing.register()';
  object(input, BILLING_REGISTER_KEYS, caller);
  const moid = wireText(input.moid, 'moid', 64, true)!;
  const card = input.card as BillingRegisterInput['card'] | undefined;
  if (typeof card !== 'object' || card === null)
    throw fieldInvalid('card', 'must be an object with number, expYear and expMonth');
  refuseUnknownInput(card, BILLING_CARD_KEYS, caller, 'card.');
  const cardNumber = cardNumberOf(card.number, "the gateway's CardNo");
  const { expYear, expMonth } = checkExpiry(card.expYear, card.expMonth, now);
  const idNo = holderNumberOf(card.idNo, 'card.idNo');
  const password2 = passwordPrefixOf(card.password2, 'card.password2');
  return {
    moid,
    cardNumber,
    expYear,
    expMonth,
    idNo,
    password2,
    ...wireBuyer(input.buyer, BILLING_BUYER_KEYS, caller),
    ...wireFormat(input),
  };
}

/**
 * Checks a charge: the BID's shape, amount in whole won, goods name and the other fields in
 * EUC-KR bytes. `caller` names the method (`billing.charge()` or a charger's call) in errors;
 * `known` lists the keys its input type declares (a charger's input has no hook).
 */
export function validateCharge(
  input: BillingChargeInput,
  caller = 'billing.charge()',
  known: readonly string[] = BILLING_CHARGE_KEYS,
): NormalizedCharge {
  object(input, known, caller);
  const bid = checkBid(input.bid);
  const moid = wireText(input.moid, 'moid', 64, true)!;
  if (!isValidAmount(input.amount))
    throw fieldInvalid('amount', 'must be a positive whole number of won with at most 12 digits');
  const goodsName = wireText(input.goodsName, 'goodsName', 40, true)!;
  if (input.interestFree !== undefined && typeof input.interestFree !== 'boolean')
    throw fieldInvalid('interestFree', 'must be a boolean');
  if (input.cardPoint !== undefined && typeof input.cardPoint !== 'boolean')
    throw fieldInvalid('cardPoint', 'must be a boolean');
  const f = wireFormat(input);
  const mallReserved = wireText(input.mallReserved, 'mallReserved', 500, false);
  // A KV answer escapes nothing and MallReserved comes back as sent: '&' or '=' would read as fields.
  if (f.ediType === 'KV' && mallReserved !== undefined && /[&=]/.test(mallReserved)) {
    throw fieldInvalid('mallReserved', "must not contain '&' or '=' when ediType is 'KV'; use ediType 'JSON'");
  }
  return {
    bid,
    moid,
    amount: input.amount,
    goodsName,
    quota: checkQuota(input.quota),
    interest: input.interestFree ? '1' : '0',
    cardPoint: input.cardPoint ? '1' : undefined,
    mallReserved,
    ...wireBuyer(input.buyer, BILLING_BUYER_KEYS, caller),
    ...f,
  };
}

/** Checks a removal. */
export function validateRemove(input: BillingRemoveInput): NormalizedRemove {
  object(input, BILLING_REMOVE_KEYS, 'billing.remove()');
  return { bid: checkBid(input.bid), moid: wireText(input.moid, 'moid', 64, true)!, ...wireFormat(input) };
}

function checkExpiry(year: unknown, month: unknown, now: Date): { expYear: string; expMonth: string } {
  if (typeof year !== 'string' || !/^(?:\d{2}|20\d{2})$/.test(year))
    throw fieldInvalid('card.expYear', 'must be the expiry year as YY or YYYY (20YY)');
  if (typeof month !== 'string' || !/^\d{1,2}$/.test(month) || Number(month) < 1 || Number(month) > 12)
    throw fieldInvalid('card.expMonth', 'must be the expiry month 01-12');
  const expYear = year.slice(-2);
  const expMonth = month.padStart(2, '0');
  const k = kstParts(now);
  const y = 2000 + Number(expYear);
  if (y < k.year || (y === k.year && Number(expMonth) < k.month))
    throw fieldInvalid('card.expYear', 'with card.expMonth lies in the past: the card has expired');
  return { expYear, expMonth };
}

function checkQuota(value: unknown): string {
  if (value === undefined || value === null || value === '') return '00';
  const s = typeof value === 'number' ? String(value) : value;
  if (typeof s !== 'string' || !/^\d{1,2}$/.test(s))
    throw fieldInvalid('quota', 'must be 0 (lump sum) or 2-99 installment months');
  if (Number(s) === 1)
    throw fieldInvalid('quota', 'must be 0 (lump sum) or 2-99 installment months; 1 month is not an installment');
  return String(Number(s)).padStart(2, '0');
}

/** A BID for logs and messages: its first 4 and last 4 characters, the rest starred. */
export function maskBid(bid: string): string {
  return bid.length <= 8 ? '*'.repeat(bid.length) : bid.slice(0, 4) + '*'.repeat(bid.length - 8) + bid.slice(-4);
}
