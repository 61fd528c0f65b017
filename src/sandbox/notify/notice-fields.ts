import { kstDate8, kstTimestamp12 } from '../../wire/kst.js';
import type { LedgerEntry } from '../ledger.js';
import type { SandboxMerchant } from '../types.js';

/** The bank the sandbox's virtual accounts are at (method-fields.ts issues them at 우리은행). */
const VBANK_BANK = { code: '020', name: '우리은행' };

/**
 * The fields of a deposit notice (lifecycle-facts §3): ResultCode 4110, PayMethod VBANK,
 * upper-case `MOID`, lower-case `name`, Amt as plain digits, AuthDate yyMMddHHmmss KST. It also
 * carries the undocumented `MerchantKey` field some captures show, so a client that logs or keeps
 * a notice verbatim is caught by the tests.
 */
export function depositNoticeFields(
  entry: LedgerEntry,
  merchant: Required<SandboxMerchant>,
  amount: number,
  depositor: string,
  at: Date,
): Record<string, string> {
  const x = entry.extra;
  return {
    PayMethod: 'VBANK',
    ResultCode: '4110',
    ResultMsg: '가상계좌 입금 통보',
    TID: entry.tid,
    MID: entry.mid,
    MOID: entry.moid,
    Amt: String(amount),
    AuthDate: kstTimestamp12(at),
    AuthCode: '',
    VbankNum: x.vbankNum ?? '',
    VbankName: VBANK_BANK.name,
    VbankInputName: depositor,
    FnCd: VBANK_BANK.code,
    FnName: VBANK_BANK.name,
    StateCd: '0',
    TransType: '0',
    name: entry.buyerName,
    BuyerEmail: x.buyerEmail ?? '',
    GoodsName: entry.goodsName,
    MallUserID: '',
    RcptTID: x.rcptTid ?? '',
    RcptType: entry.cashReceipt ? (entry.cashReceipt.type === 'income-deduction' ? '1' : '2') : '0',
    RcptAuthCode: x.rcptAuthCode ?? '',
    MallReserved: x.mallReserved ?? '',
    MerchantKey: merchant.merchantKey,
  };
}

/**
 * A cancel notice: ResultCode 2001, StateCd 1 when cancelled on the KST day of the approval
 * (before capture), 2 after; Amt the cancelled amount; CancelDate YYYYMMDD; CancelMOID the Moid
 * the cancel request carried, for card cancels only (lifecycle-facts §3): two same-amount
 * partial cancels of a bank transfer on one day are two notices with the same fields.
 */
export function cancelNoticeFields(
  entry: LedgerEntry,
  merchant: Required<SandboxMerchant>,
  amount: number,
  at: Date,
  cancelMoid: string,
): Record<string, string> {
  const sameDay = entry.approvedAt !== undefined && kstDate8(entry.approvedAt) === kstDate8(at);
  return {
    PayMethod: entry.method,
    ResultCode: '2001',
    ResultMsg: '취소 성공',
    TID: entry.tid,
    MID: entry.mid,
    MOID: entry.moid,
    Amt: String(amount),
    AuthDate: entry.approvedAt ? kstTimestamp12(entry.approvedAt) : '',
    AuthCode: entry.extra.authCode ?? '',
    StateCd: sameDay ? '1' : '2',
    CancelDate: kstDate8(at),
    ...(entry.method === 'CARD' ? { CancelMOID: cancelMoid } : {}),
    TransType: '0',
    name: entry.buyerName,
    GoodsName: entry.goodsName,
    MallReserved: entry.extra.mallReserved ?? '',
    MerchantKey: merchant.merchantKey,
  };
}
