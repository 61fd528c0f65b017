/**
 * Who may see an order. Order pages show the buyer's name, e-mail and phone, the masked card
 * and the approval number; the order list shows order numbers and TIDs. A buyer sees their
 * own orders and nobody else's:
 *
 * - **The browser that placed the order owns it.** Placing an order gives the browser an
 *   opaque random buyer id (cookie `shop.buyer`: HttpOnly, SameSite=Lax so that it comes
 *   along when the payment window sends the buyer back, Path=/), and the order is recorded as
 *   that buyer's (table `order_owners`). `/orders` lists only those orders.
 * - **A signed order link** (`?t=`, an HMAC of the order number under the shop's secret)
 *   opens one order without the cookie: the redirects after placing an order and after a
 *   verified payment result carry it, so a buyer whose browser dropped the cookie still gets
 *   their result page. Opening a signed link makes that browser an owner too.
 *
 * Anyone else gets the shop's 404 page, the same as for an order that does not exist, so order
 * numbers cannot be probed. Links are never handed out for a Moid taken from an unsigned post
 * (an auth-failed return): only for orders this browser created or the gateway confirmed.
 */
import type { Database } from 'better-sqlite3';
import type { NextFunction, Request, Response } from 'express';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sendNotFound } from './error-page.js';

const COOKIE = 'shop.buyer';
/** A request of any route: the rules read its cookie, query and protocol, never its params' type. */
type AnyRequest = Request<unknown>;
/** Buyer ids and link signatures: 128 bits, base64url. */
const ID_BYTES = 16;
const COOKIE_MAX_AGE_MS = 180 * 24 * 3_600_000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS order_owners (
  moid TEXT NOT NULL, buyer TEXT NOT NULL, PRIMARY KEY (moid, buyer)
)`;

/** What the routers use to check and grant access to orders. */
export interface OrderAccess {
  /** True when this request's browser owns the order, or carries its signed link. */
  mayView(req: Request, moid: string): boolean;
  /** Makes this browser an owner of the order (sets the buyer cookie when it has none). */
  grant(req: Request, res: Response, moid: string): void;
  /** The order numbers this browser owns. */
  owned(req: Request): ReadonlySet<string>;
  /** `path` (e.g. `/orders/ORD1`, `/keyin?moid=ORD1`) with the order's signed link parameter added. */
  signedLink(path: string, moid: string): string;
  /**
   * Middleware for order pages, in front of each page's own handler (never only at the app's
   * level, where a path spelled another way would miss it): the order named by
   * `req.params.moid` (or `?moid=`) is shown only to its owners and signed links; a signed
   * link makes the browser an owner. Anyone else gets the shop's 404 page.
   */
  ownOrderOnly<P>(req: Request<P>, res: Response, next: NextFunction): void;
}

/** Reads one cookie from the Cookie header (no cookie parser in the example). */
function cookieOf(req: AnyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The access rules of one shop; `secret` signs order links (random per process when absent). */
export function orderAccess(sqlite: Database, secret: string = randomBytes(32).toString('hex')): OrderAccess {
  sqlite.exec(SCHEMA);
  const q = {
    owns: sqlite.prepare<[string, string], { one: number }>(
      'SELECT 1 AS one FROM order_owners WHERE moid = ? AND buyer = ?',
    ),
    owned: sqlite.prepare<[string], { moid: string }>('SELECT moid FROM order_owners WHERE buyer = ?'),
    grant: sqlite.prepare('INSERT OR IGNORE INTO order_owners (moid, buyer) VALUES (?, ?)'),
  };
  const sign = (moid: string): string =>
    createHmac('sha256', secret).update(`order-link:${moid}`).digest('base64url').slice(0, 22);
  const buyerOf = (req: AnyRequest): string | undefined => {
    const id = cookieOf(req, COOKIE);
    return id && /^[\w-]{22}$/.test(id) ? id : undefined;
  };
  const linkValid = (req: AnyRequest, moid: string): boolean => {
    const t = req.query.t;
    // A signature's own shape (base64url, 22 characters) first: timingSafeEqual needs two
    // buffers of one byte length, and 22 characters beyond ASCII are more bytes than 22.
    if (typeof t !== 'string' || !/^[\w-]{22}$/.test(t)) return false;
    return timingSafeEqual(Buffer.from(t), Buffer.from(sign(moid)));
  };
  const owns = (req: AnyRequest, moid: string): boolean => {
    const buyer = buyerOf(req);
    return buyer !== undefined && q.owns.get(moid, buyer) !== undefined;
  };

  function grant(req: AnyRequest, res: Response, moid: string): void {
    let buyer = buyerOf(req);
    if (!buyer) {
      buyer = randomBytes(ID_BYTES).toString('base64url');
      res.cookie(COOKIE, buyer, {
        httpOnly: true,
        sameSite: 'lax',
        secure: req.secure,
        path: '/',
        maxAge: COOKIE_MAX_AGE_MS,
      });
      // Later calls in this request see the new id.
      req.headers.cookie = `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${COOKIE}=${buyer}`;
    }
    q.grant.run(moid, buyer);
  }

  return {
    mayView: (req, moid) => owns(req, moid) || linkValid(req, moid),
    grant,
    owned(req) {
      const buyer = buyerOf(req);
      return new Set(buyer ? q.owned.all(buyer).map((r) => r.moid) : []);
    },
    signedLink: (path, moid) => `${path}${path.includes('?') ? '&' : '?'}t=${sign(moid)}`,
    ownOrderOnly<P>(req: Request<P>, res: Response, next: NextFunction) {
      const param = (req.params as Record<string, unknown>).moid;
      const moid = typeof param === 'string' ? param : req.query.moid;
      if (typeof moid !== 'string' || owns(req, moid)) return next();
      if (linkValid(req, moid)) {
        grant(req, res, moid);
        return next();
      }
      sendNotFound(res);
    },
  };
}
