import type { HookContext } from '../pipeline/hook-runner.js';
import type { ChargerOptions } from '../pipeline/charger.js';
import type { CardPayment } from '../types/payment.js';
import type { Charset } from '../wire/charset.js';
import type { EdiType } from '../wire/response-body.js';
import { type KeyList, knownKeys } from '../validation/known-keys.js';

/** Buyer details sent with a billing call (BuyerName 30, BuyerEmail 60, BuyerTel 20 bytes, EUC-KR). */
export interface BillingBuyer {
  name?: string;
  email?: string;
  tel?: string;
}

/** Every key of {@link BillingBuyer}. */
export const BILLING_BUYER_KEYS = knownKeys<BillingBuyer>({ name: true, email: true, tel: true });

/** Card data of a registration. Sent only inside EncData; never logged, stored or echoed. */
export interface BillingCard {
  /** Card number, 13-16 digits (spaces and hyphens are stripped), Luhn-valid. */
  number: string;
  /** Expiry year, two digits (`29`) or four (`2029`). */
  expYear: string;
  /** Expiry month, `01`-`12` (or `1`-`12`). */
  expMonth: string;
  /** Birth date YYMMDD (6 digits) or business registration number (10); required by some contracts. */
  idNo?: string;
  /** First 2 digits of the card password; required by some contracts. */
  password2?: string;
}

/** Every key of {@link BillingCard}. */
export const BILLING_CARD_KEYS = knownKeys<BillingCard>({
  number: true,
  expYear: true,
  expMonth: true,
  idNo: true,
  password2: true,
});

/** Input of `nicepay.billing.register()`. */
export interface BillingRegisterInput {
  /** A new order number for the registration, 1-64 bytes (EUC-KR). */
  moid: string;
  card: BillingCard;
  buyer?: BillingBuyer;
  /** Encoding the gateway answers in (the request is always EUC-KR). @default 'euc-kr' */
  charset?: Charset;
  /** Response format. @default 'JSON' */
  ediType?: EdiType;
}

/** Every key of {@link BillingRegisterInput}. */
export const BILLING_REGISTER_KEYS = knownKeys<BillingRegisterInput>({
  moid: true,
  card: true,
  buyer: true,
  charset: true,
  ediType: true,
});

/** The card a BID was issued for, as the gateway names it (no card data). */
export interface BillingCardInfo {
  /** CardCode (4). */
  code: string;
  /** CardName (20). */
  name: string;
  /** CardCl: credit or check (debit). */
  kind: 'credit' | 'check' | 'unknown';
  acquirerCode: string;
  acquirerName: string;
}

/**
 * The card was registered (ResultCode F100). `bid` charges the card: keep it like a card
 * number (encrypted at rest, never logged). `toJSON()` and `String()` show it masked.
 */
export interface RegisteredBilling {
  status: 'registered';
  /** The billing key (30 characters). A secret. */
  bid: string;
  /** The BID masked for logs and screens (`BIKY**********************0012`). */
  bidMasked: string;
  /** The registration's own TID (never reused for a charge). */
  tid: string;
  moid: string;
  /** AuthDate (YYYYMMDD, KST) as an instant. */
  authDate: Date | undefined;
  card: BillingCardInfo;
  /** The registration as JSON.stringify shows it: every field, the BID masked. */
  toJSON(): Record<string, unknown>;
}

/** The gateway refused the registration, charge-free (any ResultCode but F100), or a removal (any but F101). */
export interface RefusedBilling {
  status: 'refused';
  code: string;
  /** ResultMsg verbatim. */
  message: string;
  moid: string;
}

/** What `register()` resolves to; narrow on `status`. */
export type BillingRegisterResult = RegisteredBilling | RefusedBilling;

/** Input of `nicepay.billing.charge()`. */
export interface BillingChargeInput {
  /** The BID from `register()`. */
  bid: string;
  /** The shop's order number of this charge, 1-64 bytes (EUC-KR). One Moid is charged at most once. */
  moid: string;
  /** Amount in whole won: a positive integer of at most 12 digits. */
  amount: number;
  /** Goods name, at most 40 bytes in EUC-KR (20 Hangul syllables). */
  goodsName: string;
  /** Installment months: 0 (lump sum) or 2-99. @default 0 */
  quota?: number | string;
  /** Merchant-borne interest-free installment (CardInterest 1). @default false */
  interestFree?: boolean;
  /** Use card points (CardPoint 1), for cards that support it. @default false */
  cardPoint?: boolean;
  buyer?: BillingBuyer;
  /** Merchant spare field, returned as sent (500 bytes). */
  mallReserved?: string;
  /**
   * Runs once per approved charge (per TID, through the hook runner) before the promise
   * resolves. When it rejects, the charge is reversed (net cancel; settlement finishes a failed
   * one) and the promise rejects with NICEPAY_HOOK_FAILED, whose `netCancel` and `settlement`
   * say what became of it; one that never settles keeps the charge while it runs (docs/hooks.md).
   */
  onApproved?: (result: ApprovedBillingCharge, context: HookContext) => void | Promise<void>;
  /** When onApproved's `signal` aborts; its own promise still decides. @default 30000 */
  hookTimeoutMs?: number;
  /** @default 'euc-kr' */
  charset?: Charset;
  /** @default 'JSON' */
  ediType?: EdiType;
}

