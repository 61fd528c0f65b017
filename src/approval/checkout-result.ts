import type { CheckoutResult } from '../types/checkout.js';
import { frozenFields, mapPayment } from '../wire/payment-mapper.js';
import { ownField } from '../wire/response-body.js';
import { outcomeError } from './approve.js';
import type { CheckoutRecord } from './checkout-record.js';

/**
 * The shop's view of a record: the typed result of a committed or declined approval, or the
 * NicepayError of a failed one (thrown, for the first request and every duplicate alike).
 */
export function toCheckoutResult(s: CheckoutRecord, duplicate: boolean): CheckoutResult {
  const { moid, tid, amount } = s;
  switch (s.kind) {
    case 'committed': {
      const payment = mapPayment(s.raw, s.method, amount);
      const recovered = s.recovered ? { recovered: true as const } : {};
      return payment.method === 'VBANK'
        ? { moid, tid, amount, duplicate, status: 'awaiting-deposit', payment, ...recovered }
        : { moid, tid, amount, duplicate, status: 'approved', payment, ...recovered };
    }
    case 'declined':
      return { moid, tid, amount, duplicate, status: 'declined', code: ownField(s.raw, 'ResultCode') ?? '', message: ownField(s.raw, 'ResultMsg') ?? '', raw: frozenFields(s.raw) };
    case 'failed':
      throw outcomeError(s, s.tid, s.moid);
  }
}
