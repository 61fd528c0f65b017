/**
 * `POST /pay/notify`: the gateway's payment notifications (결제데이터통보), on
 * `nicepay.notifications`. Like `/pay/return` it is outside the back-office login: the
 * gateway posts it without any session. Its only authentication is the source address
 * (the gateway's documented ones; the embedded sandbox posts from 127.0.0.1), so it is
 * mounted before any body parser and answers exactly `OK` once the order is recorded.
 *
 * A deposit marks the shop's virtual-account order paid; the amount and TID checked are the
 * shop's own (the order's amount from SQLite, the TID the return recorded). On the embedded
 * sandbox the source address proves nothing (every process on the machine posts from
 * 127.0.0.1, the buyer's browser included), so a deposit the sandbox did not book is refused
 * there: the notice stands for the gateway's word only when the gateway sent it.
 */
import type { Router } from 'express';
import { shopRouter } from './router.js';
import type { ShopContext } from '../shop-context.js';

/**
 * The notification router; `allowedIps` are the addresses notices may come from, read through
 * `proxyHops` proxies of the shop's own (0: the socket's address).
 */
export function notifyRoutes(
  { db, nicepay, logger, sandbox }: ShopContext,
  allowedIps: readonly string[] | undefined,
  proxyHops: number,
): Router {
  const router = shopRouter();
  router.post(
    '/pay/notify',
    nicepay.notifications({
      expectedAmount: (moid) => {
        const order = db.order(moid);
        return order ? { amount: order.amount, ...(order.tid ? { tid: order.tid } : {}) } : undefined;
      },
      onDeposit: (n) => {
        if (sandbox && sandbox.ledger.get(n.tid)?.deposit?.amount !== n.amount)
          throw new Error(`the sandbox booked no deposit of ${n.amount} won to ${n.tid}`);
        // Idempotent (the library runs it once per deposit; a late retry after a timeout must
        // not flip anything either): awaiting-deposit → paid for this TID only.
        if (!db.markDeposited(n.moid, n.tid, n.depositedAt))
          throw new Error(`order ${n.moid} is not an awaiting virtual account of ${n.tid}`);
        logger.info({ moid: n.moid, tid: n.tid, amount: n.amount }, 'example shop: virtual account paid');
      },
      onCancel: (n) => {
        logger.info({ moid: n.moid, tid: n.tid, amount: n.amount, stateCd: n.stateCd }, 'example shop: cancel notice');
      },
      ...(allowedIps ? { allowedIps } : {}),
      trustProxy: proxyHops,
    }),
  );
  return router;
}