/** The gateway approved the charge (ResultCode 3001): the card was charged. */
export interface ApprovedBillingCharge {
  status: 'approved';
  payment: CardPayment;
  tid: string;
  moid: string;
  amount: number;
  /** True when this Moid was charged before and this is the first charge's result. */
  duplicate: boolean;
}

/** The gateway declined (any ResultCode but 3001). Nothing was charged; the BID stays valid. */
export interface DeclinedBillingCharge {
  status: 'declined';
  code: string;
  /** ResultMsg verbatim (the issuer's message). */
  message: string;
  tid: string;
  moid: string;
  amount: number;
  duplicate: boolean;
  /** Every field of the gateway's answer, verbatim (it carries no BID). */
  raw: Readonly<Record<string, string>>;
}

/** What `charge()` resolves to; narrow on `status`. */
export type BillingChargeResult = ApprovedBillingCharge | DeclinedBillingCharge;

/** Input of `nicepay.billing.remove()`. */
export interface BillingRemoveInput {
  bid: string;
  /** A new order number for the removal, 1-64 bytes. */
  moid: string;
  /** @default 'euc-kr' */
  charset?: Charset;
  /** @default 'JSON' */
  ediType?: EdiType;
}

/** Every key of {@link BillingRemoveInput}. */
export const BILLING_REMOVE_KEYS = knownKeys<BillingRemoveInput>({
  bid: true,
  moid: true,
  charset: true,
  ediType: true,
});

/** The BID was removed (ResultCode F101); it can never charge again. */
export interface RemovedBilling {
  status: 'removed';
  tid: string;
  moid: string;
  authDate: Date | undefined;
}

/** What `remove()` resolves to. */
export type BillingRemoveResult = RemovedBilling | RefusedBilling;

/** `nicepay.billing`: recurring card billing (docs/billing.md). */
export interface BillingClient {
  /** Registers a card and returns its billing key (BID). Not run-once: a new Moid per registration. */
  register(input: BillingRegisterInput): Promise<BillingRegisterResult>;
  /**
   * Charges a BID. The same Moid again (sequentially, concurrently or from another instance
   * sharing the store) is charged at most once and resolves to the first result when the BID
   * and amount are the same; anything else is refused with NICEPAY_DUPLICATE_MISMATCH. An
   * unknown outcome is reversed, or settled later, and rejects with NICEPAY_OUTCOME_UNKNOWN.
   */
  charge(input: BillingChargeInput): Promise<BillingChargeResult>;
  /** Removes a BID for good. */
  remove(input: BillingRemoveInput): Promise<BillingRemoveResult>;
  /**
   * A charge function whose `onApproved` is registered in the ledger under a name, as a route's
   * is: when the process dies before the hook resolved for a committed charge, settlement (on
   * any instance that created the same charger) runs this hook again, and keeps the charge once
   * it resolves, with no repeat of the call. Create chargers once, at start-up, each with a name
   * of its own; a charge made through `charge({ onApproved })` instead waits for its repeat.
   * Throws NicepayConfigError for a bad option, a missing name or a name already registered.
   */
  charger(options: BillingChargerOptions): (input: BillingChargerInput) => Promise<BillingChargeResult>;
}

/** Options of {@link BillingClient.charger}. */
export type BillingChargerOptions = ChargerOptions<ApprovedBillingCharge>;

/** A charger's input: a charge's, without a hook of its own (the charger's is used). */
export type BillingChargerInput = Omit<BillingChargeInput, 'onApproved' | 'hookTimeoutMs'>;

/** Every key of {@link BillingChargerInput}, the list both key lists are made of. */
const BILLING_CHARGER_KEY_LIST: KeyList<BillingChargerInput> = {
  bid: true,
  moid: true,
  amount: true,
  goodsName: true,
  quota: true,
  interestFree: true,
  cardPoint: true,
  buyer: true,
  mallReserved: true,
  charset: true,
  ediType: true,
};

/** Every key of {@link BillingChargerInput}. */
export const BILLING_CHARGER_INPUT_KEYS = knownKeys<BillingChargerInput>(BILLING_CHARGER_KEY_LIST);

/** Every key of {@link BillingChargeInput}; another (`onApprove`, say) is refused, nothing charged. */
export const BILLING_CHARGE_KEYS = knownKeys<BillingChargeInput>({
  ...BILLING_CHARGER_KEY_LIST,
  onApproved: true,
  hookTimeoutMs: true,
});

export type { BillingChargeRejection, BillingKeyRejection } from '../errors/rejections.js';
