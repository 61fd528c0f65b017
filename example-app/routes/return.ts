/**
 * `POST /pay/return`: where the payment window sends the buyer back. checkoutReturn reads the
 * body, verifies it, approves once per TID and puts the typed result on req.checkout; this
 * route records it and redirects (303) to the order's result page, `GET /orders/:moid`
 * (post/redirect/get: refresh and Back repeat only the GET).
 */
import type { Router } from 'express';
import { shopRouter } from './router.js';
import type { ShopContext } from '../shop-context.js';

export function returnRoutes({ db, nicepay, logger, access }: ShopContext): Router {
  const router = shopRouter();
  router.post(
    '/pay/return',
    nicepay.checkoutReturn({
      // The order's amount comes from SQLite by Moid, NOT from the session: the window posts
      // this return cross-site from the gateway's domain, so SameSite cookies are not sent
      // with it (gateway-facts.md, "The authentication return").
      expectedAmount: (moid) => db.orderAmount(moid),
      // Runs once per TID after the gateway committed the money. If it throws (the order was
      // already paid by another TID), checkoutReturn net-cancels this payment.
      onApproved: (result) => db.markCommitted(result),
    }),
    (req, res) => {
      const r = req.checkout!;
      if (r.status === 'declined' && !r.duplicate) {
        db.markDeclined(r);
        // A127: the gateway approved this order number once (a payment the package reversed);
        // it takes none for it any more, so the buyer pays with a new order.
        if (r.code === 'A127') db.markMoidSpent(r.moid);
        logger.info({ moid: r.moid, tid: r.tid, resultCode: r.code }, 'example shop: payment declined');
      }
      // auth-failed carries no signature (anyone can post one for any Moid with any text): it
      // never changes the order's state, and its posted text is neither stored nor shown. It
      // only notes, for display, that the order's buyer came back without paying.
      if (r.status === 'auth-failed') {
        db.markWindowCancelled(r.moid, '');
        logger.info(
          { moid: r.moid, verified: r.verified },
          'example shop: a return said the buyer came back from the window without paying (unverified)',
        );
      }
      // The gateway confirmed which order a payment or decline is for: its page may open by a
      // signed link. An auth-failed Moid is the poster's word: no link (the buyer's own
      // browser still has its cookie).
      const page = `/orders/${encodeURIComponent(r.moid)}`;
      res.redirect(303, r.status === 'auth-failed' ? page : access.signedLink(page, r.moid));
    },
  );
  return router;
}
