/**
 * The back office as the buyer pages see it, in Chromium at 1,100 px and 390 px: on a phone
 * its tables become cards whose amounts, statuses and 취소 buttons stay on screen; dates read
 * in the same Korean format as the buyer's; "results from 16:00" is an information line, not
 * an error; bank codes are picked from a list; an invalid date gets the right particle.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { fromKst } from '../../src/wire/kst.js';
import { loginAsAdmin, signedOrderPage, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

// A Monday, 09:00 KST: payouts may be requested; their results are not out before 16:00.
const DAY = '20261123';
const start = fromKst(2026, 11, 23, 9, 0, 0);

/** Cells and buttons of `selector` that are not fully inside the viewport. */
function offscreen(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const g = globalThis as any;
    const out: string[] = [];
    for (const el of g.document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.left < 0 || r.right > g.innerWidth) out.push(String(el.textContent).trim());
    }
    return out;
  }, selector);
}

describe('e2e: the back office on a phone, and its dates and notices', () => {
  const e2e = useShopInBrowser({}, () => start);

  it('registers with a bank picked by name, requests a payout, and at 390 px keeps amount, status and 취소 on screen', async () => {
    const { page, shopUrl, sandbox, shop } = e2e;
    sandbox.dataHost.deposit(shop.nicepay.mid, 100_000);
    await loginAsAdmin(e2e, '/admin/sub-merchants');
    expect(await page.locator('select#bank-cd option[value="088"]').textContent()).to.equal('신한은행 (088)');
    await page.fill('#sub-id', 'seller-01');
    await page.fill('#sub-nm', '햏상점');
    await page.fill('#sub-co-no', '1234567890');
    await page.selectOption('#bank-cd', '088');
    await page.fill('#accnt-no', '12345678901234');
    await page.fill('#accnt-nm', '김햏');
    await page.click('#sub-merchant-submit');
    await page.waitForSelector('#admin-ok');

    await page.goto(`${shopUrl}/admin/payouts?date=${DAY}`);
    await page.selectOption('#payout-sub-id', 'seller-01');
    await page.fill('#payout-amount', '30000');
    await page.fill('#payout-date', DAY);
    await page.click('#payout-submit');
    await page.waitForSelector('#confirm-form');
    expect(await page.textContent('#confirm-form')).to.include('2026년 11월 23일 (월)');
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');

    // Before 16:00 the results are not out: said as information, not as an error.
    const notice = page.locator('#results-error');
    expect(await notice.getAttribute('class'))
      .to.include('notice-info')
      .and.not.include('status-error');
    expect(await notice.getAttribute('role')).to.equal('status');
    // The payout date in the buyer pages' Korean format, not 2026-11-23.
    expect(await page.textContent('#my-payouts td.date')).to.equal('2026년 11월 23일 (월)');
    expect(await page.textContent('main')).to.not.match(/\d{4}-\d{2}-\d{2}/);
    await checkLayout(page, 'admin-payouts-requested');

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await offscreen(page, '#my-payouts td.amount, #my-payouts td.status, #my-payouts button')).to.deep.equal([]);
    expect(await page.locator('#my-payouts button').first().isVisible()).to.equal(true);
    await page.screenshot({ path: 'test/e2e/screenshots/admin-payouts-390-cards.png', fullPage: true });
  });

  it('/admin/orders at 390 px keeps every amount and status on screen', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await page.click('#buy-tomyum-kit');
    await page.waitForSelector('#pay-submit');
    await page.click('#pay-submit');
    await page.waitForSelector('#window-form');
    await page.check('#method-CARD');
    await Promise.all([page.waitForURL(signedOrderPage(shopUrl)), page.click('#approve')]);
    await loginAsAdmin(e2e, '/admin/orders');
    await checkLayout(page, 'admin-orders-cards');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('#admin-orders td.amount').count()).to.be.above(0);
    expect(await offscreen(page, '#admin-orders td.amount, #admin-orders td.status')).to.deep.equal([]);
  });

  it('an invalid query date is named with the particle that fits it, never 은(는)', async () => {
    const { page, shopUrl } = e2e;
    await loginAsAdmin(e2e, '/admin/payouts?date=2026-13-45');
    const message = (await page.textContent('#date-error'))!;
    expect(message).to.include('"2026-13-45"는 올바른 날짜').and.not.include('은(는)');
    await page.goto(`${shopUrl}/admin/payouts?date=202611231`);
    expect(await page.textContent('#date-error')).to.include('"202611231"은 올바른 날짜');
  });
});
