/**
 * The example shop's wiring: database, NICEPAY client, routers, error pages. `server.ts`
 * runs it; tests and the browser e2e tests call `createShop()` against their own sandbox.
 *
 * A real shop imports from 'express-nicepay'; this one imports the source so that it runs
 * without a build.
 */
import express, { type Express, type Router } from 'express';
import { fileURLToPath } from 'node:url';
import { createNicepay, type Logger, type Nicepay, type NicepayOptions } from '../src/index.js';
import type { Sandbox } from '../src/sandbox/index.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import { adminCredentials, type AdminOptions } from './admin-auth.js';
import { openDb, type ShopDb } from './db.js';
import { orderAccess } from './order-access.js';
import type { ShopContext } from './shop-context.js';
import { errorHandler, notFound } from './error-page.js';
import { sameOriginPosts } from './same-origin-posts.js';
import { securityHeaders } from './security-headers.js';
import { adminRoutes } from './routes/admin.js';
import { checkoutRoutes } from './routes/checkout.js';
import { keyinRoutes } from './routes/keyin.js';
import { subscriptionRoutes } from './routes/subscription.js';
import { orderRoutes } from './routes/orders.js';
import { productRoutes } from './routes/products.js';
import { resultRoutes } from './routes/result.js';
import { notifyRoutes } from './routes/notify.js';
import { returnRoutes } from './routes/return.js';
import { followSettlement } from './settlement-follower.js';

/** Options of {@link createShop}. */
export interface ShopOptions {
  /** Merchant id (10 characters). */
  mid: string;
  /** Merchant key: signs the window request and verifies the gateway. Never rendered or logged. */
  merchantKey: string;
  /** Approval host (the sandbox's url, or e.g. `https://webapi.nicepay.co.kr`). */
  baseUrl: string;
  /** Data host for payout / reconciliation. @default baseUrl */
  dataUrl?: string;
  /** Where the payment window lives; the checkout form posts to `${windowUrl}/window`. @default baseUrl */
  windowUrl?: string;
  /** Hosts NextAppURL / NetCancelURL may name. @default [host of baseUrl] */
  trustedHosts?: readonly string[];
  /**
   * The shop's public origin, used to build ReturnURL (`${publicUrl}/pay/return`). When unset,
   * it is taken from the request's Host header: convenient on a laptop and in tests on port 0,
   * but set it in production so that a forged Host cannot choose where the window returns to.
   */
  publicUrl?: string;
  /** SQLite file, or ':memory:': the shop's tables and the payment ledger. @default example-app/data/shop.db */
  dbFile?: string;
  /** Used by the NICEPAY client and for the shop's own error log. @default console, warnings and errors */
  logger?: Logger;
  /** Extra createNicepay options (timeouts, clock, settle ...); `store` replaces the shop's sqliteStore. */
  nicepay?: Partial<NicepayOptions>;
  /**
   * The embedded sandbox, when the shop runs on one: the back office then shows a "deposit"
   * button (sandbox.deposit) for unpaid virtual accounts, and notices are taken from 127.0.0.1.
   */
  sandbox?: Sandbox;
  /** Addresses payment notices may come from. @default the gateway's; 127.0.0.1 with `sandbox` */
  notifyAllowedIps?: readonly string[];
  /**
   * How many proxies of the shop's own stand in front of it (`TRUST_PROXY` in server.ts).
   * Express then reads the client's address and protocol through that many X-Forwarded-For
   * hops, and so does `/pay/notify`, whose source address is a notice's only authentication.
   * @default 0 (the socket's address)
   */
  trustProxy?: number;
  /** Back-office login (ADMIN_USER / ADMIN_PASSWORD in server.ts). @default user 'admin', a generated one-time password */
  admin?: AdminOptions;
  /**
   * Signs the buyers' order links (order-access.ts). @default random per process: links
   * handed out before a restart stop working (the buyer's cookie still does)
   */
  orderLinkSecret?: string;
}

/** What {@link createShop} returns. */
export interface Shop {
  app: Express;
  /** The back-office login; `generated` when the password was made up here (print it once). */
  admin: { user: string; password: string; generated: boolean };
  db: ShopDb;
  nicepay: Nicepay;
  /**
   * Resolves once the shop's records (billing charges, refund intents) have followed every
   * settlement the package published so far (./settlement-follower.ts).
   */
  followed(): Promise<void>;
  /** Waits for payments in flight, then closes the NICEPAY client and the database. */
  close(): Promise<void>;
}

export const DEFAULT_DB_FILE = fileURLToPath(new URL('./data/shop.db', import.meta.url));

const consoleLogger: Logger = {
  debug() {},
  info() {},
  warn: (obj, msg) => console.warn(msg ?? '', JSON.stringify(obj)),
  error: (obj, msg) => console.error(msg ?? '', JSON.stringify(obj)),
};

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

