/*
 * Public types of the cash-receipt reconciliation client (gateway-interface.md, D).
 */

import { knownKeys } from '../validation/known-keys.js';

/** Original payment method: 01 card, 02 bank transfer, 03 virtual account, 04 cash receipt, 26 CMS account simple payment. */
export type OrgSvcCd = '01' | '02' | '03' | '04' | '26';

/** Query authority class: 2 MID, 3 GID, 4 AID. */
export type IdCl = '2' | '3' | '4';

/** Input of {@link ReconClient.cashReceipts} (sid 0301002). */
export interface CashReceiptQuery {
  /** Login id of the merchant administrator page, up to 20 bytes. */
  usrId: string;
  /** Query date YYYYMMDD (KST). */
  dt: string;
  /** Original payment method. */
  orgSvcCd: OrgSvcCd;
  /** Authority class of searchID. */
  idCl: IdCl;
  /** The MID, GID or AID to query, per idCl; up to 10 bytes. */
  searchID: string;
  /** Sent as given when set; size, meaning and values are not documented (the spec's example carries it). */
  svcCd?: string;
  /** Sent as given when set; size, meaning and values are not documented (the spec's example carries it). */
  trCl?: string;
}

/** Every key of {@link CashReceiptQuery}. */
export const CASH_RECEIPT_QUERY_KEYS = knownKeys<CashReceiptQuery>({
  usrId: true,
  dt: true,
  orgSvcCd: true,
  idCl: true,
  searchID: true,
  svcCd: true,
  trCl: true,
});

/** stateCd: 0 approval, 1 cancel. */
export type CashReceiptState = 'approval' | 'cancel' | 'unknown';

/**
 * status (issuing progress): 0 success, 1 requested, 2 request cancelled, 3 request
 * completed, 4 issuing completed, 9 request failed, 10 issuing failed.
 */
export type CashReceiptStatus =
  | 'success'
  | 'requested'
  | 'request-cancelled'
  | 'request-completed'
  | 'issued'
  | 'request-failed'
  | 'issue-failed'
  | 'unknown';

/** reqFlg: 1 income deduction, 2 expense proof. */
export type CashReceiptPurpose = 'income-deduction' | 'expense-proof' | 'unknown';

/** One cash receipt of the list. Texts as received; codes kept beside their meaning. */
export interface CashReceiptItem {
  /** Approval date YYYYMMDD and time HHMISS. */
  appDt: string;
  appTm: string;
  /** Cancel date and time ('' when not cancelled). */
  ccDt: string;
  ccTm: string;
  mid: string;
  serviceId: string;
  tid: string;
  /** Original transaction id (orgTid; the official example spells it otid). */
  orgTid: string;
  orgSvcCd: string;
  goodsNm: string;
  goodsAmt: number;
  state: CashReceiptState;
  /** The stateCd code as received. */
  stateCd: string;
  appNo: string;
  ccNo: string;
  ordNm: string;
  /** Issue number, partly masked as received (Identity / identity). */
  identity: string;
  status: CashReceiptStatus;
  /** The status code as received. */
  statusCd: string;
  purpose: CashReceiptPurpose;
  /** The reqFlg code as received. */
  reqFlg: string;
  coNm: string;
  coNo: string;
  moid: string;
  raw: Record<string, unknown>;
}

/** Result of {@link ReconClient.cashReceipts}. */
export interface CashReceiptList {
  /** Query date. */
  reqDt: string;
  /** Authority class of the user id: 2 MID, 3 GID, 4 AID. */
  authCl: string;
  /** dataCnt (the number of items when the gateway leaves it out). */
  count: number;
  items: CashReceiptItem[];
  raw: Record<string, unknown>;
}

/** The reconciliation client (interface D), `nicepay.recon`. */
export interface ReconClient {
  /** Cash receipts requested on `dt` (0301002). */
  cashReceipts(query: CashReceiptQuery): Promise<CashReceiptList>;
}
