/**
 * Every page is reached by clicking, never by typing its URL: the buyer's bar reaches every
 * buyer page (the subscription included), the back office's bar every back-office page
 * (subscriptions and cash receipts included). Each page is screenshotted at 1,280 px, 1,100 px
 * and 375 px with data in its tables, so at 1,280 px every table (the 13 columns of 현금영수증
 * 대사 among them) fits its frame with its cells laid out as cells, at 375 px every table's cards
 * show their labels, every link and button is a thumb's height, identifiers stay whole and no
 * boxes touch (the payout date box among them). The sandbox's own window fits a
 * phone too: its title on one line, and no request fails (its icon is inline).
 */
import { expect } from 'chai';
import { ADMIN_NAV } from '../../example-app/routes/admin-page.js';
import { BUYER_NAV } from '../../example-app/views.js';
import { fromKst } from '../../src/wire/kst.js';
import { buyInWindow, loginAsAdmin, useShopInBrowser } from './harness.js';
import { brokenOverLines, checkLayout } from './layout.js';

// A Monday, 09:00 KST: payouts may be requested for the day.
const DAY = '20261123';
const start = fromKst(2026, 11, 23, 9, 0, 0);

describe('e2e: the navigation reaches every page, and every page fits 1,280 px, 1,100 px and 375 px', () => {
  const e2e = useShopInBrowser({}, () => start);

  it("the buyer's bar reaches every buyer page by clicking, the subscription page included", async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    for (const link of BUYER_NAV.filter((l) => l.href !== '/admin')) {
      await Promise.all([page.waitForURL((u) => u.pathname === link.href), page.click(`#${link.id}`)]);
      expect(await page.getAttribute('#site-nav [aria-current="page"]', 'href'), link.href).to.equal(link.href);
      await checkLayout(page, `nav-buyer${link.href.replace(/\//g, '-') || '-home'}`);
    }
    // The subscription page is one click from every buyer page.
    await page.click('#nav-subscription');
    await page.waitForSelector('#subscription-form');
  });

  it("the back office's bar reaches every back-office page by clicking; every table's cards are labelled at 390 px", async () => {
    const { page, shopUrl, sandbox, shop } = e2e;
    sandbox.dataHost.deposit(shop.nicepay.mid, 50_000);
    // Data for every table: a paid card order, a bank transfer with a cash receipt asked in the
    // window (reconciliation) and one without (the receipts page), a subscription, a
    // sub-merchant and a payout.
    await buyInWindow(e2e, 'tomyum-kit', 'CARD');
    await buyInWindow(e2e, 'jeju-tea', 'BANK', { identity: '01012345678' });
    await buyInWindow(e2e, 'haeng-mug', 'BANK');
    await page.click('#nav-subscription');
    await page.fill('#sub-card-number', '4111111111111111');
    await page.fill('#sub-card-expiry', '3012');
    await Promise.all([page.waitForURL(/\/subscription\/\d+\?t=/), page.click('#subscription-submit')]);

    await loginAsAdmin(e2e, '/admin/sub-merchants');
    await page.fill('#sub-id', 'seller-01');
    await page.fill('#sub-nm', '햏상점');
    await page.fill('#sub-co-no', '1234567890');
    await page.selectOption('#bank-cd', '088');
    await page.fill('#accnt-no', '12345678901234');
    await page.fill('#accnt-nm', '김햏');
    await page.click('#sub-merchant-submit');
    await page.waitForSelector('#admin-ok');
    await page.click('#admin-nav-payouts');
    await page.selectOption('#payout-sub-id', 'seller-01');
    await page.fill('#payout-amount', '30000');
    await page.fill('#payout-date', DAY);
    await page.click('#payout-submit');
    await page.waitForSelector('#confirm-form');
    await page.click('#confirm-submit');
    await page.waitForSelector('#my-payouts');
    await page.click('#admin-nav-billing');
    await page.click('[id^="charge-"]');
    await page.waitForSelector('#subscription-charges');

    await page.click('#admin-nav-balance');
    await page.waitForSelector('#balance-amount');
    for (const link of ADMIN_NAV) {
      await Promise.all([page.waitForURL((u) => u.pathname === link.href), page.click(`#${link.id}`)]);
      expect(await page.getAttribute('#admin-nav [aria-current="page"]', 'href'), link.href).to.equal(link.href);
      await checkLayout(page, `nav-admin${link.href.replace(/\//g, '-')}`);
    }
    // Every table of the back office had rows to show as cards.
    for (const [href, table] of [
      ['/admin/orders', '#admin-orders'],
      ['/admin/billing', '#subscriptions'],
      ['/admin/billing', '#subscription-charges'],
      ['/admin/billing/receipts', '#bank-orders'],
      ['/admin/sub-merchants', '#sub-merchants'],
      ['/admin/payouts', '#my-payouts'],
      [`/admin/recon?date=${DAY}`, '#cash-receipts'],
    ] as const) {
      await page.goto(`${shopUrl}${href}`);
      expect(await page.locator(`${table} tbody tr`).count(), table).to.be.above(0);
      await page.setViewportSize({ width: 390, height: 844 });
      const labels = await page
        .locator(`${table} tbody tr:first-child td:not(.actions)`)
        .evaluateAll((cells) =>
          cells.map((c) => (c as unknown as { dataset: { label?: string } }).dataset.label ?? ''),
        );
      expect(
        labels.filter((l) => l === ''),
        `${table}: cells without a label`,
      ).to.deep.equal([]);
      await page.screenshot({
        path: `test/e2e/screenshots/nav-cards${table.replace('#', '-')}-390.png`,
        fullPage: true,
      });
      await page.setViewportSize({ width: 1100, height: 900 });
    }
    // The reconciliation card of a receipt reads label by label, not as 13 bare values.
    await page.goto(`${shopUrl}/admin/recon?date=${DAY}`);
    expect(await page.getAttribute('#cash-receipts tbody tr:first-child td.amount', 'data-label')).to.equal('금액');
  });

  it("the sandbox's payment window fits 390 px: its title on one line, and no request of it fails", async () => {
    const { page, shopUrl } = e2e;
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(shopUrl);
    await page.click('#buy-kimchi');
    await page.click('#pay-submit');
    await page.waitForSelector('#window-form');
    expect(await page.textContent('h1')).to.equal('NICEPAY 샌드박스 결제창');
    expect(await brokenOverLines(page, 'h1'), 'the title on one line').to.deep.equal([]);
    await checkLayout(page, 'sandbox-window');
    expect(await page.getAttribute('link[rel=icon]', 'href')).to.match(/^data:image\/svg\+xml,/);
    expect(failed).to.deep.equal([]);
  });
});
