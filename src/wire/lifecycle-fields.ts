import type { FieldTable } from './field-sizes.js';

/*
 * Request tables of the window, cancel and status inquiry (lifecycle-facts.md §1, §2, §4).
 * Sizes are bytes in the wire encoding; checkFields() applies them.
 */

const req = (max: number, pattern?: RegExp) => ({ max, required: true, ...(pattern ? { pattern } : {}) });
const opt = (max: number, pattern?: RegExp) => ({ max, required: false, ...(pattern ? { pattern } : {}) });

const DIGITS = /^\d+$/;
const EDI_DATE = /^\d{14}$/;

/** Path of cancel and refund (the net cancel's endpoint, without NetCancel=1). */
export const CANCEL_PATH = '/webapi/cancel_process.jsp';
/** Path of the transaction status inquiry (NICEPAY spells it `inquery`). */
export const STATUS_PATH = '/webapi/inquery/trans_status.jsp';

/** The payment window's request fields (lifecycle-facts §1), checked in the window's charset. */
export const WINDOW_FIELDS: FieldTable = {
  PayMethod: opt(40, /^(CARD|BANK|VBANK|CELLPHONE)(,(CARD|BANK|VBANK|CELLPHONE))*$/),
  GoodsName: req(40),
  Amt: req(12, DIGITS),
  MID: req(10),
  Moid: req(64),
  BuyerName: opt(30),
  BuyerEmail: opt(60, /^[^\s@]+@[^\s@]+$/),
  BuyerTel: opt(40, DIGITS),
  ReturnURL: req(500),
  VbankExpDate: opt(12, /^(\d{8}|\d{12})$/),
  EdiDate: req(14, EDI_DATE),
  SignData: req(256),
  CharSet: req(10),
  ReqReserved: opt(500),
  MallReserved: opt(500),
};

/** Cancel request fields (lifecycle-facts §2). CancelMsg and RefundAcctNm are EUC-KR bytes. */
export const CANCEL_REQUEST_FIELDS: FieldTable = {
  TID: req(30),
  MID: req(10),
  Moid: req(64),
  CancelAmt: req(12, DIGITS),
  CancelMsg: req(100),
  PartialCancelCode: req(1, /^[01]$/),
  EdiDate: req(14, EDI_DATE),
  SignData: req(256),
  CharSet: opt(10),
  EdiType: opt(10),
  MallReserved: opt(500),
  RefundAcctNo: opt(16, DIGITS),
  RefundBankCd: opt(3, /^\d{3}$/),
  RefundAcctNm: opt(10),
};

/** Status inquiry request fields (lifecycle-facts §4). */
export const STATUS_REQUEST_FIELDS: FieldTable = {
  TID: req(30),
  MID: req(10),
  EdiDate: req(14, EDI_DATE),
  SignData: req(256),
  CharSet: opt(10),
  EdiType: opt(10),
};
