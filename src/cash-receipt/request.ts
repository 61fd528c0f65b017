import { encodeChecked } from '../billing/request.js';
import { RECEIPT_REQUEST_FIELDS, receiptSignData } from '../wire/receipt-fields.js';
import type { NormalizedReceipt } from './validate.js';

/** The receipt form (billing-facts §2): SignData over MID + ReceiptAmt + EdiDate + Moid. */
export function buildReceiptForm(n: NormalizedReceipt, mid: string, key: string, tid: string, ediDate: string): Buffer {
  const amt = String(n.amount);
  return encodeChecked(
    RECEIPT_REQUEST_FIELDS,
    {
      MID: mid,
      TID: tid,
      EdiDate: ediDate,
      Moid: n.moid,
      SignData: receiptSignData(mid, amt, ediDate, n.moid, key),
      GoodsName: n.goodsName,
      ReceiptAmt: amt,
      ReceiptType: n.receiptType,
      ReceiptTypeNo: n.identity,
      ReceiptSupplyAmt: String(n.supply),
      ReceiptVAT: String(n.vat),
      ReceiptServiceAmt: String(n.service),
      ReceiptTaxFreeAmt: String(n.taxFree),
      BuyerName: n.buyerName,
      BuyerEmail: n.buyerEmail,
      BuyerTel: n.buyerTel,
      CharSet: n.charset,
      EdiType: n.ediType,
    },
    'cash receipt',
  );
}
