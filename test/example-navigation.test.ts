/**
 * Every page of the shop is reachable from its navigation: the buyer's bar on every page (the
 * subscription included), the back office's on every back-office page (subscriptions and cash
 * receipts included), each marking the page it is on. The back office is matched as spelled: another
 * spelling of /admin is a 404, never the back office without its session.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { ADMIN_NAV } from '../example-app/routes/admin-page.js';
import { BUYER_NAV } from '../example-app/views.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'navigation-admin-password';
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const errors: unknown[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (obj) => void errors.push(obj) };

/** The `href`s of a navigation bar (`<nav id>`), and the one marked as the current page. */
function navOf(page: string, id: string): { hrefs: string[]; current: string | undefined } {
  const nav = new RegExp(`<nav[^>]*id="${id}"[^>]*>([\\s\\S]*?)</nav>`).exec(page)?.[1] ?? '';
  const links = [...nav.matchAll(/<a href="([^"]+)"[^>]*?( aria-current="page")?>/g)];
  return { hrefs: links.map((m) => m[1]!), current: links.find((m) => m[2])?.[1] };
}

describe('example-app: navigation reaches every page', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  let admin: ReturnType<typeof request.agent>;

  before(async () => {
    sandbox = createSandbox({ merchants: [{ mid: MID, merchantKey: KEY }] });
    await sandbox.listen(0);
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      logger,
      sandbox,
      admin: { password: PASSWORD },
      nicepay: { clock: () => sandbox.clock.now() },
    });
    admin = request.agent(shop.app);
    const form = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  it("every buyer page carries the buyer's bar, the subscription page included, and marks the page it is on", async () => {
    expect(BUYER_NAV.map((l) => l.href)).to.include('/subscription');
    for (const { href } of BUYER_NAV.filter((l) => l.href !== '/admin')) {
      const page = await request(shop.app).get(href);
      expect(page.status, href).to.equal(200);
      const nav = navOf(page.text, 'site-nav');
      expect(nav.hrefs, href).to.deep.equal(BUYER_NAV.map((l) => l.href));
      expect(nav.current, href).to.equal(href);
    }
  });

  it('every back-office page carries the whole back-office bar, subscriptions and cash receipts included', async () => {
    expect(ADMIN_NAV.map((l) => l.href)).to.include.members(['/admin/billing', '/admin/billing/receipts']);
    for (const { href } of ADMIN_NAV) {
      const page = await admin.get(href);
      expect(page.status, href).to.be.oneOf([200, 502]); // the balance page says so when the data host refuses
      const nav = navOf(page.text, 'admin-nav');
      expect(nav.hrefs, href).to.deep.equal(ADMIN_NAV.map((l) => l.href));
      expect(nav.current, href).to.equal(href);
      expect(navOf(page.text, 'site-nav').current, href).to.equal('/admin');
    }
  });

  it('/ADMIN and other spellings of the back office are 404 pages, not server errors', async () => {
    for (const path of ['/ADMIN', '/ADMIN/orders', '/Admin/billing']) {
      const signedIn = await admin.get(path);
      expect(signedIn.status, path).to.equal(404);
      expect(signedIn.text, path).to.include('페이지를 찾을 수 없습니다');
      expect((await request(shop.app).post(path).type('form').send({})).status, path).to.equal(404);
    }
    expect(errors).to.deep.equal([]);
  });
});
