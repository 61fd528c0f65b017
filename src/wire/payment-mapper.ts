import type { CashReceiptType, Payment, PaymentCommon, PayMethod } from '../types/payment.js';
import { parseAmount } from './amount.js';
import { parseKstTimestamp } from './kst.js';

type Raw = Readonly<Record<string, string>>;

const METHODS: readonly PayMethod[] = ['CARD', 'BANK', 'VBANK', 'CELLPHONE'];

/** True when `value` is one of the four methods of interface A. */
export function isPayMethod(value: string): value is PayMethod {
  return (METHODS as readonly string[]).includes(value);
}

const str = (raw: Raw, key: string): string => (Object.hasOwn(raw, key) ? raw[key]! : '');
const num = (raw: Raw, key: string): number => parseAmount(str(raw, key)) ?? 0;

/**
 * The gateway fields as `payment.raw`: a frozen plain object. parseGatewayBody's JSON record
 * already is one and is used as it is; any other record (a KV answer's, a stored copy) is
 * copied key by key like `{ ...raw }`, `__proto__` kept as an own key.
 */
export function frozenFields(raw: Raw): Raw {
  if (Object.getPrototypeOf(raw) === Object.prototype && Object.isFrozen(raw)) return raw;
  const out: Record<string, string> = {};
  for (const key of Object.keys(raw)) {
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: raw[key], enumerable: true, writable: true, configurable: true });
    else out[key] = raw[key]!;
  }
  return Object.freeze(out);
}

/**
 * The fields every method shares, with `method` last: each method's own branch is then added
 * to this object (one more property) rather than the whole object being spread into a new one.
 */
function common<M extends PayMethod>(raw: Raw, amount: number, method: M): PaymentCommon & { method: M } {
  return {
    tid: str(raw, 'TID'),
    mid: str(raw, 'MID'),
    moid: str(raw, 'Moid'),
    amount,
    resultCode: str(raw, 'ResultCode'),
    resultMessage: str(raw, 'ResultMsg'),
    authCode: str(raw, 'AuthCode'),
    approvedAt: parseKstTimestamp(str(raw, 'AuthDate')),
    goodsName: str(raw, 'GoodsName'),
    buyerName: str(raw, 'BuyerName'),
    buyerEmail: str(raw, 'BuyerEmail'),
    buyerTel: str(raw, 'BuyerTel'),
    mallReserved: str(raw, 'MallReserved'),
    raw: frozenFields(raw),
    method,
  };
}

function receiptType(code: string): CashReceiptType {
  return code === '1' ? 'income-deduction' : code === '2' ? 'expense-proof' : 'none';
}

/**
 * Maps a gateway response (already decoded and parsed) to a typed payment of `method`.
 * `amount` is the already-validated Amt. Pure: no checks beyond shaping.
 */
export function mapPayment(raw: Raw, method: PayMethod, amount: number): Payment {
  switch (method) {
    case 'CARD': {
      const cl = str(raw, 'CardCl');
      const type = str(raw, 'CardType');
      return Object.assign(common(raw, amount, method), {
        card: {
          code: str(raw, 'CardCode'),
          name: str(raw, 'CardName'),
          maskedNumber: str(raw, 'CardNo'),
          installmentMonths: num(raw, 'CardQuota'),
          interestFree: str(raw, 'CardInterest') === '1',
          acquirerCode: str(raw, 'AcquCardCode'),
          acquirerName: str(raw, 'AcquCardName'),
          kind: cl === '0' ? 'credit' : cl === '1' ? 'debit' : 'unknown',
          partialCancelAllowed: str(raw, 'CcPartCl') === '1',
          cardType: type === '01' ? 'personal' : type === '02' ? 'corporate' : type === '03' ? 'overseas' : 'unknown',
          pointAmount: num(raw, 'PointAppAmt'),
          couponAmount: num(raw, 'CouponAmt'),
        } as const,
      });
    }
    case 'BANK':
      return Object.assign(common(raw, amount, method), {
        bank: { code: str(raw, 'BankCode'), name: str(raw, 'BankName') },
        cashReceipt: {
          type: receiptType(str(raw, 'RcptType')),
          tid: str(raw, 'RcptTID'),
          authCode: str(raw, 'RcptAuthCode'),
        },
      });
    case 'VBANK':
      return Object.assign(common(raw, amount, method), {
        virtualAccount: {
          bankCode: str(raw, 'VbankBankCode'),
          bankName: str(raw, 'VbankBankName'),
          accountNumber: str(raw, 'VbankNum'),
          expiresAt: parseKstTimestamp(str(raw, 'VbankExpDate') + (str(raw, 'VbankExpTime') || '235959')),
        },
      });
    case 'CELLPHONE':
      return common(raw, amount, method);
    default: {
      const never: never = method;
      throw new Error(`unmapped method ${String(never)}`);
    }
  }
}
