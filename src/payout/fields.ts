import type { FieldTable } from '../wire/field-sizes.js';

/*
 * Request field tables of the payout sids, sizes in bytes (UTF-8 on this host), from
 * gateway-interface.md "C. Payout operations". Checked before sending.
 */

const DATE8 = /^\d{8}$/;
const common = { mid: { max: 10, required: true }, encKey: { max: 255, required: true } } as const;

export const BALANCE_FIELDS: FieldTable = { ...common };

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

export const PAYOUT_REQUEST_FIELDS: FieldTable = {
  ...common,
  settlmntDt: { max: 8, required: true, pattern: DATE8 },
  subId: { max: 50, required: true },
  settlmntAmt: { max: 14, required: true, pattern: /^\d+$/ },
  dupChkYn: { max: 1, required: true, pattern: /^[YN]$/ },
  accntDesc: { max: 30, required: false },
};

export const PAYOUT_CANCEL_FIELDS: FieldTable = {
  ...common,
  settlmntDt: { max: 8, required: true, pattern: DATE8 },
  subId: { max: 50, required: true },
  seq: { max: 20, required: true },
};

export const PAYOUT_RESULTS_FIELDS: FieldTable = {
  ...common,
  settlmntDt: { max: 8, required: true, pattern: DATE8 },
  subId: { max: 50, required: false },
};
