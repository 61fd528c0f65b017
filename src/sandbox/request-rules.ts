import type { Charset } from '../wire/charset.js';
import {
  APPROVAL_REQUEST_FIELDS,
  checkFields,
  type FieldProblem,
  type FieldSpec,
  type FieldTable,
} from '../wire/field-sizes.js';
import { KEYIN_REQUEST_FIELDS } from '../wire/keyin-fields.js';
import { CANCEL_REQUEST_FIELDS, STATUS_REQUEST_FIELDS, WINDOW_FIELDS } from '../wire/lifecycle-fields.js';

/*
 * The sandbox's request rules as data: one field table per endpoint, built from the same
 * `wire/` tables the client sends by, plus the value lists the documents give (CharSet, EdiType).
 * docs/sandbox.md, "The rule table", lists every row with its source; test/sandbox-rules.test.ts
 * sends the violating and the boundary-valid request of every row over loopback HTTP.
 */

const opt = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: false, ...(pattern ? { pattern } : {}) });

/**
 * CharSet: "euc-kr (default) or utf-8" (gateway-interface A and B). Charset labels are
 * case-insensitive in HTTP and HTML, so `EUC-KR` is the same label; nothing else is read.
 */
export const CHARSET_VALUE = /^(?:euc-kr|utf-8)$/i;
/** EdiType: "JSON (default) or KV" (gateway-interface A and B), exactly as written there. */
export const EDI_TYPE_VALUE = /^(?:JSON|KV)$/;

/** The answer-format fields every server-to-server request of the approval host may carry. */
const FORMAT_FIELDS: FieldTable = { CharSet: opt(10, CHARSET_VALUE), EdiType: opt(10, EDI_TYPE_VALUE) };

/** Approval (gateway-interface A, request table), with the CharSet and EdiType value lists. */
export const APPROVAL_RULES: FieldTable = (() => {
  const { NetCancel: _netCancel, ...approval } = APPROVAL_REQUEST_FIELDS;
  return { ...approval, ...FORMAT_FIELDS };
})();

/** Net cancel of a window transaction: the approval's fields plus NetCancel=1 (gateway-facts, Net cancel). */
export const NET_CANCEL_RULES: FieldTable = {
  ...APPROVAL_REQUEST_FIELDS,
  ...FORMAT_FIELDS,
  NetCancel: { max: 1, required: true, pattern: /^1$/ },
};

/**
 * Net cancel of a key-in transaction, which has no AuthToken: the documented cancel
 * (lifecycle-facts 2: TID, MID, Moid, CancelAmt, CancelMsg, PartialCancelCode 0, EdiDate,
 * SignData over MID + CancelAmt + EdiDate + key) plus NetCancel=1, and nothing else.
 */
export const KEYIN_NET_CANCEL_RULES: FieldTable = {
  ...CANCEL_REQUEST_FIELDS,
  ...FORMAT_FIELDS,
  PartialCancelCode: { max: 1, required: true, pattern: /^0$/ },
  NetCancel: { max: 1, required: true, pattern: /^1$/ },
};

/** Cancel and refund (lifecycle-facts 2), with the CharSet and EdiType value lists. */
export const CANCEL_RULES: FieldTable = { ...CANCEL_REQUEST_FIELDS, ...FORMAT_FIELDS };

/** Status inquiry (lifecycle-facts 4): TID exactly 30 characters (the TID format), EdiDate 14 digits. */
export const STATUS_RULES: FieldTable = {
  ...STATUS_REQUEST_FIELDS,
  ...FORMAT_FIELDS,
  TID: { max: 30, required: true, pattern: /^[A-Za-z0-9]{30}$/ },
};

/** Card key-in (gateway-interface B), with the CharSet value list (EdiType's is in the wire table). */
export const KEYIN_RULES: FieldTable = { ...KEYIN_REQUEST_FIELDS, CharSet: opt(10, CHARSET_VALUE) };

/**
 * The payment window (lifecycle-facts 1): PayMethod one or several of the four methods,
 * BuyerTel 40 digits, BuyerEmail an address, VbankExpDate YYYYMMDD or YYYYMMDDHHmm. CharSet
 * is optional here (euc-kr by default, as the facts say of the answers).
 */
export const WINDOW_RULES: FieldTable = { ...WINDOW_FIELDS, CharSet: opt(10, CHARSET_VALUE) };

/**
 * The window opened by goPay as a PC layer: the same table, but ReturnURL optional. The vendor's
 * sample page marks it "mobile window only; not needed for the PC window": the PC result goes
 * back into the page's own form.
 */
export const LAYER_WINDOW_RULES: FieldTable = { ...WINDOW_RULES, ReturnURL: opt(500) };

/**
 * The first rule `fields` break in `table` (sizes in bytes of `charset`), or undefined. Where the
 * table takes MallReserved, a KV request's MallReserved must hold no `&` or `=`: the answer
 * echoes it and a KV answer escapes nothing, so it could not come back as sent (the sandbox's
 * choice, docs/sandbox.md).
 */
export function brokenRule(
  table: FieldTable,
  fields: Readonly<Record<string, string>>,
  charset: Charset,
): FieldProblem | undefined {
  const problem = checkFields(table, fields, charset);
  if (problem) return problem;
  if (Object.hasOwn(table, 'MallReserved') && fields.EdiType === 'KV' && /[&=]/.test(fields.MallReserved ?? ''))
    return { field: 'MallReserved', rule: 'format', message: 'MallReserved holds & or = with EdiType=KV' };
  return undefined;
}

/** The Korean text of a broken field rule, naming the field and the rule (never the value). */
export function ruleMessage(p: FieldProblem): string {
  if (p.rule === 'required') return `필수 항목이 누락되었습니다: ${p.field}`;
  if (p.rule === 'too-long') return `${p.field} 항목이 최대 길이를 넘었습니다 (${p.message}).`;
  return `${p.field} 항목의 형식이 올바르지 않습니다.`;
}
