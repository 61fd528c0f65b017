import type { FieldSpec, FieldTable } from './field-sizes.js';

/*
 * Field tables of interface B (gateway-interface.md, "B. Card key-in"). Sizes are bytes of
 * the wire encoding: the request form is always EUC-KR, so GoodsName's 40 bytes hold 20
 * Hangul syllables. Used by the client before sending and by the sandbox on receipt.
 */

/**
 * The shape of a merchant id: 10 characters, the last a lower-case `m` (gateway-interface.md,
 * "TID format": "MID (10, the merchant id, whose last character is a lowercase m)").
 */
export const MID_PATTERN = /^[A-Za-z0-9]{9}m$/;

/** CardQuota (B, billing): `00` lump sum or 02-99 months; there is no one-month plan. */
export const CARD_QUOTA = /^(?:00|0[2-9]|[1-9]\d)$/;

const req = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: true, ...(pattern ? { pattern } : {}) });
const opt = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: false, ...(pattern ? { pattern } : {}) });

/** The key-in request form (B table), in the order the client sends it. */
export const KEYIN_REQUEST_FIELDS: FieldTable = {
  TID: req(30, /^[A-Za-z0-9]{30}$/),
  MID: req(10, MID_PATTERN),
  EdiDate: req(14, /^\d{14}$/),
  Moid: req(64),
  Amt: req(12, /^\d+$/),
  GoodsName: req(40),
  EncData: req(512, /^[0-9a-fA-F]+$/),
  CardInterest: req(1, /^[01]$/),
  CardQuota: req(2, CARD_QUOTA),
  SignData: req(256, /^[0-9a-f]{64}$/),
  BuyerEmail: opt(60),
  BuyerTel: opt(20),
  BuyerName: opt(30),
  CharSet: opt(10),
  EdiType: opt(10, /^(?:JSON|KV)$/),
  MallReserved: opt(500),
};

/**
 * The EncData plaintext sub-fields (B, second table). Sizes are maximums: CardNo holds at
 * most 16 digits, so a 14-digit Diners or 15-digit AMEX card fits and a 17-19 digit card
 * cannot be keyed in (docs/keyin.md). Fewer than 13 digits is no card number (ISO/IEC 7812):
 * the sandbox refuses it too. BuyerAuthNum and CardPwd are always present as keys and may be
 * empty; whether they must be filled is the merchant's contract.
 */
export const KEYIN_ENC_FIELDS: FieldTable = {
  CardNo: req(16, /^\d{13,16}$/),
  CardExpire: req(4, /^\d{2}(?:0[1-9]|1[0-2])$/),
  BuyerAuthNum: opt(13, /^(?:\d{6}|\d{10})$/),
  CardPwd: opt(2, /^\d{2}$/),
};

/** The EncData keys in the spec's order (Authentication: CardNo=…&CardExpire=…&BuyerAuthNum=…&CardPwd=…). */
export const KEYIN_ENC_KEYS = ['CardNo', 'CardExpire', 'BuyerAuthNum', 'CardPwd'] as const;

/** Key-in path on {base_url}. */
export const KEYIN_PATH = '/webapi/card_keyin.jsp';

/** ResultCode of an approved key-in (gateway-interface.md, Errors 2). */
export const KEYIN_SUCCESS_CODE = '3001';

/**
 * Builds the EncData plaintext exactly as the spec writes it: all four keys in order, a key
 * not given sent empty (`…&BuyerAuthNum=&CardPwd=`), as NICEPAY's own key-in sample does.
 */
export function keyinEncPlaintext(card: {
  number: string;
  expiry: string;
  buyerAuthNum?: string | undefined;
  password2?: string | undefined;
}): string {
  return `CardNo=${card.number}&CardExpire=${card.expiry}&BuyerAuthNum=${card.buyerAuthNum ?? ''}&CardPwd=${card.password2 ?? ''}`;
}

/**
 * Splits an EncData plaintext back into its sub-fields (the sandbox's side). Only the spec's
 * shape is read: the four keys, once each, in order; anything else (a key missing, repeated,
 * reordered or unknown) gives undefined. Values are kept as sent (no trimming).
 */
export function parseKeyinEncPlaintext(text: string): Record<string, string> | undefined {
  const parts = text.split('&');
  if (parts.length !== KEYIN_ENC_KEYS.length) return undefined;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i < parts.length; i++) {
    const prefix = `${KEYIN_ENC_KEYS[i]}=`;
    if (!parts[i]!.startsWith(prefix)) return undefined;
    out[KEYIN_ENC_KEYS[i]!] = parts[i]!.slice(prefix.length);
  }
  return out;
}
