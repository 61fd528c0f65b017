/**
 * A verified payment as the approval (A) or key-in (B) response describes it: parsed values
 * beside the gateway's own fields, kept verbatim in `raw` (unknown ones included, since the
 * gateway adds fields without notice).
 */

/** The payment methods of interface A, plus a branch for methods outside the spec. */
export type PayMethod = 'CARD' | 'BANK' | 'VBANK' | 'CELLPHONE';

/** Cash-receipt class of a bank transfer or wallet payment (RcptType). */
export type CashReceiptType = 'none' | 'income-deduction' | 'expense-proof';

/** Fields every payment carries. */
export interface PaymentCommon {
  /** Gateway transaction id. */
  tid: string;
  mid: string;
  moid: string;
  /** Whole won, parsed from the zero-padded Amt. */
  amount: number;
  resultCode: string;
  resultMessage: string;
  /** Approval number (card, bank transfer, cellphone); empty for a virtual account. */
  authCode: string;
  /** AuthDate (YYMMDDHHMISS, KST) as an instant; undefined when absent or malformed. */
  approvedAt: Date | undefined;
  goodsName: string;
  buyerName: string;
  buyerEmail: string;
  buyerTel: string;
  mallReserved: string;
  /** Every field of the gateway's response, verbatim, unknown ones included. */
  raw: Readonly<Record<string, string>>;
}

/** A card payment (success code 3001). */
export interface CardPayment extends PaymentCommon {
  method: 'CARD';
  card: {
    code: string;
    name: string;
    /** Masked card number as the gateway returns it. */
    maskedNumber: string;
    /** Installment months; 0 for a lump sum. */
    installmentMonths: number;
    interestFree: boolean;
    acquirerCode: string;
    acquirerName: string;
    kind: 'credit' | 'debit' | 'unknown';
    partialCancelAllowed: boolean;
    cardType: 'personal' | 'corporate' | 'overseas' | 'unknown';
    /** Card-company point amount (PointAppAmt) and coupon amount (CouponAmt), in won. */
    pointAmount: number;
    couponAmount: number;
  };
}

/** A real-time bank transfer (success code 4000). */
export interface BankPayment extends PaymentCommon {
  method: 'BANK';
  bank: { code: string; name: string };
  cashReceipt: { type: CashReceiptType; tid: string; authCode: string };
}

/** A virtual account (success code 4100): issued, but paid only when the buyer deposits. */
export interface VbankPayment extends PaymentCommon {
  method: 'VBANK';
  virtualAccount: {
    bankCode: string;
    bankName: string;
    accountNumber: string;
    /** VbankExpDate + VbankExpTime (KST) as an instant. */
    expiresAt: Date | undefined;
  };
}

/** A cellphone payment (success code A000). */
export interface CellphonePayment extends PaymentCommon {
  method: 'CELLPHONE';
}

/** A verified payment; narrow on `method`. */
export type Payment = CardPayment | BankPayment | VbankPayment | CellphonePayment;

/** The gateway's success ResultCode per method (gateway-interface.md, Errors 1). */
export const SUCCESS_CODES: Readonly<Record<PayMethod, string>> = {
  CARD: '3001',
  BANK: '4000',
  VBANK: '4100',
  CELLPHONE: 'A000',
};