export function createShop(options: ShopOptions): Shop {
  const logger = options.logger ?? consoleLogger;
  const admin = adminCredentials(options.admin);
  const db = openDb(options.dbFile ?? DEFAULT_DB_FILE);
  let nicepay: Nicepay;
  try {
    nicepay = createNicepay({
      mid: options.mid,
      merchantKey: options.merchantKey,
      baseUrl: options.baseUrl,
      logger,
      ...(options.dataUrl ? { dataUrl: options.dataUrl } : {}),
      ...(options.trustedHosts ? { trustedHosts: options.trustedHosts } : {}),
      // The payment ledger lives in the shop's own SQLite file, in the store's own table
      // (nicepay_ledger): one file to back up, so orders and the payments they refer to are
      // restored together, and `express-nicepay settle` from cron names the same file
      // (NICEPAY_SQLITE_PATH=$SHOP_DB). It works on ':memory:' too (tests), and a restart
      // forgets no payment in flight: the settler (createNicepay's default, every minute)
      // finishes it.
      store: options.nicepay?.store ?? sqliteStore({ database: db.sqlite }),
      ...options.nicepay,
    });
  } catch (err) {
    db.close();
    throw err;
  }
  const ctx: ShopContext = {
    db,
    nicepay,
    logger,
    mid: options.mid,
    merchantKey: options.merchantKey,
    windowUrl: trimSlash(options.windowUrl ?? options.baseUrl),
    publicUrl: options.publicUrl ? trimSlash(options.publicUrl) : undefined,
    clock: options.nicepay?.clock ?? (() => new Date()),
    sandbox: options.sandbox,
    access: orderAccess(db.sqlite, options.orderLinkSecret),
  };

  // The shop's records follow what settlement makes of each lost outcome (billing charges,
  // refunds): subscribed here, unsubscribed by close().
  const follower = followSettlement(ctx);

  const app = express();
  app.disable('x-powered-by');
  // Paths are matched as spelled: /ADMIN/orders is not the back office. Matched case-blind,
  // it would reach the back-office routers without the session (its cookie's Path is /admin,
  // which a browser matches case-sensitively) and fail; it is a 404 like any unknown page.
  app.set('case sensitive routing', true);
  if (options.trustProxy) app.set('trust proxy', options.trustProxy);
  // CSP with frame-ancestors 'none', X-Frame-Options, nosniff, ... on every page (helmet).
  app.use(securityHeaders(ctx.windowUrl));
  // Only the payment window's return and the gateway's notices may be posted from elsewhere.
  app.use(sameOriginPosts(['/pay/return', '/pay/notify'], ctx.publicUrl));
  // No global body parser: checkoutReturn reads the EUC-KR return body itself, and a
  // urlencoded parser in front of it would consume (and mis-decode) it. Routers that take a
  // UTF-8 form mount express.urlencoded on their own routes.
  const routers: Array<[path: string, router: Router]> = [
    ['/', productRoutes(ctx)],
    ['/', checkoutRoutes(ctx)],
    ['/', returnRoutes(ctx)],
    // POST /pay/notify: the gateway's deposit notices (no login; source address checked).
    [
      '/',
      // The embedded sandbox posts its notices to the shop directly, never through its proxy.
      notifyRoutes(
        ctx,
        options.notifyAllowedIps ?? (options.sandbox ? ['127.0.0.1'] : undefined),
        options.sandbox ? 0 : (options.trustProxy ?? 0),
      ),
    ],
    ['/', orderRoutes(ctx)],
    // GET /orders/:moid: the result page the return and key-in POSTs redirect to (PRG).
    ['/', resultRoutes(ctx)],
    // ── Extension points — one line each, with the router in routes/<name>.ts ──
    // Card key-in checkout, built on nicepay.keyinRouter({ expectedAmount, onApproved }):
    ['/keyin', keyinRoutes(ctx)],
    // Subscription sign-up on nicepay.billing.register (the back office charges it monthly):
    ['/subscription', subscriptionRoutes(ctx)],
    // Back office behind a login and CSRF tokens: payout (nicepay.payout) and cash-receipt
    // reconciliation (nicepay.recon). /pay/return above stays reachable without a login.
    ['/admin', adminRoutes(ctx, admin, options.admin?.sessionSecret)],
  ];
  for (const [path, router] of routers) app.use(path, router);
  app.use(notFound);
  app.use(errorHandler(ctx));

  let closed: Promise<void> | undefined;
  return {
    app,
    admin,
    db,
    nicepay,
    followed: () => follower.idle(),
    close: () =>
      (closed ??= (async () => {
        // The client first: a settlement pass it waits for still reaches the follower.
        await nicepay.close();
        await follower.stop();
        db.close();
      })()),
  };
}
