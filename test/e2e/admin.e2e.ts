/** The back office in a real browser: balance and cash-receipt reconciliation after a purchase. */
import { expect } from 'chai';
import { loginAsAdmin, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

const kstToday = (): string => new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10).replace(/-/g, '');

describe('e2e: example shop in Chromium (back office)', () => {
  const e2e = useShopInBrowser();

  it('a bank transfer with a cash receipt shows up in the balance and on the recon page', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await page.click('#buy-haeng-mug');
    await page.click('#pay-submit');
    await page.waitForSelector('#window-form');
    await page.check('#method-BANK');
    await page.selectOption('#rcpt-type', 'income-deduction');
    await page.fill('#rcpt-identity', '01012345678');
    await Promise.all([page.waitForURL(/\/orders\/ORD\w+(\?t=[\w-]{22})?$/), page.click('#approve')]);
    expect(await page.getAttribute('#result-status', 'data-status')).to.equal('approved');

    await loginAsAdmin(e2e, '/admin');
    expect(await page.textContent('#balance-amount')).to.equal('8,900원');
    await checkLayout(page, 'admin-balance');

    await page.click('#admin-nav >> text=현금영수증 대사');
    await page.waitForSelector('#recon-form');
    await page.fill('#recon-date', kstToday());
    await Promise.all([page.waitForURL(/\/admin\/recon\?date=/), page.click('#recon-form button[type=submit]')]);
    await page.waitForSelector('#cash-receipts');
    const row = (await page.locator('#cash-receipts tbody tr').first().textContent())!;
    expect(row).to.include('햏 머그컵').and.include('8,900원').and.include('소득공제');
    expect(await page.getAttribute('#recon-csv', 'href')).to.include('format=csv');
    // 13 columns: the table scrolls in its own box, the page does not; 상품명 stays on one line.
    await checkLayout(page, 'admin-recon');
  });
});
