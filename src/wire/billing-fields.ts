import type { FieldSpec, FieldTable } from './field-sizes.js';
import { CARD_QUOTA, MID_PATTERN } from './keyin-fields.js';

/*
 * Field tables of recurring card billing (docs/spec/billing-facts.md §1): registration of a
 * card into a billing key (BID), a charge on a BID, and a BID's removal. Sizes are bytes of
 * the wire encoding: the request form is always EUC-KR, so GoodsName's 40 bytes hold 20
 * Hangul syllables. Used by the client before sending and by the sandbox on receipt.
 */

const req = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: true, ...(pattern ? { pattern } : {}) });
const opt = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: false, ...(pattern ? { pattern } : {}) });

/** A billing key: 30 letters and digits (billing-facts §1, e.g. `BIKYnictest04m2606221030450012`). */
export const BID_PATTERN = /^[A-Za-z0-9]{30}$/;
const EDI_DATE = /^\d{14}$/;
/** CharSet: the two answer encodings the facts name (euc-kr default, utf-8); anything else is refused. */
const CHARSET = /^(?:euc-kr|utf-8)$/i;
const SIGN = /^[0-9a-f]{64}$/;

/** Registration request (billing-facts §1a). */
export const BILLING_REGISTER_FIELDS: FieldTable = {
  MID: req(10, MID_PATTERN),
  EdiDate: req(14, EDI_DATE),
  Moid: req(64),
  EncData: req(512, /^[0-9a-fA-F]+$/),
  SignData: req(256, SIGN),
  BuyerEmail: opt(60),
  BuyerTel: opt(20),
  BuyerName: opt(30),
  CharSet: opt(10, CHARSET),
  EdiType: opt(10, /^(?:JSON|KV)$/),
};

/** Charge request (billing-facts §1b). */
export const BILLING_CHARGE_FIELDS: FieldTable = {
  BID: req(30, BID_PATTERN),
  MID: req(10, MID_PATTERN),
  TID: req(30, /^[A-Za-z0-9]{30}$/),
  EdiDate: req(14, EDI_DATE),
  Moid: req(64),
  Amt: req(12, /^\d+$/),
  GoodsName: req(40),
  SignData: req(256, SIGN),
  CardInterest: req(1, /^[01]$/),
  CardQuota: req(2, CARD_QUOTA),
  CardPoint: opt(1, /^[01]$/),
  BuyerEmail: opt(60),
  BuyerTel: opt(20),
  BuyerName: opt(30),
  MallReserved: opt(500),
  CharSet: opt(10, CHARSET),
  EdiType: opt(10, /^(?:JSON|KV)$/),
};

/** Removal request (billing-facts §1c). */
export const BILLING_REMOVE_FIELDS: FieldTable = {
  BID: req(30, BID_PATTERN),
  MID: req(10, MID_PATTERN),
  EdiDate: req(14, EDI_DATE),
  Moid: req(64),
  SignData: req(256, SIGN),
  CharSet: opt(10, CHARSET),
  EdiType: opt(10, /^(?:JSON|KV)$/),
};

/**
 * The registration's EncData sub-fields. CardNo is at most 16 digits as in key-in; ExpYear and
 * ExpMonth are two digits each; IDNo is a birth date (6) or business number (10); CardPw the
 * first two password digits. IDNo and CardPw are always sent as keys and may be empty (the
 * contract decides whether they must be filled).
 */
export const BILLING_ENC_FIELDS: FieldTable = {
  CardNo: req(16, /^\d{13,16}$/),
  ExpYear: req(2, /^\d{2}$/),
  ExpMonth: req(2, /^(?:0[1-9]|1[0-2])$/),
  IDNo: opt(10, /^(?:\d{6}|\d{10})$/),
  CardPw: opt(2, /^\d{2}$/),
};

/** The billing EncData keys in the facts' order. Not key-in's names: ExpYear/ExpMonth, IDNo, CardPw. */
export const BILLING_ENC_KEYS = ['CardNo', 'ExpYear', 'ExpMonth', 'IDNo', 'CardPw'] as const;

/** Registration path on {base_url} (billing-facts §1a). */
export const BILLING_REGISTER_PATH = '/webapi/billing/billing_regist.jsp';
/** Charge path on {base_url} (billing-facts §1b). */
export const BILLING_CHARGE_PATH = '/webapi/billing/billing_approve.jsp';
/** Removal path on {base_url} (billing-facts §1c). */
export const BILLING_REMOVE_PATH = '/webapi/billing/billkey_remove.jsp';

/** ResultCode of a registered card (billing-facts §1a). */
export const BILLING_REGISTERED_CODE = 'F100';
/** ResultCode of an approved charge (billing-facts §1b). */
export const BILLING_APPROVED_CODE = '3001';
/** ResultCode of a removed BID (billing-facts §1c). */
export const BILLING_REMOVED_CODE = 'F101';

/** Card data of a registration, in wire form. */
export interface BillingEncCard {
  number: string;
  /** YY */
  expYear: string;
  /** MM */
  expMonth: string;
  idNo?: string | undefined;
  password2?: string | undefined;
}

/**
 * The registration's EncData plaintext, exactly as billing-facts §1a writes it: all five keys
 * in order, a key not given sent empty.
 */
export function billingEncPlaintext(card: BillingEncCard): string {
  return `CardNo=${card.number}&ExpYear=${card.expYear}&ExpMonth=${card.expMonth}&IDNo=${card.idNo ?? ''}&CardPw=${card.password2 ?? ''}`;
}

/**
 * Splits a registration EncData plaintext (the sandbox's side). Only the facts' shape is read:
 * the five keys, once each, in order; anything else (key-in's names included) gives undefined.
 */
export function parseBillingEncPlaintext(text: string): Record<string, string> | undefined {
  const parts = text.split('&');
  if (parts.length !== BILLING_ENC_KEYS.length) return undefined;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i < parts.length; i++) {
    const prefix = `${BILLING_ENC_KEYS[i]}=`;
    if (!parts[i]!.startsWith(prefix)) return undefined;
    out[BILLING_ENC_KEYS[i]!] = parts[i]!.slice(prefix.length);
  }
  return out;
}
