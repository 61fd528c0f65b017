import { randomInt } from 'node:crypto';
import { parseAmount } from '../../wire/amount.js';
import { BILLING_CHARGE_FIELDS } from '../../wire/billing-fields.js';
import { approvedMoidHolder } from '../approval/rules.js';
import { billingChargeSignData } from '../../wire/billing-signatures.js';
import type { FormFields } from '../../wire/form-codec.js';
import { hexEquals } from '../../wire/hash.js';
import { kstTimestamp12 } from '../../wire/kst.js';
import { checkGatewayTime } from '../gateway-time.js';
import { SANDBOX_TEST_CARDS } from '../keyin/cards.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { BILLING_CODES, type BillingCode } from './codes.js';
import { field, readForm } from '../form-fields.js';
import { cardAnswerFields, cardFields, expiredAt } from '../keyin/card-answer.js';
import { checkCommon } from './common.js';
import { replyWithFault } from '../keyin/fault-reply.js';
import { billingState } from './state.js';

/**
 * POST /webapi/billing/billing_approve.jsp (billing-facts §1b). Checks the merchant, the table,
 * EdiDate, the TID (MID + 01 + 16 + KST time within the tolerance + 4 characters),
 * SignData = sha256(MID + EdiDate + Moid + Amt + BID + key), a TID seen before (refused as a
 * duplicate approval TID, the registration's TIDs included), a Moid an approved charge holds
 * (1681; a declined or net-cancelled charge's Moid may be charged again), then the BID: unknown, another
 * merchant's, removed or past its card's expiry is refused (F112). The limit-exceeded test
 * card declines with F104 (the BID stays valid); other cards approve with 3001. Charges are
 * booked in the ledger like key-in's (source 'keyin', `extra.service` 'billing': a card
 * transaction without an AuthToken), so the net cancel, the plain cancel and the data host
 * treat them as the gateway does. The answer carries no BID. Faults: target 'billing-charge'.
 */
export function billingCharge(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const form = readForm(req);
  return replyWithFault(state, 'billing-charge', form, {
    process: () => charge(form, state),
    notCommitted: (code, message) =>
      answer(form ?? {}, {
        code: code ?? BILLING_CODES.limitExceeded.code,
        message: message ?? BILLING_CODES.limitExceeded.message,
      }),
  });
}

function charge(form: FormFields | undefined, state: SandboxState): Record<string, string> {
  const checked = checkCommon(form, BILLING_CHARGE_FIELDS, state);
  if ('refusal' in checked) return answer(form ?? {}, checked.refusal);
  const f = form!;
  const { merchant, now } = checked;
  const mid = merchant.mid;
  const tid = field(f, 'TID');
  if (
    !tid.startsWith(`${mid}0116`) ||
    checkGatewayTime(tid.slice(14, 26), now) ||
    !/^[0-9A-Za-z]{4}$/.test(tid.slice(26))
  )
    return answer(f, BILLING_CODES.badTid);
  const amt = field(f, 'Amt');
  const amount = parseAmount(amt);
  if (!amount)
    return answer(f, { code: BILLING_CODES.badField.code, message: `${BILLING_CODES.badField.message} (Amt)` });
  const bid = field(f, 'BID');
  if (
    !hexEquals(
      billingChargeSignData(mid, field(f, 'EdiDate'), field(f, 'Moid'), amt, bid, merchant.merchantKey),
      field(f, 'SignData'),
    )
  ) {
    return answer(f, BILLING_CODES.badSignature);
  }
  const books = billingState(state);
  const calls = books.chargeTids.get(tid);
  const usedByRegistration = [...books.keys.values()].some((k) => k.tid === tid);
  if (calls !== undefined || usedByRegistration) {
    books.chargeTids.set(tid, (calls ?? 0) + 1);
    const entry = state.ledger.get(tid);
    if (entry) entry.approvalCalls += 1;
    return answer(f, BILLING_CODES.duplicateTid);
  }
  books.chargeTids.set(tid, 1);
  // billing-facts §1b: the Moid is "unique per charge". One an approved transaction of the
  // merchant holds (by any service, cancelled later or not) is refused; a declined or
  // net-cancelled one leaves it free, as at approval.
  const moid = field(f, 'Moid');
  if (approvedMoidHolder(state, mid, moid, tid)) return answer(f, BILLING_CODES.duplicateMoid);
  const key = books.keys.get(bid);
  if (!key || key.mid !== mid || key.removedAt || expiredAt(key.expYear, key.expMonth, now))
    return answer(f, BILLING_CODES.bidUnusable);
  const card = SANDBOX_TEST_CARDS[key.cardNo]!;
  const approved = card.outcome === 'approved';
  state.ledger.add({
    tid,
    mid,
    moid,
    amount,
    method: 'CARD',
    status: approved ? 'approved' : 'declined',
    source: 'keyin',
    goodsName: field(f, 'GoodsName'),
    buyerName: field(f, 'BuyerName'),
    createdAt: now,
    ...(approved ? { approvedAt: now } : {}),
    approvalCalls: 1,
    extra: {
      service: 'billing',
      cardCode: card.cardCode,
      quota: field(f, 'CardQuota'),
      mallReserved: field(f, 'MallReserved'),
    },
  });
  const masked = cardFields(card, key.cardNo);
  if (!approved) return answer(f, BILLING_CODES.limitExceeded, masked);
  return answer(f, BILLING_CODES.approved, {
    ...masked,
    AuthCode: String(randomInt(0, 100_000_000)).padStart(8, '0'),
    AuthDate: kstTimestamp12(now),
    CcPartCl: '1',
  });
}

/** The charge answer: the key-in card answer's fields; it carries no BID. */
function answer(form: FormFields, result: BillingCode, extra: Record<string, string> = {}): Record<string, string> {
  return cardAnswerFields(form, result, extra);
}
