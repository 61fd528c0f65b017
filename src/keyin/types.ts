import type { ChargerOptions } from '../pipeline/charger.js';
import type { HookContext } from '../pipeline/hook-runner.js';
import type { CardPayment } from '../types/payment.js';
import type { Charset } from '../wire/charset.js';
import type { EdiType } from '../wire/response-body.js';
import { type KeyList, knownKeys } from '../validation/known-keys.js';

/** Card data of one key-in. Sent only inside EncData; never logged, stored or echoed. */
export interface KeyinCard {
  /** Card number, 13-19 digits (spaces and hyphens are stripped), Luhn-valid. */
  number: string;
  /** Expiry as YYMM (e.g. `2912`); must not lie in the past (KST). */
  expiry: string;
  /** Birth date YYMMDD (6 digits) or business registration number (10 digits); required by some contracts. */
  buyerAuthNum?: string;
  /** First 2 digits of the card password; required by some contracts. */
  password2?: string;
}

/** Every key of {@link KeyinCard}; another is refused (400 NICEPAY_FIELD_INVALID). */
export const KEYIN_CARD_KEYS = knownKeys<KeyinCard>({
  number: true,
  expiry: true,
  buyerAuthNum: true,
  password2: true,
});

/** Buyer details sent with the key-in (BuyerName 30, BuyerEmail 60, BuyerTel 20 bytes, EUC-KR). */
export interface KeyinBuyer {
  name?: string;
  email?: string;
  tel?: string;
}

/** Every key of {@link KeyinBuyer}. */
export const KEYIN_BUYER_KEYS = knownKeys<KeyinBuyer>({ name: true, email: true, tel: true });

/**
 * The EdiType of interface A, under the name key-in modules used before both were one type.
 * @deprecated use EdiType; not exported from the package.
 */
export type KeyinEdiType = EdiType;

/** Input of `nicepay.keyin()` (the key-in client, interface B). */
export interface KeyinInput {
  /** The shop's order number, 1-64 bytes (EUC-KR). One Moid is charged at most once. */
  moid: string;
  /** Amount in whole won: a positive integer of at most 12 digits. */
  amount: number;
  /** Goods name, at most 40 bytes in EUC-KR (20 Hangul syllables). */
  goodsName: string;
  card: KeyinCard;
  /** Installment months: 0 (lump sum) or 2-99. @default '00' (lump sum) */
  quota?: number | string;
  /** Merchant-borne interest-free installment event (CardInterest 1). @default false */
  interestFree?: boolean;
  buyer?: KeyinBuyer;
  /** Merchant spare field, returned as sent (500 bytes). */
  mallReserved?: string;
  /** Encoding the gateway answers in (the request form is always EUC-KR). @default 'euc-kr' */
  charset?: Charset;
  /** Response format. @default 'JSON' */
  ediType?: EdiType;
  /**
   * Records an approved key-in (marks the order paid), through the hook runner
   * (docs/hooks.md): once per TID, also when the same Moid is submitted again, never twice at
   * once however long it runs. A resubmission while it runs waits up to `hookTimeoutMs`, then
   * rejects with 409 NICEPAY_IN_PROGRESS; one after it threw runs it again. Key-in has no net
   * cancel: if it rejects (or never settles) the call rejects with 500 NICEPAY_HOOK_FAILED and
   * the TID, and the card stays charged. At-least-once: make it idempotent by TID.
   */
  onApproved?: (result: ApprovedKeyin, context: HookContext) => void | Promise<void>;
  /** When onApproved's `signal` aborts; its own promise still decides. @default 30000 */
  hookTimeoutMs?: number;
}

/** The gateway approved the key-in (ResultCode 3001): the card was charged. */
export interface ApprovedKeyin {
  status: 'approved';
  payment: CardPayment;
  tid: string;
  moid: string;
  amount: number;
  /** True when this Moid was submitted before and this is the first submission's result. */
  duplicate: boolean;
}

/** The gateway declined (any ResultCode but 3001). Nothing was charged. */
export interface DeclinedKeyin {
  status: 'declined';
  /** Gateway ResultCode. */
  code: string;
  /** Gateway ResultMsg, verbatim: for card problems the issuer's own message (show it to the buyer). */
  message: string;
  tid: string;
  moid: string;
  amount: number;
  /** True when this Moid was submitted before and this is the first submission's result. */
  duplicate: boolean;
  /** Every field of the gateway's answer, verbatim. */
  raw: Readonly<Record<string, string>>;
}

/**
 * What a key-in resolves to; narrow on `status`. Outcomes that are not a result (unreachable
 * gateway, unknown outcome, bad input) reject with a NicepayError instead.
 */
export type KeyinResult = ApprovedKeyin | DeclinedKeyin;

/** The key-in client of interface B. */
export interface KeyinClient {
  /**
   * Charges a card from its data. Validates everything before sending. The same Moid again
   * (sequentially, concurrently or from another instance sharing the store) is charged at most
   * once and resolves to the first approval with `duplicate: true`; a decline is not kept, so
   * the Moid may be paid with another card.
   */
  keyin(input: KeyinInput): Promise<KeyinResult>;
  /**
   * A key-in function whose `onApproved` is registered in the ledger under a name, as a key-in
   * route's is: when the process dies before the hook resolved for an approved key-in,
   * settlement (on any instance that created the same charger) runs this hook again and keeps
   * the charge, with no resubmission. Create chargers once, at start-up, each with a name of its
   * own; a key-in made through `keyin({ onApproved })` instead waits for its resubmission.
   * Throws NicepayConfigError for a bad option, a missing name or a name already registered.
   */
  charger(options: KeyinChargerOptions): (input: KeyinChargerInput) => Promise<KeyinResult>;
}

/** Options of `nicepay.keyinCharger()`. */
export type KeyinChargerOptions = ChargerOptions<ApprovedKeyin>;

/** A key-in charger's input: a key-in's, without a hook of its own (the charger's is used). */
export type KeyinChargerInput = Omit<KeyinInput, 'onApproved' | 'hookTimeoutMs'>;

/** Every key of {@link KeyinChargerInput}, the list both key lists are made of. */
const KEYIN_CHARGER_KEY_LIST: KeyList<KeyinChargerInput> = {
  moid: true,
  amount: true,
  goodsName: true,
  card: true,
  quota: true,
  interestFree: true,
  buyer: true,
  mallReserved: true,
  charset: true,
  ediType: true,
};

/** Every key of {@link KeyinChargerInput}. */
export const KEYIN_CHARGER_INPUT_KEYS = knownKeys<KeyinChargerInput>(KEYIN_CHARGER_KEY_LIST);

/** Every key of {@link KeyinInput}; another (`onApprove`, say) is refused, nothing charged. */
export const KEYIN_INPUT_KEYS = knownKeys<KeyinInput>({
  ...KEYIN_CHARGER_KEY_LIST,
  onApproved: true,
  hookTimeoutMs: true,
});
