import { amount, list, pick, text, type JsonObject } from '../data-api/lenient.js';
import { SID } from '../data-api/envelope.js';
import type {
  CashReceiptItem,
  CashReceiptList,
  CashReceiptPurpose,
  CashReceiptState,
  CashReceiptStatus,
} from './types.js';

const STATE: Readonly<Record<string, CashReceiptState>> = { '0': 'approval', '1': 'cancel' };
const STATUS: Readonly<Record<string, CashReceiptStatus>> = {
  '0': 'success',
  '1': 'requested',
  '2': 'request-cancelled',
  '3': 'request-completed',
  '4': 'issued',
  '9': 'request-failed',
  '10': 'issue-failed',
};
const PURPOSE: Readonly<Record<string, CashReceiptPurpose>> = { '1': 'income-deduction', '2': 'expense-proof' };

/** A code without zero padding ("00" and 0 both mean "0"). */
function code(value: string): string {
  const t = value.trim();
  return /^\d+$/.test(t) ? String(Number(t)) : t;
}

/** One data item of 0301002. */
export function mapCashReceipt(item: JsonObject): CashReceiptItem {
  const stateCd = text(item, 'stateCd');
  const statusCd = text(item, 'status');
  const reqFlg = text(item, 'reqFlg');
  return {
    appDt: text(item, 'appDt'),
    appTm: text(item, 'appTm'),
    ccDt: text(item, 'ccDt'),
    ccTm: text(item, 'ccTm'),
    mid: text(item, 'mid'),
    serviceId: text(item, 'serviceId'),
    tid: text(item, 'tid'),
    orgTid: text(item, 'orgTid', 'otid'),
    orgSvcCd: text(item, 'orgSvcCd'),
    goodsNm: text(item, 'goodsNm'),
    goodsAmt: amount(item, SID.cashReceipts, 'goodsAmt'),
    state: STATE[code(stateCd)] ?? 'unknown',
    stateCd,
    appNo: text(item, 'appNo'),
    ccNo: text(item, 'ccNo'),
    ordNm: text(item, 'ordNm'),
    identity: text(item, 'Identity', 'identity'),
    status: STATUS[code(statusCd)] ?? 'unknown',
    statusCd,
    purpose: PURPOSE[code(reqFlg)] ?? 'unknown',
    reqFlg,
    coNm: text(item, 'coNm'),
    coNo: text(item, 'coNo'),
    moid: text(item, 'moid'),
    raw: item,
  };
}

/** 0301002 body. */
export function mapCashReceipts(body: JsonObject): CashReceiptList {
  const items = list(body, 'data').map(mapCashReceipt);
  return {
    reqDt: text(body, 'reqDt'),
    authCl: text(body, 'authCl'),
    count: pick(body, 'dataCnt') === undefined ? items.length : amount(body, SID.cashReceipts, 'dataCnt'),
    items,
    raw: body,
  };
}
