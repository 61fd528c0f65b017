/**
 * `POST /pay/notify`: the gateway's payment notifications (결제데이터통보), on
 * `nicepay.notifications`. Like `/pay/return` it is outside the back-office login: the
 * gateway posts it without any session. Its only authentication is the source address
 * (the gateway's documented ones; the embedded sandbox posts from 127.0.0.1), so it is
 * mounted before any body parser and answers exactly `OK` once the order is recorded.
 *
 * A deposit marks the shop's virtual-account order paid; the amount and TID checked are the
 * shop's own (the order's amount from SQLite, the TID the return recorded).
 */
import { Router } from 'express';
import type { ShopContext } from '../shop-context.js';

/** The notification router; `allowedIps` are the addresses notices may come from. */
export function notifyRoutes({ db, nicepay, logger }: ShopContext, allowedIps: readonly string[] | undefined): Router {
  const router = Router();
  router.post(
    '/pay/notify',
    nicepay.notifications({
      expectedAmount: (moid) => {
        const order = db.order(moid);
        return order ? { amount: order.amount, ...(order.tid ? { tid: order.tid } : {}) } : undefined;
      },
      onDeposit: (n) => {
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
    }),
  );
  return router;
}
