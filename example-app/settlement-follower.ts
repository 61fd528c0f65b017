/**
 * The shop's own records follow the library's settlement. The package settles every payment
 * whose outcome was lost (docs/reliability.md, "Settlement") and publishes each record it closes
 * on the `express-nicepay:settle` channel (SETTLE_CHANNEL); createShop subscribes this follower,
 * which applies each settled item to the shop's record it belongs to:
 *
 * - a billing charge (`billing.charge`, by its Moid): kept → the month is paid; reversed or
 *   never charged → not charged, the month may be charged again (a new attempt).
 * - a cancel (`cancel`, by the order's Moid and TID and the amount of its one open refund
 *   intent; the event does not carry the cancel's idempotency key): never charged → not refunded,
 *   the refund may be tried again; kept → the same cancel is repeated with the intent's key, which
 *   the library answers from the closed record without sending, so the intent is settled as the
 *   library's result says (refunded, or accepted with its payout pending).
 * - an approval or key-in (`approval`, `keyin`, by the order's Moid) reversed: the order was
 *   never marked paid, but its number takes no payment any more (the gateway refuses a Moid it
 *   approved once as a duplicate; the ledger answers a key-in's Moid from its closed record), so
 *   the order's page offers a new order instead of paying the same one again.
 * - a cash receipt (`cash-receipt`, by the attempt's own Moid) reversed or never issued: the
 *   attempt issued nothing, so the next one is offered under a Moid of its own.
 *
 * A kept approval or key-in needs nothing here: its route hook (onApproved) is what settlement
 * runs for a payment it keeps. An event that needs attention changes nothing: the pages list those from nicepay.unsettled().
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { SETTLE_CHANNEL, type SettledItem, type SettleEvent } from '../src/index.js';
import { billingDb } from './db-billing.js';
import { type RefundIntent, refundStore } from './db-refunds.js';
import { NOT_REFUNDED_NOTE, payoutOf, sendRefund, settleBySent } from './refund-calls.js';
import { NOT_ISSUED } from './routes/admin-receipts.js';
import type { ShopContext } from './shop-context.js';

/** A running follower. */
export interface SettlementFollower {
  /** Resolves once every event received so far has been applied (a kept refund's repeat is async). */
  idle(): Promise<void>;
  /** Unsubscribes, then waits for the work under way. */
  stop(): Promise<void>;
}

/** The note of a charge as settlement ended it, for the operator. */
const CHARGE_NOTE = {
  kept: '정산: 결제 유지',
  reversed: '정산: 결제 취소됨',
  'never-charged': '정산: 결제되지 않음',
} as const;

/** Subscribes the shop to SETTLE_CHANNEL; `stop()` (the shop's close) unsubscribes. */
export function followSettlement(ctx: ShopContext): SettlementFollower {
  const { nicepay, logger } = ctx;
  const billing = billingDb(ctx.db, ctx.merchantKey);
  const refunds = refundStore(ctx.db);
  let work: Promise<void> = Promise.resolve();

  function charge(item: SettledItem): void {
    const c = billing.charge(item.moid);
    if (!c || (c.status !== 'charging' && c.status !== 'unknown') || c.amount !== item.amount) return;
    const settled = billing.settleCharge(
      c.moid,
      item.outcome === 'kept'
        ? { status: 'approved', tid: item.tid, amount: item.amount, message: CHARGE_NOTE.kept }
        : { status: 'failed', ...(item.tid ? { tid: item.tid } : {}), message: CHARGE_NOTE[item.outcome] },
    );
    logger.info(
      { moid: c.moid, tid: item.tid, outcome: item.outcome, status: settled.status },
      'example shop: billing charge follows settlement',
    );
  }

  async function cancel(item: SettledItem): Promise<void> {
    const i = refunds.open(item.moid);
    // The order's one open intent, if it is this cancel (same TID and amount).
    if (!i || i.tid !== item.tid || i.amount !== item.amount) return;
    let settled: RefundIntent | undefined;
    if (item.outcome !== 'kept') settled = refunds.settle(i.id, 'refused', NOT_REFUNDED_NOTE);
    else {
      // Only the library's result settles a kept refund: anything else leaves the intent open.
      const sent = await sendRefund(nicepay, i);
      if (sent.kind === 'result' && sent.r.status !== 'refused')
        settled = settleBySent(refunds, i, sent, (r) =>
          payoutOf(i, r) === 'pending' ? '정산: NICEPAY 환불 접수' : '정산: 환불됨',
        );
    }
    logger.info(
      { moid: i.moid, tid: i.tid, intent: i.id, outcome: item.outcome, state: settled?.state ?? i.state },
      'example shop: refund follows settlement',
    );
  }

  const onEvent = (message: unknown): void => {
    const event = message as SettleEvent;
    // Every client in the process publishes here: only this shop's merchant's records are its own.
    if (event.needsAttention || !event.outcome || event.mid !== nicepay.mid) return;
    const item: SettledItem = event;
    if (item.operation === 'billing.charge') charge(item);
    else if ((item.operation === 'approval' || item.operation === 'keyin') && item.outcome === 'reversed')
      ctx.db.markMoidSpent(item.moid);
    else if (item.operation === 'cash-receipt' && item.outcome !== 'kept')
      billing.receiptNotIssued(item.moid, NOT_ISSUED);
    else if (item.operation === 'cancel')
      work = work.then(() =>
        cancel(item).catch((err: unknown) =>
          logger.error(
            { moid: item.moid, tid: item.tid, error: (err as Error).message },
            'example shop: a settled refund could not be applied; the order page checks it again',
          ),
        ),
      );
  };
  subscribe(SETTLE_CHANNEL, onEvent);
  return {
    idle: () => work,
    stop: () => {
      unsubscribe(SETTLE_CHANNEL, onEvent);
      return work;
    },
  };
}
