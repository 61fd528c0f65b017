import type { PayMethod } from '../../types/payment.js';
import type { Charset } from '../../wire/charset.js';
import { encodeForm } from '../../wire/form-codec.js';
import { authReturnSignature } from '../../wire/signatures.js';
import type { LedgerEntry } from '../ledger.js';
import type { SandboxState } from '../types.js';
import { moduleState, type WindowSession } from './session.js';
import { METHODS, isMethod, newAuthToken, newTid, randomAlnum } from './util.js';

/** A cash receipt the buyer asks for in the window (bank transfer and virtual account only). */
export interface CashReceiptChoice {
  type: 'income-deduction' | 'expense-proof';
  /** Phone, resident or business number the receipt is issued to. */
  identity: string;
}

/** What the buyer did in the window. */
export interface BuyerChoice {
  method: PayMethod;
  cashReceipt?: CashReceiptChoice;
  /** The buyer pressed 취소 instead of 결제하기. */
  cancel?: boolean;
  /** The buyer chose 거절: authentication succeeds, the approval is refused (3011). */
  decline?: boolean;
}

/** The authentication return the window posts to the merchant's ReturnURL, before encoding. */
export interface AuthCompletion {
  fields: Record<string, string>;
  charset: Charset;
  returnUrl: string;
}

/** AuthResultCode of a window the buyer closed with 취소. */
export const AUTH_CANCELLED_CODE = '9999';
/** AuthResultMsg of a window the buyer closed with 취소. */
export const AUTH_CANCELLED_MSG = '사용자가 결제를 취소하였습니다';

/**
 * Finishes a window session the way the buyer chose: on 결제하기, books an 'authenticated'
 * ledger entry with a new TxTid and a single-use AuthToken and returns the signed auth-return
 * fields; on 취소, returns a non-0000 AuthResultCode and books nothing.
 */
export function completeAuthentication(state: SandboxState, s: WindowSession, choice: BuyerChoice): AuthCompletion {
  const base = { returnUrl: s.returnUrl, charset: s.charset };
  if (choice.cancel) {
    return {
      ...base,
      fields: {
        AuthResultCode: AUTH_CANCELLED_CODE,
        AuthResultMsg: AUTH_CANCELLED_MSG,
        PayMethod: choice.method,
        MID: s.mid,
        Moid: s.moid,
        Amt: s.amt,
        ReqReserved: s.reqReserved,
      },
    };
  }
  const merchant = state.merchants.get(s.mid);
  if (!merchant) throw new Error(`sandbox: merchant ${s.mid} is gone`);
  const now = state.clock.now();
  const tid = newTid(state, s.mid, METHODS[choice.method].code);
  const authToken = newAuthToken();
  const receipt = choice.method === 'BANK' || choice.method === 'VBANK' ? choice.cashReceipt : undefined;
  const entry: LedgerEntry = {
    tid,
    mid: s.mid,
    moid: s.moid,
    amount: s.amount,
    method: choice.method,
    status: 'authenticated',
    source: 'window',
    goodsName: s.goodsName,
    buyerName: s.buyerName,
    createdAt: now,
    approvalCalls: 0,
    ...(receipt ? { cashReceipt: { type: receipt.type, identity: receipt.identity } } : {}),
    extra: {
      ...(s.vbankExpiry ? { vbankExpDate: s.vbankExpiry.date, vbankExpTime: s.vbankExpiry.time } : {}),
      authToken,
      tokenUsed: '0',
      charset: s.charset,
      buyerEmail: s.buyerEmail,
      buyerTel: s.buyerTel,
      mallReserved: s.mallReserved,
      reqReserved: s.reqReserved,
      returnUrl: s.returnUrl,
      ...(choice.decline ? { buyerOutcome: 'decline' } : {}),
    },
  };
  state.ledger.add(entry);
  const root = state.url();
  return {
    ...base,
    fields: {
      AuthResultCode: '0000',
      AuthResultMsg: '인증 성공',
      AuthToken: authToken,
      PayMethod: choice.method,
      MID: s.mid,
      Moid: s.moid,
      Amt: s.amt,
      ReqReserved: s.reqReserved,
      TxTid: tid,
      NextAppURL: `${root}/webapi/pay_process.jsp`,
      NetCancelURL: `${root}/webapi/cancel_process.jsp`,
      Signature: authReturnSignature(authToken, s.mid, s.amt, merchant.merchantKey),
    },
  };
}

