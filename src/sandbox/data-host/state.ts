import type { SandboxState } from '../types.js';
import { moduleSlot } from '../module-state.js';

/*
 * The data host's books: balances, sub-merchants, payouts, the bank's account-holder
 * directory and cash receipts. One per sandbox, kept in state.modules under 'data-host'.
 */

/** Payout status texts as the gateway reports them (gateway-interface.md, Payout result status). */
export type SandboxPayoutStatus = '요청' | '성공' | '실패' | '재요청 진행중' | '삭제';

/** A registered sub-merchant. */
export interface SandboxSubMerchant {
  mid: string;
  subId: string;
  subNm: string;
  subCoNo: string;
  bankCd: string;
  accntNo: string;
  accntNm: string;
  memo: string;
}

/** A payout request and what became of it. */
export interface SandboxPayout {
  mid: string;
  seq: string;
  subId: string;
  settlmntDt: string;
  amount: number;
  dupChkYn: string;
  accntDesc: string;
  status: SandboxPayoutStatus;
  errReason: string;
  requestedAt: Date;
  /** Account paid to (captured at execution; the registered one until then). */
  bankCd: string;
  accntNo: string;
  accntNm: string;
}

/** lastcl: 00 settlement money, 01 cash deposit, 10 sub-merchant payout. */
export interface SandboxBalanceEntry {
  lastcl: '00' | '01' | '10';
  amount: number;
  date: string;
}

/** A merchant's payout balance. */
export interface SandboxBalance {
  remainAmt: number;
  last: SandboxBalanceEntry | undefined;
}

/** A cash receipt issued with a bank-transfer or virtual-account payment. */
export interface SandboxCashReceipt {
  mid: string;
  tid: string;
  orgTid: string;
  /** 02 bank transfer, 03 virtual account, 04 a standalone cash receipt (cash_receipt.jsp). */
  orgSvcCd: '02' | '03' | '04';
  moid: string;
  goodsNm: string;
  goodsAmt: number;
  appDt: string;
  appTm: string;
  ccDt: string;
  ccTm: string;
  stateCd: '0' | '1';
  appNo: string;
  ccNo: string;
  ordNm: string;
  /** Masked issue number. */
  identity: string;
  status: string;
  reqFlg: '1' | '2';
}

/** Everything the data host keeps. */
export interface DataHostState {
  balances: Map<string, SandboxBalance>;
  /** Key: `${mid} ${subId}`. */
  subMerchants: Map<string, SandboxSubMerchant>;
  payouts: SandboxPayout[];
  nextSeq: number;
  /** The bank's account-holder lookup; key `${bankCd}:${accntNo}`. */
  holders: Map<string, string>;
  closedAccounts: Set<string>;
  holidays: Set<string>;
  /** Sub-merchants (`${mid} ${subId}`) paid through a cross-border wallet service. */
  crossBorder: Set<string>;
  receipts: SandboxCashReceipt[];
}

export const MODULE_NAME = 'data-host';

/** The data host state of a sandbox, created on first use. */
export function dataHostState(state: SandboxState): DataHostState {
  return moduleSlot<DataHostState>(state, MODULE_NAME, () => ({
    balances: new Map(),
    subMerchants: new Map(),
    payouts: [],
    nextSeq: 1,
    holders: new Map(),
    closedAccounts: new Set(),
    holidays: new Set(),
    crossBorder: new Set(),
    receipts: [],
  }));
}

export const accountKey = (bankCd: string, accntNo: string): string => `${bankCd}:${accntNo.replace(/-/g, '')}`;
export const subKey = (mid: string, subId: string): string => `${mid} ${subId}`;

/** The balance of a merchant, created at 0. */
export function balanceOf(ds: DataHostState, mid: string): SandboxBalance {
  let b = ds.balances.get(mid);
  if (!b) {
    b = { remainAmt: 0, last: undefined };
    ds.balances.set(mid, b);
  }
  return b;
}

/** Masks all but the first 3 and last 2 characters (account numbers, issue numbers). */
export function mask(value: string): string {
  if (value.length <= 5) return value.slice(0, 1) + '*'.repeat(Math.max(0, value.length - 1));
  return value.slice(0, 3) + '*'.repeat(value.length - 5) + value.slice(-2);
}
