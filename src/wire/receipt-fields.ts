import { sha256Hex } from './hash.js';
import type { FieldSpec, FieldTable } from './field-sizes.js';
import { MID_PATTERN } from './keyin-fields.js';

/*
 * The standalone cash receipt request (docs/spec/billing-facts.md §2), its SignData rule and
 * the rules of its values. Sizes are bytes of the EUC-KR request form. The facts give no
 * failure codes and no sizes beyond the table: the table is applied strictly.
 */

const req = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: true, ...(pattern ? { pattern } : {}) });
const opt = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: false, ...(pattern ? { pattern } : {}) });
const AMOUNT = /^\d+$/;
/** CharSet: the two answer encodings the facts name (euc-kr default, utf-8); anything else is refused. */
const CHARSET = /^(?:euc-kr|utf-8)$/i;

/** Receipt request (billing-facts §2). */
export const RECEIPT_REQUEST_FIELDS: FieldTable = {
  MID: req(10, MID_PATTERN),
  TID: req(30, /^[A-Za-z0-9]{30}$/),
  EdiDate: req(14, /^\d{14}$/),
  Moid: req(64),
  SignData: req(256, /^[0-9a-f]{64}$/),
  GoodsName: req(40),
  ReceiptAmt: req(12, AMOUNT),
  ReceiptType: req(1, /^[12]$/),
  ReceiptTypeNo: req(20, /^\d+$/),
  ReceiptSupplyAmt: req(12, AMOUNT),
  ReceiptVAT: req(12, AMOUNT),
  ReceiptServiceAmt: req(12, AMOUNT),
  ReceiptTaxFreeAmt: req(12, AMOUNT),
  BuyerName: opt(30),
  BuyerEmail: opt(60),
  BuyerTel: opt(20),
  CharSet: opt(10, CHARSET),
  EdiType: opt(10, /^(?:JSON|KV)$/),
};

/** Receipt path on {base_url}. */
export const RECEIPT_PATH = '/webapi/cash_receipt.jsp';
/** ResultCode of an issued receipt (billing-facts §2). */
export const RECEIPT_ISSUED_CODE = '7001';

/** Receipt SignData: sha256(MID + ReceiptAmt + EdiDate + Moid + key). */
export function receiptSignData(mid: string, receiptAmt: string, ediDate: string, moid: string, key: string): string {
  return sha256Hex(mid + receiptAmt + ediDate + moid + key);
}

/** Receipt purpose: `1` income deduction (소득공제), `2` expense proof (지출증빙). */
export type ReceiptPurpose = 'income-deduction' | 'expense-proof';

/** ReceiptType of a purpose. */
export const RECEIPT_TYPE_CODES: Readonly<Record<ReceiptPurpose, '1' | '2'>> = {
  'income-deduction': '1',
  'expense-proof': '2',
};

/** Korean mobile number, 10-11 digits (010, 011, 016-019). */
const MOBILE = /^01[016789]\d{7,8}$/;
/** Cash-receipt card number: 13 to 19 digits (a card number's length). */
const RECEIPT_CARD = /^\d{13,19}$/;

/**
 * True for a 10-digit business registration number whose check digit is right (the National
 * Tax Service rule: weights 1,3,7,1,3,7,1,3,5, plus the tens of the ninth digit times 5).
 */
export function businessNumberValid(digits: string): boolean {
  if (!/^\d{10}$/.test(digits)) return false;
  const w = [1, 3, 7, 1, 3, 7, 1, 3, 5];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (digits.charCodeAt(i) - 48) * w[i]!;
  sum += Math.floor(((digits.charCodeAt(8) - 48) * 5) / 10);
  return (10 - (sum % 10)) % 10 === digits.charCodeAt(9) - 48;
}

/**
 * Whether a ReceiptTypeNo (digits only) fits its purpose: an income-deduction receipt names
 * a mobile number or a cash-receipt card; an expense-proof receipt names a business number
 * (check digit verified) or a cash-receipt card. Returns a rule text when it does not.
 */
export function receiptIdentityProblem(purpose: ReceiptPurpose, digits: string): string | undefined {
  if (!/^\d+$/.test(digits) || digits.length > 20)
    return 'must be digits only (hyphens and spaces are removed), at most 20';
  if (purpose === 'income-deduction') {
    if (MOBILE.test(digits) || RECEIPT_CARD.test(digits)) return undefined;
    return "for 'income-deduction' must be a mobile number (010...) or a cash-receipt card number (13-19 digits)";
  }
  if (businessNumberValid(digits) || RECEIPT_CARD.test(digits)) return undefined;
  if (/^\d{10}$/.test(digits)) return "for 'expense-proof' is 10 digits but its business-number check digit is wrong";
  return "for 'expense-proof' must be a business registration number (10 digits) or a cash-receipt card number (13-19 digits)";
}

/** The four parts of a receipt's amount, in whole won. */
export interface ReceiptAmounts {
  amount: number;
  supply: number;
  vat: number;
  service: number;
  taxFree: number;
}

/** True when supply + VAT + service + tax-free = amount (billing-facts §2). */
export function receiptAmountsAddUp(a: ReceiptAmounts): boolean {
  return a.supply + a.vat + a.service + a.taxFree === a.amount;
}
