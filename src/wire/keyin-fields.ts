import type { FieldSpec, FieldTable } from './field-sizes.js';

/*
 * Field tables of interface B (gateway-interface.md, "B. Card key-in"). Sizes are bytes of
 * the wire encoding: the request form is always EUC-KR, so GoodsName's 40 bytes hold 20
 * Hangul syllables. Used by the client before sending and by the sandbox on receipt.
 */

const req = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: true, ...(pattern ? { pattern } : {}) });
const opt = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: false, ...(pattern ? { pattern } : {}) });

/** The key-in request form (B table), in the order the client sends it. */
export const KEYIN_REQUEST_FIELDS: FieldTable = {
  TID: req(30, /^[A-Za-z0-9]{30}$/),
  MID: req(10),
  EdiDate: req(14, /^\d{14}$/),
  Moid: req(64),
  Amt: req(12, /^\d+$/),
  GoodsName: req(40),
  EncData: req(512, /^[0-9a-fA-F]+$/),
  CardInterest: req(1, /^[01]$/),
  CardQuota: req(2, /^\d{2}$/),
  SignData: req(256, /^[0-9a-f]{64}$/),
  BuyerEmail: opt(60),
  BuyerTel: opt(20),
  BuyerName: opt(30),
  CharSet: opt(10),
  EdiType: opt(10, /^(?:JSON|KV)$/),
  MallReserved: opt(500),
};

/**
 * The EncData plaintext sub-fields (B, second table). The spec gives CardNo 16 bytes; card
 * numbers run to 19 digits (ISO/IEC 7812), and the client accepts 13-19, so 19 is allowed
 * here. BuyerAuthNum and CardPwd are required or not by the merchant's contract.
 */
export const KEYIN_ENC_FIELDS: FieldTable = {
  CardNo: req(19, /^\d{13,19}$/),
  CardExpire: req(4, /^\d{4}$/),
  BuyerAuthNum: opt(13, /^(?:\d{6}|\d{10})$/),
  CardPwd: opt(2, /^\d{2}$/),
};

/** Key-in path on {base_url}. */
export const KEYIN_PATH = '/webapi/card_keyin.jsp';

/** ResultCode of an approved key-in (gateway-interface.md, Errors 2). */
export const KEYIN_SUCCESS_CODE = '3001';

/** Builds the EncData plaintext: CardNo and CardExpire, then BuyerAuthNum and CardPwd only when given. */
export function keyinEncPlaintext(card: { number: string; expiry: string; buyerAuthNum?: string | undefined; password2?: string | undefined }): string {
  let text = `CardNo=${card.number}&CardExpire=${card.expiry}`;
  if (card.buyerAuthNum !== undefined) text += `&BuyerAuthNum=${card.buyerAuthNum}`;
  if (card.password2 !== undefined) text += `&CardPwd=${card.password2}`;
  return text;
}

/** Splits an EncData plaintext back into its sub-fields (the sandbox's side). */
export function parseKeyinEncPlaintext(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    if (!Object.hasOwn(out, key)) out[key] = part.slice(eq + 1);
  }
  return out;
}
