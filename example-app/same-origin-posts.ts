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
import { html, sendPage } from './views.js';

/** The middleware; `crossSitePaths` are the POST paths another site may send to. */
export function sameOriginPosts(crossSitePaths: readonly string[]): RequestHandler {
  const open = new Set(crossSitePaths);
  return (req, res, next) => {
    if (req.method !== 'POST' || open.has(req.path)) return next();
    const site = req.get('sec-fetch-site');
    const origin = req.get('origin');
    const sameOrigin =
      site !== undefined
        ? site === 'same-origin' || site === 'none'
        : origin === undefined || origin === `${req.protocol}://${req.get('host')}`;
    if (sameOrigin) return next();
    sendPage(
      res,
      403,
      '요청을 처리할 수 없습니다',
      html`<h1 class="status-error">다른 사이트에서 보낸 요청은 처리하지 않습니다</h1><p><a class="line-link" href="/">상품 목록으로</a></p>`,
    );
  };
}
