import type { ResolvedConfig } from '../config.js';
import { NicepayRequestError } from '../errors/index.js';
import { isValidAmount } from '../wire/amount.js';
import { encodeText, WireFormatError } from '../wire/charset.js';
import { checkFields } from '../wire/field-sizes.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { WINDOW_FIELDS } from '../wire/lifecycle-fields.js';
import { windowSignData } from '../wire/signatures.js';
import { refuseKvUnsafe } from '../pipeline/kv-text.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import {
  PAYMENT_WINDOW_ORDER_KEYS,
  type PaymentWindowFields,
  type PaymentWindowOrder,
  WINDOW_BUYER_KEYS,
} from './types.js';

/** Window fields the approval answer echoes, by the option that sets each. */
const KV_ECHOED = {
  GoodsName: 'goodsName',
  BuyerName: 'buyer.name',
  BuyerEmail: 'buyer.email',
  BuyerTel: 'buyer.tel',
  MallReserved: 'mallReserved',
} as const;

const bad = (field: string, message: string): NicepayRequestError =>
  new NicepayRequestError('NICEPAY_FIELD_INVALID', `paymentWindow: ${message}`, field);

/**
 * Builds the signed payment-window request of one order (lifecycle-facts.md §1): EdiDate in KST
 * from the configured clock, SignData = hex(sha256(EdiDate + MID + Amt + MerchantKey)), CharSet
 * from the `charset` option (the same setting checkoutReturn decodes the return by). Every size
 * is checked in bytes of that charset; an error names the field, never its value.
 */
export function paymentWindow(
  config: Pick<ResolvedConfig, 'mid' | 'merchantKey' | 'clock' | 'windowCharset'>,
  order: PaymentWindowOrder,
): PaymentWindowFields {
  if (typeof order !== 'object' || order === null) throw bad('order', 'order must be an object');
  refuseUnknownInput(order, PAYMENT_WINDOW_ORDER_KEYS, 'paymentWindow()');
  if (order.buyer !== undefined && (typeof order.buyer !== 'object' || order.buyer === null))
    throw bad('buyer', 'buyer must be an object { name, email, tel }');
  if (order.buyer !== undefined) refuseUnknownInput(order.buyer, WINDOW_BUYER_KEYS, 'paymentWindow()', 'buyer.');
  if (!isValidAmount(order.amount)) throw bad('Amt', 'amount must be a whole number of won from 1 to 999,999,999,999');
  const returnUrl = absoluteUrl(order.returnUrl);
  const charset = config.windowCharset;
  const ediDate = kstTimestamp14(config.clock());
  const amt = String(order.amount);
  const fields: Record<string, string | undefined> = {
    PayMethod: payMethods(order.payMethod),
    GoodsName: text(order.goodsName, 'GoodsName'),
    Amt: amt,
    MID: config.mid,
    Moid: text(order.moid, 'Moid'),
    BuyerName: optionalText(order.buyer?.name, 'BuyerName'),
    BuyerEmail: optionalText(order.buyer?.email, 'BuyerEmail'),
    BuyerTel: optionalText(order.buyer?.tel, 'BuyerTel')?.replace(/[-\s]/g, ''),
    ReturnURL: returnUrl,
    VbankExpDate: vbankExpDate(order.vbankExpiry),
    EdiDate: ediDate,
    SignData: windowSignData(ediDate, config.mid, amt, config.merchantKey),
    CharSet: charset,
    ReqReserved: optionalText(order.reqReserved, 'ReqReserved'),
    MallReserved: optionalText(order.mallReserved, 'MallReserved'),
  };
  const problem = checkFields(WINDOW_FIELDS, fields, charset);
  if (problem) throw bad(problem.field, problem.message);
  if (order.ediType !== undefined && order.ediType !== 'JSON' && order.ediType !== 'KV')
    throw bad('ediType', "ediType must be 'JSON' or 'KV'");
  refuseKvUnsafe('paymentWindow', order.ediType ?? 'JSON', fields, KV_ECHOED);
  // A character the window's charset cannot carry (an emoji in EUC-KR) would reach the buyer
  // as '?': refuse it here, naming the field.
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    try {
      encodeText(value, charset, name);
    } catch (err) {
      if (err instanceof WireFormatError) throw bad(name, `${name} has characters ${charset} cannot encode`);
      throw err;
    }
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== '') out[name] = value;
  return out as unknown as PaymentWindowFields;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw bad(field, `${field} is required (a non-empty string)`);
  return value.trim();
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw bad(field, `${field} must be a string`);
  return value.trim();
}

function absoluteUrl(value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw bad('ReturnURL', 'returnUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw bad('ReturnURL', 'returnUrl must be an http: or https: URL');
  return url.href;
}

function payMethods(value: PaymentWindowOrder['payMethod']): string | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (!list || list.length === 0) throw bad('PayMethod', 'payMethod must be a method or a non-empty list of methods');
  return list.join(',');
}

/** VbankExpDate: a Date written as YYYYMMDDHHmm in KST, or KST text of 8 or 12 digits. */
function vbankExpDate(value: Date | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw bad('VbankExpDate', 'vbankExpiry is an invalid Date');
    return kstTimestamp14(value).slice(0, 12);
  }
  if (typeof value !== 'string') throw bad('VbankExpDate', 'vbankExpiry must be a Date or YYYYMMDD[HHmm] KST text');
  return value;
}
