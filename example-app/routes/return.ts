/**
 * `POST /pay/return`: where the payment window sends the buyer back. checkoutReturn reads the
 * body, verifies it, approves once per TID and puts the typed result on req.checkout; this
 * route records it and redirects (303) to the order's result page, `GET /orders/:moid`
 * (post/redirect/get: refresh and Back repeat only the GET).
 */
import type { NextFunction, Request, Response, Router } from 'express';
import { NicepayGatewayError } from '../../src/index.js';
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
      // Only a payment's return earns a signed link: anyone may open a window for a known order,
      // so a decline or an A127 refusal proves nothing about who posted it (the owner's browser
      // opens its order by its cookie).
      const page = `/orders/${encodeURIComponent(r.moid)}`;
      res.redirect(
        303,
        r.status === 'approved' || r.status === 'awaiting-deposit' ? access.signedLink(page, r.moid) : page,
      );
    },
  );
  router.use(
    '/pay/return',
    // A127: the gateway approved this order number before (paid, or a payment the package
    // reversed), and named it in its refusal. Nothing was charged now and the order's state does
    // not change: a paid order stays paid; an unpaid one is paid with a new order number.
    (err: unknown, _req: Request, res: Response, next: NextFunction) => {
      if (!(err instanceof NicepayGatewayError) || err.code !== 'NICEPAY_MOID_CHARGED_BEFORE' || !err.moid)
        return next(err);
      db.markMoidSpent(err.moid);
      logger.info(
        { moid: err.moid, tid: err.tid, resultCode: err.resultCode },
        'example shop: order number charged before',
      );
      res.redirect(303, `/orders/${encodeURIComponent(err.moid)}`);
    },
  );
  return router;
}
