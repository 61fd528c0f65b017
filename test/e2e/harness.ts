/**
 * Shared setup of the browser e2e tests: a gateway sandbox and the example shop on port 0,
 * a headless Chromium (system binary, no download), a fresh context per test, and a
 * screenshot in test-results/<test>.png when a test fails. `loginAsAdmin` signs the page in
 * to the back office; `checkLayout` (./layout.ts) screenshots a page at both widths.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createShop, type Shop, type ShopOptions } from '../../example-app/app.js';
import type { Logger, PayMethod } from '../../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../../src/sandbox/index.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The back-office password the e2e shops are created with. */
export const ADMIN_PASSWORD = 'e2e-admin-password';

export interface E2E {
  sandbox: Sandbox;
  shop: Shop;
  shopUrl: string;
  browser: Browser;
  /** The current test's page (fresh context per test). */
  page: Page;
}

/**
 * Registers before/after/beforeEach/afterEach hooks in the calling describe() and returns the
 * live handles (filled in by the hooks).
 */
export function useShopInBrowser(shopOptions: Partial<ShopOptions> = {}, sandboxClock?: () => Date): E2E {
  const env = {} as E2E;
  let server: Server;
  let context: BrowserContext | undefined;

  before(async () => {
    // The shop's server first: the sandbox's merchant posts its notices to the shop's /pay/notify.
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env.shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const merchant = { ...TEST_MERCHANTS[0]!, notificationUrl: `${env.shopUrl}/pay/notify` };
    env.sandbox = createSandbox({ merchants: [merchant], ...(sandboxClock ? { clock: sandboxClock } : {}) });
    await env.sandbox.listen(0);
    env.shop = createShop({
      mid: merchant.mid,
      merchantKey: merchant.merchantKey,
      baseUrl: env.sandbox.url,
      dbFile: ':memory:',
      logger: quietLogger,
      admin: { password: ADMIN_PASSWORD },
      sandbox: env.sandbox,
      ...shopOptions,
      // The shop's client reads the sandbox's virtual clock, so payout cut-offs agree.
      nicepay: { clock: () => env.sandbox.clock.now(), ...shopOptions.nicepay },
    });
    server.on('request', env.shop.app);
    env.browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await env.browser?.close();
    if (server)
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    await env.shop?.close();
    await env.sandbox?.close();
  });

  beforeEach(async () => {
    context = await env.browser.newContext({ locale: 'ko-KR', timezoneId: 'Asia/Seoul' });
    env.page = await context.newPage();
  });

  afterEach(async function () {
    const test = this.currentTest;
    if (test?.state === 'failed' && env.page) {
      mkdirSync('test-results', { recursive: true });
      const name = test
        .fullTitle()
        .replace(/[^\p{L}\p{N}._-]+/gu, '_')
        .slice(0, 120);
      await env.page.screenshot({ path: `test-results/${name}.png`, fullPage: true }).catch(() => {});
    }
    await context?.close();
    context = undefined;
  });

  return env;
}

/** Signs `page` in to the back office through the login form; ends on `next` (default /admin). */
export async function loginAsAdmin(e2e: E2E, next = '/admin'): Promise<void> {
  const { page, shopUrl } = e2e;
  await page.goto(`${shopUrl}${next}`);
  await page.waitForSelector('#login-form');
  await page.fill('#login-user', 'admin');
  await page.fill('#login-password', ADMIN_PASSWORD);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/admin/login')), page.click('#login-submit')]);
}

/**
 * A `waitForURL` matcher for the page the shop redirects to after a payment the gateway
 * confirmed: the order's result page under its signed link, `/orders/<moid>?t=<22 base64url
 * characters>` and nothing more. Without `moid`, any order number the shop issues (`ORD…`).
 */
export function signedOrderPage(shopUrl: string, moid?: string): (url: URL) => boolean {
  const path = moid === undefined ? /^\/orders\/ORD\w+$/ : undefined;
  return (url) =>
    url.origin === shopUrl &&
    (path ? path.test(url.pathname) : url.pathname === `/orders/${moid}`) &&
    /^\?t=[\w-]{22}$/.test(url.search);
}

/**
 * Orders `productId` as a buyer does, from the product page to the sandbox's payment window
 * (the order's payment page, 결제하기); returns the order's Moid with the window open.
 */
export async function openWindowFor(e2e: E2E, productId: string): Promise<string> {
  const { page, shopUrl } = e2e;
  await page.goto(shopUrl);
  await page.click(`#buy-${productId}`);
  await page.waitForSelector('#pay-submit');
  const moid = (await page.textContent('#order-moid'))!.trim();
  await page.click('#pay-submit');
  await page.waitForSelector('#window-form');
  return moid;
}

/**
 * Buys `productId` as a buyer does: the product page, the order's payment page, `method` in the
 * sandbox's window, 결제하기; ends on the order's result page (its signed link) and returns the
 * Moid. `cashReceipt` asks the window for a receipt (bank transfer, virtual account).
 */
export async function buyInWindow(
  e2e: E2E,
  productId: string,
  method: PayMethod,
  cashReceipt?: { identity: string },
): Promise<string> {
  const { page, shopUrl } = e2e;
  const moid = await openWindowFor(e2e, productId);
  await page.check(`#method-${method}`);
  if (cashReceipt) {
    await page.selectOption('#rcpt-type', 'income-deduction');
    await page.fill('#rcpt-identity', cashReceipt.identity);
  }
  await Promise.all([page.waitForURL(signedOrderPage(shopUrl, moid)), page.click('#approve')]);
  return moid;
}

/**
 * Runs `act` (a click that posts a form) and waits for the page it redirects to, `path`, to
 * load: the page may be the one already shown (post/redirect/get to the same list), so the wait
 * is for that GET's response, not for a change of URL.
 */
export async function landOn(page: Page, path: string, act: () => Promise<void>): Promise<void> {
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'GET' && new URL(r.url()).pathname === path),
    act(),
  ]);
  await page.waitForLoadState('load');
}