/** Options of `sandbox.authenticate()`: the window's fields and the buyer's choice in one. */
export interface AuthenticateOptions {
  /** @default the first merchant of the sandbox */
  mid?: string;
  moid: string;
  /** Whole won, > 0. */
  amount: number;
  method: PayMethod;
  /** @default 'sandbox goods' */
  goodsName?: string;
  /** @default '' */
  buyerName?: string;
  /** Charset of the auth return (the window's CharSet). @default 'euc-kr' */
  charset?: Charset;
  /** Only for BANK and VBANK. */
  cashReceipt?: CashReceiptChoice;
  /** The buyer presses 취소: AuthResultCode is not 0000 and nothing is booked. */
  cancel?: boolean;
  /**
   * The buyer picks 거절 (decline): the auth return is a normal 0000 with a token, and the
   * approval of that token is refused with 3011 as an issuer would refuse it.
   */
  decline?: boolean;
  mallReserved?: string;
  reqReserved?: string;
}

/** The auth return as the buyer's browser would POST it to the merchant's ReturnURL. */
export interface AuthReturn {
  /** The decoded fields. */
  fields: Record<string, string>;
  /** The form-urlencoded body, in the return's charset. */
  body: Buffer;
  /**
   * 'application/x-www-form-urlencoded' with no charset parameter, as a browser posts a form
   * (lifecycle-facts 1): the return route must know the charset from its own configuration.
   */
  contentType: string;
}

/** Encodes an auth return as the browser's form POST. */
export function toAuthReturn(c: AuthCompletion): AuthReturn {
  return {
    fields: c.fields,
    body: encodeForm(c.fields, c.charset),
    contentType: 'application/x-www-form-urlencoded',
  };
}

/**
 * Authenticates without a browser (`sandbox.authenticate`): the same ledger entry, token and
 * signed fields as the window's 결제하기 / 취소, returned instead of auto-posted.
 */
export async function authenticate(state: SandboxState, opts: AuthenticateOptions): Promise<AuthReturn> {
  const mid = opts.mid ?? state.merchants.keys().next().value;
  if (mid === undefined || !state.merchants.has(mid))
    throw new Error(`sandbox.authenticate: unknown MID ${String(mid)}`);
  if (!Number.isSafeInteger(opts.amount) || opts.amount <= 0 || opts.amount > 999_999_999_999) {
    throw new RangeError('sandbox.authenticate: amount must be a whole number of won > 0');
  }
  if (!isMethod(opts.method)) throw new TypeError(`sandbox.authenticate: unknown method ${String(opts.method)}`);
  if (!opts.moid) throw new TypeError('sandbox.authenticate: moid is required');
  if (opts.cashReceipt && opts.method !== 'BANK' && opts.method !== 'VBANK') {
    throw new TypeError('sandbox.authenticate: cashReceipt is only for BANK and VBANK');
  }
  moduleState(state);
  const session: WindowSession = {
    id: randomAlnum(24),
    mid,
    amt: String(opts.amount),
    amount: opts.amount,
    moid: opts.moid,
    goodsName: opts.goodsName ?? 'sandbox goods',
    buyerName: opts.buyerName ?? '',
    buyerEmail: '',
    buyerTel: '',
    returnUrl: 'http://merchant.invalid/return',
    charset: opts.charset ?? 'euc-kr',
    offered: [opts.method],
    requestKey: `authenticate\u0000${randomAlnum(24)}`,
    reqReserved: opts.reqReserved ?? '',
    mallReserved: opts.mallReserved ?? '',
  };
  if (opts.cancel && opts.decline)
    throw new TypeError('sandbox.authenticate: cancel and decline are two different buyer choices; pick one');
  const choice: BuyerChoice = {
    method: opts.method,
    ...(opts.cashReceipt ? { cashReceipt: opts.cashReceipt } : {}),
    ...(opts.cancel ? { cancel: true } : {}),
    ...(opts.decline ? { decline: true } : {}),
  };
  return toAuthReturn(completeAuthentication(state, session, choice));
}
