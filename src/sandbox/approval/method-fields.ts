import { SUCCESS_CODES } from '../../types/payment.js';
import { kstDate8 } from '../../wire/kst.js';
import type { LedgerEntry } from '../ledger.js';
import { cashReceiptIds, randomDigits } from './util.js';
import type { SandboxState } from '../types.js';

const ZERO12 = '000000000000';
const DAY_MS = 24 * 60 * 60 * 1000;

/** Success message per method. */
const MESSAGES: Readonly<Record<LedgerEntry['method'], string>> = {
  CARD: '카드 결제 성공',
  BANK: '계좌이체 결제 성공',
  VBANK: '가상계좌 발급 성공',
  CELLPHONE: '휴대폰 결제 성공',
};

/** RcptType code of a cash-receipt choice: 0 none, 1 income deduction, 2 expense proof. */
function rcptType(entry: LedgerEntry): string {
  return entry.cashReceipt ? (entry.cashReceipt.type === 'income-deduction' ? '1' : '2') : '0';
}

/**
 * The success ResultCode/ResultMsg and the method block of an approval response (Resources
 * tables: card block with the extra card fields, bank block with RcptType, virtual-account
 * block with an account that expires at the window's VbankExpDate, else in 7 days KST, nothing extra for cellphone). Values it
 * invents (approval number, account number, cash-receipt TID) are kept in `entry.extra`.
 */
export function methodFields(state: SandboxState, entry: LedgerEntry): Record<string, string> {
  const head = { ResultCode: SUCCESS_CODES[entry.method], ResultMsg: MESSAGES[entry.method] };
  const x = entry.extra;
  switch (entry.method) {
    case 'CARD':
      return {
        ...head,
        CardCode: '02',
        CardName: '국민',
        CardNo: '53644900****0012',
        CardQuota: '00',
        CardInterest: '0',
        AcquCardCode: '02',
        AcquCardName: '국민',
        CardCl: '0',
        CcPartCl: '1',
        CardType: '01',
        ClickpayCl: '',
        CouponAmt: ZERO12,
        CouponMinAmt: ZERO12,
        PointAppAmt: ZERO12,
        MultiCl: '0',
        MultiCardAcquAmt: '',
        MultiPointAmt: '',
        MultiCouponAmt: '',
        MultiRcptAmt: '',
        RcptType: '0',
        RcptTID: '',
        RcptAuthCode: '',
        MsgSource: 'PG',
        CartData: '',
        MultiDiscountAmt: ZERO12,
        ApproveCardQuota: '00',
        PointCl: '0',
      };
    case 'BANK': {
      if (entry.cashReceipt) cashReceiptIds(state, entry);
      return {
        ...head,
        BankCode: '004',
        BankName: '국민은행',
        RcptType: rcptType(entry),
        RcptTID: x.rcptTid ?? '',
        RcptAuthCode: x.rcptAuthCode ?? '',
      };
    }
    case 'VBANK': {
      if (!x.vbankNum) {
        x.vbankNum = `9${randomDigits(13)}`;
        // The merchant's VbankExpDate when the window had one; otherwise the sandbox's own 7 days.
        if (!x.vbankExpDate) {
          x.vbankExpDate = kstDate8(new Date(state.clock.now().getTime() + 7 * DAY_MS));
          x.vbankExpTime = '235959';
        }
      }
      return {
        ...head,
        VbankBankCode: '020',
        VbankBankName: '우리은행',
        VbankNum: x.vbankNum,
        VbankExpDate: x.vbankExpDate ?? '',
        VbankExpTime: x.vbankExpTime ?? '',
      };
    }
    case 'CELLPHONE':
      return { ...head };
    default: {
      const never: never = entry.method;
      throw new Error(`sandbox: unknown method ${String(never)}`);
    }
  }
}
