/**
 * Posts from another site are refused, except where another site is the sender by design: the
 * payment window's auth return (`/pay/return`, posted from the gateway's page) and the
 * gateway's notices (`/pay/notify`, server to server). Without it a page elsewhere could post
 * `/checkout` in the buyer's browser: the buyer cookie (SameSite=Lax) stays home on a
 * cross-site POST, so the shop would hand out a new one that replaces it, and the buyer's
 * order list with it. The back office has CSRF tokens besides.
 *
 * The browser says where a request comes from in `Sec-Fetch-Site` (all current browsers) and,
 * on a POST, in `Origin`; a request with neither is no browser's form and passes.
 */
import type { RequestHandler } from 'express';
import { sendRefusedPost } from './error-page.js';

/**
 * The middleware; `crossSitePaths` are the POST paths another site may send to. The shop's own
 * origin is `publicUrl`'s when the shop has one (SHOP_URL: a proxy in front may rewrite Host),
 * else the request's as Express reads it (through the proxies it trusts).
 */
export function sameOriginPosts(crossSitePaths: readonly string[], publicUrl: string | undefined): RequestHandler {
  const open = new Set(crossSitePaths);
  const fixed = publicUrl === undefined ? undefined : new URL(publicUrl).origin;
  return (req, res, next) => {
    if (req.method !== 'POST' || open.has(req.path)) return next();
    const site = req.get('sec-fetch-site');
    const origin = req.get('origin');
    const sameOrigin =
      site !== undefined
        ? site === 'same-origin' || site === 'none'
        : origin === undefined || origin === (fixed ?? `${req.protocol}://${req.host}`);
    if (sameOrigin) return next();
    sendRefusedPost(
      res,
      req.path.startsWith('/admin/')
        ? { href: '/admin', label: '관리자 화면으로' }
        : { href: '/', label: '상품 목록으로' },
    );
  };
}
