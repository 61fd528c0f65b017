import type { FieldTable } from './field-sizes.js';
import { MID_PATTERN } from './keyin-fields.js';

/*
 * The data host's message ids and request field tables (gateway-interface.md, "C. Payout
 * operations" and "D. Reconciliation"). Sizes are bytes of UTF-8, the data host's encoding.
 * Used by the client before sending and by the sandbox on receipt.
 */

/** Message ids (header.sid) of the data host operations. */
export const SID = {
  balance: '0101001',
  subMerchant: '0105001',
  payoutRequest: '0102001',
  payoutCancel: '0103001',
  payoutResults: '0101002',
  cashReceipts: '0301002',
} as const;

/** One of the data host message ids. */
export type DataSid = (typeof SID)[keyof typeof SID];

const DATE8 = /^\d{8}$/;
/**
 * encKey is hex(sha256(...)): 64 lower-case hex digits (gateway-interface.md, Authentication:
 * "lowercase hex assumed by the hex() notation"; gateway-facts.md: SignData is lowercase hex).
 * One decision for every signed value the project sends (docs/sandbox.md).
 */
const ENC_KEY = /^[0-9a-f]{64}$/;
const common = {
  mid: { max: 10, required: true, pattern: MID_PATTERN },
  encKey: { max: 255, required: true, pattern: ENC_KEY },
} as const;

/**
 * orgSvcCd values of the reconciliation request (gateway-interface.md, D): 01 card, 02 bank
 * transfer, 03 virtual account, 04 cash receipt, 26 CMS account simple payment.
 */
export const ORG_SVC_CODES = ['01', '02', '03', '04', '26'] as const;

/** Balance query (0101001): mid and encKey only. */
export const BALANCE_FIELDS: FieldTable = { ...common };

/** Sub-merchant registration (reqType 0) or modification (reqType 1), 0105001. */
export const SUB_MERCHANT_FIELDS: FieldTable = {
  ...common,
  subId: { max: 50, required: true },
  subNm: { max: 50, required: true },
  subCoNo: { max: 30, required: true },
  bankCd: { max: 3, required: true },
  accntNo: { max: 30, required: true },
  accntNm: { max: 30, required: true },
  memo: { max: 100, required: false },
  reqType: { max: 1, required: true, pattern: /^[01]$/ },
};

/** Payout request (0102001). */
export const PAYOUT_REQUEST_FIELDS: FieldTable = {
  ...common,
  settlmntDt: { max: 8, required: true, pattern: DATE8 },
  subId: { max: 50, required: true },
  settlmntAmt: { max: 14, required: true, pattern: /^\d+$/ },
  dupChkYn: { max: 1, required: true, pattern: /^[YN]$/ },
  accntDesc: { max: 30, required: false },
};

/** Payout cancel (0103001): one seq per call. */
export const PAYOUT_CANCEL_FIELDS: FieldTable = {
  ...common,
  settlmntDt: { max: 8, required: true, pattern: DATE8 },
  subId: { max: 50, required: true },
  seq: { max: 20, required: true },
};

/** Payout result query (0101002); subId empty means every payout of the mid on that date. */
export const PAYOUT_RESULTS_FIELDS: FieldTable = {
  ...common,
  settlmntDt: { max: 8, required: true, pattern: DATE8 },
  subId: { max: 50, required: false },
};

/**
 * Cash receipt list (0301002), the fields whose size the spec gives. The request example
 * also carries svcCd and trCl, size and values not shown; each side decides what to do
 * with them.
 */
export const CASH_RECEIPT_FIELDS: FieldTable = {
  usrId: { max: 20, required: true },
  encKey: { max: 256, required: true, pattern: ENC_KEY },
  dt: { max: 8, required: true, pattern: DATE8 },
  orgSvcCd: { max: 2, required: true, pattern: new RegExp(`^(?:${ORG_SVC_CODES.join('|')})$`) },
  idCl: { max: 1, required: true, pattern: /^[234]$/ },
  searchID: { max: 10, required: true },
};
