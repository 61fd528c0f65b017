import type { Charset } from '../wire/charset.js';
import type { ReceiptPurpose } from '../wire/receipt-fields.js';
import type { EdiType } from '../wire/response-body.js';
import { knownKeys } from '../validation/known-keys.js';

/** Input of `nicepay.cashReceipt.issue()`: a receipt for cash taken outside the payment window. */
export interface CashReceiptInput {
  /** The order the cash paid, 1-64 bytes (EUC-KR). One Moid gets at most one receipt. */
  moid: string;
  /** Total in whole won; must equal supply + vat + service + taxFree. */
  amount: number;
  /** Goods name, at most 40 bytes in EUC-KR. */
  goodsName: string;
  /** `income-deduction` (소득공제, ReceiptType 1) or `expense-proof` (지출증빙, ReceiptType 2). */
  type: ReceiptPurpose;
  /**
   * ReceiptTypeNo: for income deduction a mobile number or cash-receipt card number; for
   * expense proof a business registration number or cash-receipt card number. Hyphens and
   * spaces are removed. Never logged unmasked.
   */
  identity: string;
  /** Supply amount (공급가액), whole won. */
  supply: number;
  /** VAT (부가세), whole won. */
  vat: number;
  /** Service charge (봉사료). @default 0 */
  service?: number;
  /** Tax-free amount (면세금액). @default 0 */
  taxFree?: number;
  buyer?: { name?: string; email?: string; tel?: string };
  /** @default 'euc-kr' */
  charset?: Charset;
  /** @default 'JSON' */
  ediType?: EdiType;
}

/** Every key of {@link CashReceiptInput}; another (`vatt`, say) is refused, nothing issued. */
export const CASH_RECEIPT_INPUT_KEYS = knownKeys<CashReceiptInput>({
  moid: true,
  amount: true,
  goodsName: true,
  type: true,
  identity: true,
  supply: true,
  vat: true,
  service: true,
  taxFree: true,
  buyer: true,
  charset: true,
  ediType: true,
});
/** Every key of a receipt's `buyer`. */
export const CASH_RECEIPT_BUYER_KEYS = knownKeys<NonNullable<CashReceiptInput['buyer']>>({
  name: true,
  email: true,
  tel: true,
});

/** The receipt was issued (ResultCode 7001). Cancel it with `nicepay.cancel({ tid, ... })` for its full amount. */
export interface IssuedCashReceipt {
  status: 'issued';
  tid: string;
  moid: string;
  amount: number;
  /** The receipt's approval number (AuthCode). */
  authCode: string;
  /** AuthDate (YYMMDDHHMISS, KST) as an instant. */
  authDate: Date | undefined;
  /** True when this Moid was issued before and this is the first issue's result. */
  duplicate: boolean;
  raw: Readonly<Record<string, string>>;
}

/** The gateway refused to issue (any ResultCode but 7001): no receipt exists. */
export interface RefusedCashReceipt {
  status: 'refused';
  code: string;
  message: string;
  tid: string;
  moid: string;
  amount: number;
  duplicate: boolean;
  raw: Readonly<Record<string, string>>;
}

/** What `issue()` resolves to; narrow on `status`. */
export type CashReceiptResult = IssuedCashReceipt | RefusedCashReceipt;

/** `nicepay.cashReceipt`: standalone cash receipts (docs/cash-receipts.md). */
export interface CashReceiptClient {
  /**
   * Issues a receipt once per Moid (across instances sharing the store). A repeat with the same
   * amount, type and identity gets the first result; anything else is refused with
   * NICEPAY_DUPLICATE_MISMATCH. An unknown outcome rejects with NICEPAY_OUTCOME_UNKNOWN every
   * time (reconcile through `nicepay.recon.cashReceipts` with orgSvcCd '04').
   */
  issue(input: CashReceiptInput): Promise<CashReceiptResult>;
}

export type { CashReceiptRejection } from '../errors/rejections.js';
