/*
 * Public types of the payout client (gateway-interface.md, C. Payout operations).
 * Amounts are whole won as numbers; dates are YYYYMMDD strings in KST.
 */

/** Options of the payout client (`createNicepay({ payout })`); resolved with the others in config.ts. */
export type { PayoutOptions } from '../config.js';

import { knownKeys } from '../validation/known-keys.js';

/** What the balance's latest entry was (lastcl 00 / 01 / 10). */
export type BalanceEntryKind = 'settlement' | 'deposit' | 'payout' | 'unknown';

/** The latest entry of the balance. */
export interface BalanceLastEntry {
  /** 00 settlement money, 01 cash deposit, 10 sub-merchant payout. */
  kind: BalanceEntryKind;
  /** The code as received. */
  lastcl: string;
  /** lastAmt. */
  amount: number;
  /** lastDt, YYYYMMDD. */
  date: string;
}

/** Result of {@link PayoutClient.balance} (sid 0101001). */
export interface PayoutBalance {
  mid: string;
  /** Total balance available for payouts, in won. */
  remainAmt: number;
  /** The latest entry, when the gateway reports one. */
  last: BalanceLastEntry | undefined;
  /** The response body as received (reqInfo and unknown fields included). */
  raw: Record<string, unknown>;
}

/**
 * A sub-merchant (the actual seller paid out to). Sizes are UTF-8 bytes (Hangul is 3).
 */
export interface SubMerchantInput {
  /** Sub-merchant id, up to 50 bytes. */
  subId: string;
  /** Name, up to 50 bytes. */
  subNm: string;
  /**
   * Business registration number, up to 30 bytes. It cannot be changed after
   * registration: {@link PayoutClient.updateSubMerchant} must carry the registered value
   * (the gateway checks and refuses a different one). Register a new subId instead.
   */
  subCoNo: string;
  /** Settlement bank code, 3 characters. */
  bankCd: string;
  /** Settlement account number, up to 30 bytes. */
  accntNo: string;
  /** Account holder name, up to 30 bytes; verified against the bank on registration. */
  accntNm: string;
  /** Remark, up to 100 bytes. */
  memo?: string;
}

/** Every key of {@link SubMerchantInput}. */
export const SUB_MERCHANT_INPUT_KEYS = knownKeys<SubMerchantInput>({
  subId: true,
  subNm: true,
  subCoNo: true,
  bankCd: true,
  accntNo: true,
  accntNm: true,
  memo: true,
});

/** Result of registering or modifying a sub-merchant (sid 0105001). */
export interface SubMerchantResult {
  mid: string;
  subId: string;
  /** 0 new registration, 1 modification. */
  reqType: '0' | '1';
  raw: Record<string, unknown>;
}

/** Input of {@link PayoutClient.request} (sid 0102001). */
export interface PayoutRequestInput {
  subId: string;
  /** Whole won, a positive integer of at most 14 digits. Not checked against the balance (the gateway does not either). */
  amount: number;
  /**
   * Payout date YYYYMMDD (a business day, not in the past; today only before 10:30 KST).
   * @default today in KST
   */
  settlmntDt?: string;
  /**
   * Refuse a second request for the same subId and date (dupChkYn Y). `false` allows
   * several payouts to one sub-merchant on one day.
   * @default true
   */
  dupCheck?: boolean;
  /**
   * Only with `dupCheck: false`: names the payout in the ledger, so a repeat with the same key
   * (and subId and date) is answered from its record, never sent again. At most 200
   * characters. Absent: a fresh random key, so the payout is not guarded against being made
   * twice (with the duplicate check, the subId and date name it and the gateway guards it).
   */
  idempotencyKey?: string;
  /** Text shown on the recipient's account, up to 30 bytes. @default the registered text */
  accntDesc?: string;
  /**
   * The sub-merchant is paid through a cross-border wallet service: the request must be made
   * by 23:59 KST of the day before settlmntDt (gateway-interface.md, Limits), so a same-day
   * request fails fast with rule 'cross-border-cutoff'. Nothing of it goes on the wire: the
   * gateway knows the contract.
   * @default false
   */
  crossBorder?: boolean;
}

/**
 * Every key of {@link PayoutRequestInput}; another is refused before anything is recorded: a
 * misspelt `idempotencyKey` with `dupCheck: false` would pay a repeated request out again.
 */
export const PAYOUT_REQUEST_INPUT_KEYS = knownKeys<PayoutRequestInput>({
  subId: true,
  amount: true,
  settlmntDt: true,
  dupCheck: true,
  idempotencyKey: true,
  accntDesc: true,
  crossBorder: true,
});

/** Result of a payout request: the payout the gateway registered. */
export interface PayoutRequestResult {
  /**
   * The gateway's sequence number: keep it for cancel() and results(). '' only when the
   * payout's answer was lost and sending it again was refused as registered already (1103):
   * the payout stands, and results() lists its seq from 16:00 KST of its day.
   */
  seq: string;
  subId: string;
  settlmntDt: string;
  amount: number;
  /** Whether the duplicate check applied (dupChkYn / dupYn = Y). */
  dupCheck: boolean;
  /** This payout was requested before: answered from its ledger record, nothing was sent now. */
  duplicate: boolean;
  /**
   * The shop cancelled this payout ({@link PayoutClient.cancel}, kept by the ledger): only a
   * repeat answered from its record can say so. With the duplicate check a request after the
   * cancel is a new payout instead; without it, a repeat under its idempotencyKey gets this one.
   */
  cancelled: boolean;
  /**
   * The answer body as the ledger recorded it (a repeat gets the same): `{}` when the gateway
   * confirmed the payout only by 1103, the listed row's fields when settlement found it.
   */
  raw: Record<string, unknown>;
}

