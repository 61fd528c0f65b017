/**
 * Security headers on every page of the example shop (helmet): a Content-Security-Policy that
 * fits its pages, framing refused (`frame-ancestors 'none'` and `X-Frame-Options: DENY`: no
 * page, the key-in form and the back office included, can be framed to clickjack a buyer or
 * an operator), no MIME sniffing, no referrer beyond the origin.
 *
 * The pages have no scripts and load nothing from elsewhere; their one `<style>` block is
 * inline (views.ts), hence `style-src 'unsafe-inline'` (no buyer text ever reaches a style).
 * Forms post to the shop itself and, from the checkout page, to the payment window
 * (`windowUrl`), so `form-action` names exactly those two.
 */
import helmet from 'helmet';
import type { RequestHandler } from 'express';

/** The helmet middleware for a shop whose payment window lives at `windowUrl`. */
export function securityHeaders(windowUrl: string): RequestHandler {
  const windowOrigin = new URL(windowUrl).origin;
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'", windowOrigin],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    // The shop runs on plain http on a laptop and in tests; HSTS belongs to the TLS front.
    strictTransportSecurity: false,
  });
}
