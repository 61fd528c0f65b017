import type { PayMethod } from '../types/payment.js';
import { knownKeys } from '../validation/known-keys.js';

/** The buyer as the payment window shows and records them. All optional. */
export interface WindowBuyer {
  /** BuyerName, at most 30 bytes in the window's charset. */
  name?: string;
  /** BuyerEmail, at most 60 bytes. */
  email?: string;
  /** BuyerTel, digits only (dashes are removed), at most 40. */
  tel?: string;
}

/** Every key of {@link WindowBuyer}. */
export const WINDOW_BUYER_KEYS = knownKeys<WindowBuyer>({ name: true, email: true, tel: true });

/** The shop's order, as {@link Nicepay.paymentWindow} turns it into a signed window request. */
export interface PaymentWindowOrder {
  /** The shop's order number (Moid), at most 64 bytes. */
  moid: string;
  /** Whole won, 1 to 999,999,999,999. */
  amount: number;
  /** GoodsName, at most 40 bytes in the window's charset (EUC-KR: 2 per Hangul; UTF-8: 3). */
  goodsName: string;
  /** Absolute http(s) URL of the route `checkoutReturn` guards (ReturnURL). */
  returnUrl: string | URL;
  /** The methods offered; several are joined with commas. @default every method of the contract */
  payMethod?: PayMethod | readonly PayMethod[];
  buyer?: WindowBuyer;
  /** Virtual accounts: when the account expires, a Date (written in KST) or `YYYYMMDD[HHmm]` KST text. */
  vbankExpiry?: Date | string;
  /** Returned by the gateway as sent (MallReserved), at most 500 bytes. */
  mallReserved?: string;
  /** Returned in the auth return as sent (ReqReserved), at most 500 bytes. */
  reqReserved?: string;
  /**
   * The `ediType` of the checkoutReturn route this order returns to. With `'KV'` the approval
   * answer echoes GoodsName, the buyer fields and MallReserved unescaped, so text holding `&`
   * or `=` is refused here, before the buyer pays, rather than making a genuine approval
   * unreadable (and net-cancelled) later. @default 'JSON'
   */
  ediType?: 'JSON' | 'KV';
}

/** Every key of {@link PaymentWindowOrder}; another is refused rather than left out of the window. */
export const PAYMENT_WINDOW_ORDER_KEYS = knownKeys<PaymentWindowOrder>({
  moid: true,
  amount: true,
  goodsName: true,
  returnUrl: true,
  payMethod: true,
  buyer: true,
  vbankExpiry: true,
  mallReserved: true,
  reqReserved: true,
  ediType: true,
});

/**
 * The signed window request: field names as the gateway spells them, ready to render as
 * hidden inputs of the form `goPay(form)` submits (or to post to the sandbox's `/window`).
 * Optional fields the order did not set are absent.
 */
export interface PaymentWindowFields {
  PayMethod?: string;
  GoodsName: string;
  Amt: string;
  MID: string;
  Moid: string;
  BuyerName?: string;
  BuyerEmail?: string;
  BuyerTel?: string;
  ReturnURL: string;
  VbankExpDate?: string;
  /** yyyyMMddHHmmss in KST, from the configured clock. */
  EdiDate: string;
  /** hex(sha256(EdiDate + MID + Amt + MerchantKey)), lower-case. */
  SignData: string;
  /** The charset the window answers in: the `charset` option of createNicepay. */
  CharSet: 'euc-kr' | 'utf-8';
  ReqReserved?: string;
  MallReserved?: string;
}