/** Input of {@link PayoutClient.cancel} (sid 0103001): one seq per call. */
export interface PayoutCancelInput {
  subId: string;
  settlmntDt: string;
  seq: string;
}

/** Every key of {@link PayoutCancelInput}. */
export const PAYOUT_CANCEL_INPUT_KEYS = knownKeys<PayoutCancelInput>({ subId: true, settlmntDt: true, seq: true });

/** Result of a payout cancel. */
export interface PayoutCancelResult {
  mid: string;
  subId: string;
  settlmntDt: string;
  /**
   * The cancelled payout's amount (settlmntAmt): from the answer, else the ledger's record of the
   * payout; 0 when neither tells (a cancel confirmed by 1104 for a payout the ledger did not make).
   */
  amount: number;
  /** The cancelled seq. */
  seq: string;
  /** This cancel was made before: answered from its ledger record, nothing was sent now. */
  duplicate: boolean;
  /**
   * The answer body as the ledger recorded it (a repeat gets the same): `{}` when the gateway
   * confirmed the cancel only by 1104 (no live payout under the seq), the listed row's fields when
   * settlement found it deleted.
   */
  raw: Record<string, unknown>;
}

/** Input of {@link PayoutClient.results} (sid 0101002). */
export interface PayoutResultsQuery {
  /** Payout date YYYYMMDD; results are available from 16:00 KST of that day. */
  settlmntDt: string;
  /** One sub-merchant; omitted: every payout of the merchant on that date. */
  subId?: string;
}

/** Every key of {@link PayoutResultsQuery}. */
export const PAYOUT_RESULTS_QUERY_KEYS = knownKeys<PayoutResultsQuery>({ settlmntDt: true, subId: true });

/**
 * Status of one payout: statusNm 요청 requested, 성공 succeeded, 실패 failed,
 * 재요청 진행중 retrying, 삭제 deleted; anything else 'unknown' (handle it: new values
 * may appear).
 */
export type PayoutStatus = 'requested' | 'succeeded' | 'failed' | 'retrying' | 'deleted' | 'unknown';

/** One payout of the result list. */
export interface PayoutResultItem {
  rowNo: number;
  seq: string;
  settlmntDt: string;
  subId: string;
  subCoNo: string;
  subCoNm: string;
  status: PayoutStatus;
  /** The status text as received (Korean). */
  statusNm: string;
  /** settlmntAmt. */
  amount: number;
  bankCd: string;
  accntNm: string;
  /** Masked by the gateway. */
  accntNo: string;
  /** Why a payout failed ('' otherwise). */
  errReason: string;
  raw: Record<string, unknown>;
}

/** Result of {@link PayoutClient.results}. */
export interface PayoutResults {
  totCnt: number;
  succCnt: number;
  failCnt: number;
  remainAmt: number;
  items: PayoutResultItem[];
  raw: Record<string, unknown>;
}

/** The payout client (interface C), `nicepay.payout`. */
export interface PayoutClient {
  /** Balance query (0101001). */
  balance(): Promise<PayoutBalance>;
  /** New sub-merchant (0105001, reqType 0). Not between 23:00 and 01:00 KST. */
  registerSubMerchant(input: SubMerchantInput): Promise<SubMerchantResult>;
  /**
   * Modify a sub-merchant (0105001, reqType 1): subNm, bankCd, accntNo, accntNm and memo may
   * change; subCoNo must equal the registered value. Not between 23:00 and 01:00 KST.
   */
  updateSubMerchant(input: SubMerchantInput): Promise<SubMerchantResult>;
  /**
   * Payout request (0102001), a ledger operation: recorded before it is sent, once per subId
   * and date with the duplicate check (per idempotencyKey without it); a repeat is answered
   * from its record. An unknown outcome rejects with NICEPAY_OUTCOME_UNKNOWN and is settled by
   * the package (sent again before 10:30 KST, else found in the results from 16:00 KST).
   * Whether the payout was executed is known only from results().
   */
  request(input: PayoutRequestInput): Promise<PayoutRequestResult>;
  /**
   * Checks the date of a new payout request against the schedule rules `request()` applies (a
   * past date, a business day by `payout.businessDays`, the 10:30 KST cut-off and, with
   * `crossBorder`, the day before), on this client's clock, sending nothing: for a form that
   * should say so before the operator confirms. Throws NicepayScheduleError naming the `rule`,
   * or NICEPAY_FIELD_INVALID for a date that is not YYYYMMDD; with `scheduleChecks: false` only
   * the date's format is checked, as `request()` then leaves the rules to the gateway.
   */
  checkRequestDate(settlmntDt: string, options?: { crossBorder?: boolean }): void;
  /**
   * Payout cancel (0103001), before 10:30 KST of the payout day; a ledger operation: recorded
   * before it is sent, once per payout (subId, date, seq); a repeat is answered from its record,
   * whatever the time. An unknown outcome rejects with NICEPAY_OUTCOME_UNKNOWN and is settled by
   * the package (sent again before 10:30 KST, else found in the results from 16:00 KST).
   */
  cancel(input: PayoutCancelInput): Promise<PayoutCancelResult>;
  /** Result query (0101002), from 16:00 KST of the payout day. */
  results(query: PayoutResultsQuery): Promise<PayoutResults>;
}
