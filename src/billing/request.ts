import { encryptEncData } from '../wire/enc-data.js';
import { checkFields, type FieldTable } from '../wire/field-sizes.js';
import { encodeForm } from '../wire/form-codec.js';
import {
  BILLING_CHARGE_FIELDS,
  BILLING_REGISTER_FIELDS,
  BILLING_REMOVE_FIELDS,
  billingEncPlaintext,
} from '../wire/billing-fields.js';
import { billingChargeSignData, billingRegisterSignData, billingRemoveSignData } from '../wire/billing-signatures.js';
import { fieldInvalid } from '../validation/input-text.js';
import type { NormalizedCharge, NormalizedRegister, NormalizedRemove } from './validate.js';

/** Which input path each form field comes from, so errors name what the caller passed. */
const INPUT_NAMES: Readonly<Record<string, string>> = {
  Moid: 'moid',
  Amt: 'amount',
  GoodsName: 'goodsName',
  CardQuota: 'quota',
  CardInterest: 'interestFree',
  CardPoint: 'cardPoint',
  BuyerEmail: 'buyer.email',
  BuyerTel: 'buyer.tel',
  BuyerName: 'buyer.name',
  MallReserved: 'mallReserved',
  BID: 'bid',
  CharSet: 'charset',
  EdiType: 'ediType',
  ReceiptAmt: 'amount',
  ReceiptTypeNo: 'identity',
  ReceiptSupplyAmt: 'supply',
  ReceiptVAT: 'vat',
  ReceiptServiceAmt: 'service',
  ReceiptTaxFreeAmt: 'taxFree',
};

/** Checks a form against its table and encodes it in EUC-KR. */
export function encodeChecked(table: FieldTable, fields: Record<string, string | undefined>, what: string): Buffer {
  const problem = checkFields(table, fields, 'euc-kr');
  if (problem) {
    const name = INPUT_NAMES[problem.field];
    // A field the caller does not supply (TID, EncData ...) breaking a rule is our bug, not bad input.
    if (!name) throw new Error(`${what} form field ${problem.field} broke rule ${problem.rule}`);
    throw fieldInvalid(name, `breaks the gateway's ${problem.field} rule: ${problem.message}`);
  }
  return encodeForm(fields, 'euc-kr');
}

/** The registration form (billing-facts §1a): EncData with the billing names, SignData over MID + EdiDate + Moid. */
export function buildRegisterForm(n: NormalizedRegister, mid: string, key: string, ediDate: string): Buffer {
  const encData = encryptEncData(
    billingEncPlaintext({
      number: n.cardNumber,
      expYear: n.expYear,
      expMonth: n.expMonth,
      idNo: n.idNo,
      password2: n.password2,
    }),
    key,
  );
  return encodeChecked(
    BILLING_REGISTER_FIELDS,
    {
      MID: mid,
      EdiDate: ediDate,
      Moid: n.moid,
      EncData: encData,
      SignData: billingRegisterSignData(mid, ediDate, n.moid, key),
      BuyerEmail: n.buyerEmail,
      BuyerTel: n.buyerTel,
      BuyerName: n.buyerName,
      CharSet: n.charset,
      EdiType: n.ediType,
    },
    'billing registration',
  );
}

/** The charge form (billing-facts §1b): a new TID, SignData over MID + EdiDate + Moid + Amt + BID. */
export function buildChargeForm(n: NormalizedCharge, mid: string, key: string, tid: string, ediDate: string): Buffer {
  const amt = String(n.amount);
  return encodeChecked(
    BILLING_CHARGE_FIELDS,
    {
      BID: n.bid,
      MID: mid,
      TID: tid,
      EdiDate: ediDate,
      Moid: n.moid,
      Amt: amt,
      GoodsName: n.goodsName,
      SignData: billingChargeSignData(mid, ediDate, n.moid, amt, n.bid, key),
      CardInterest: n.interest,
      CardQuota: n.quota,
      CardPoint: n.cardPoint,
      BuyerEmail: n.buyerEmail,
      BuyerTel: n.buyerTel,
      BuyerName: n.buyerName,
      MallReserved: n.mallReserved,
      CharSet: n.charset,
      EdiType: n.ediType,
    },
    'billing charge',
  );
}

/** The removal form (billing-facts §1c): SignData over MID + EdiDate + Moid + BID (no Amt). */
export function buildRemoveForm(n: NormalizedRemove, mid: string, key: string, ediDate: string): Buffer {
  return encodeChecked(
    BILLING_REMOVE_FIELDS,
    {
      BID: n.bid,
      MID: mid,
      EdiDate: ediDate,
      Moid: n.moid,
      SignData: billingRemoveSignData(mid, ediDate, n.moid, n.bid, key),
      CharSet: n.charset,
      EdiType: n.ediType,
    },
    'billing removal',
  );
}
