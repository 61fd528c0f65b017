import { NicepayRequestError } from '../errors/index.js';
import type { CheckoutResult, DeclinedCheckout } from '../types/checkout.js';
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
      return declinedResult(s, duplicate);
    case 'failed':
      throw outcomeError(s, s.tid, s.moid);
  }
}

/**
 * A decline names the order the gateway answered for. The return's Moid is not signed (its
 * Signature covers AuthToken + MID + Amt only), so a buyer holding a genuine authentication of
 * their own can post it with another buyer's Moid and a made-up TxTid: the gateway declines
 * the unknown TID, and a result built from the form would say that the other buyer's order was
 * declined. The gateway's answer carries the Moid of the transaction its TID belongs to; when
 * that is missing or is not the form's, the result is about nobody's order and is refused.
 * Nothing was charged either way (docs/security.md, "A decline names the gateway's order").
 */
function declinedResult(s: CheckoutRecord & { kind: 'declined' }, duplicate: boolean): DeclinedCheckout {
  const answered = ownField(s.raw, 'Moid');
  if (answered === undefined || answered === '' || answered !== s.moid) {
    throw new NicepayRequestError(
      'NICEPAY_DECLINE_ORDER_MISMATCH',
      `the gateway declined TID ${s.tid} for ${answered ? 'another order' : 'no order'}, not for the return's Moid: the return is forged or mismatched; nothing was charged and no order's result is reported`,
      'Moid',
    );
  }
  return {
    moid: s.moid, tid: s.tid, amount: s.amount, duplicate, status: 'declined',
    code: ownField(s.raw, 'ResultCode') ?? '', message: ownField(s.raw, 'ResultMsg') ?? '', raw: frozenFields(s.raw),
  };
}
