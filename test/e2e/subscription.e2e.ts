/**
 * The example shop's subscription and cash receipt in a real browser: a buyer reaches the plan
 * from the navigation and registers a card, the back office (reached from its navigation)
 * charges this month (once, however often it is clicked), the buyer's page shows the month
 * paid, or not paid when the card company declines; the card is removed; a cash receipt is
 * issued for a bank-transfer order.
 */
import { expect } from 'chai';
import { billingDb } from '../../example-app/db-billing.js';
import { TEST_MERCHANTS } from '../../src/sandbox/index.js';
import { landOn, loginAsAdmin, signedOrderPage, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: example shop in Chromium (subscription and cash receipt)', () => {
  const e2e = useShopInBrowser();
  const billingCharges = () => e2e.sandbox.ledger.entries().filter((e) => e.extra.service === 'billing');

  it('registers a card, charges this month once whatever is clicked, shows the charge to the buyer, removes the card', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await page.click('#nav-subscription');
    await page.waitForSelector('#subscription-form');
    await page.fill('#sub-card-number', '4111-1111-1111-1111');
    await page.fill('#sub-card-expiry', '3012');
    await checkLayout(page, 'subscription-form');
    await Promise.all([page.waitForURL(/\/subscription\/\d+\?t=[\w-]{22}$/), page.click('#subscription-submit')]);
    expect(await page.getAttribute('#subscription-status', 'data-status')).to.equal('active');
    expect(await page.textContent('#subscription-card')).to.include('신한');
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    // The shop's first test merchant, as the harness creates it.
    const bid = billingDb(e2e.shop.db, TEST_MERCHANTS[0]!.merchantKey).bidOf(id)!;
    expect(bid).to.match(/^BIKY/);
    const content = await page.content();
    expect(content).to.not.include(bid);
    expect(content).to.not.include('4111111111111111');

    const buyerPage = page.url();
    expect(await page.getAttribute('#subscription-status', 'data-month')).to.equal('not-charged');
    await loginAsAdmin(e2e, '/admin');
    await page.click('#admin-nav-billing');
    await page.waitForSelector('#subscriptions');
    await landOn(page, '/admin/billing', () => page.click(`#charge-${id}`));
    expect(await page.textContent('#admin-ok')).to.include('29,900원');
    // "Charge this month" again, and once more: the same month, nothing sent.
    await landOn(page, '/admin/billing', () => page.click(`#charge-${id}`));
    expect(await page.textContent('#admin-ok')).to.include('이미 청구했습니다');
    await landOn(page, '/admin/billing', () => page.click(`#charge-${id}`));
    expect(billingCharges()).to.have.length(1);
    expect(billingCharges()[0]).to.include({ status: 'approved', amount: 29_900, approvalCalls: 1 });
    expect(await page.textContent(`tr[data-subscription="${id}"] .month-status`)).to.include('결제 완료');
    // The charges: one row for the month, with the gateway's TID.
    expect(await page.locator('#subscription-charges tbody tr').count()).to.equal(1);
    expect(await page.textContent('#subscription-charges .tid')).to.equal(billingCharges()[0]!.tid);
    expect(await page.content()).to.not.include(bid);
    await checkLayout(page, 'admin-subscriptions');

    // The buyer's page: the month paid, and the charge listed.
    await page.goto(buyerPage);
    expect(await page.getAttribute('#subscription-status', 'data-month')).to.equal('paid');
    expect((await page.textContent('#subscription-status'))!).to.match(/^구독 중입니다 · \d+월 결제 완료$/);
    expect(await page.locator('#charges tbody tr').count()).to.equal(1);
    expect(await page.textContent('#charges td.amount')).to.equal('29,900원');
    await checkLayout(page, 'subscription-paid');
    await page.goto(`${shopUrl}/admin/billing`);

    await landOn(page, '/admin/billing', () => page.click(`#remove-${id}`));
    expect(await page.getAttribute(`tr[data-subscription="${id}"]`, 'data-status')).to.equal('removed');
    expect(await page.locator(`#charge-${id}`).count()).to.equal(0);
  });

  it("a declined month is said on the buyer's page, never '구독 중입니다', and the operator may charge it again", async () => {
    const { page, shopUrl } = e2e;
    await page.goto(`${shopUrl}/subscription`);
    await page.fill('#sub-card-number', '4000000000009995'); // registers; every charge is declined (limit)
    await page.fill('#sub-card-expiry', '3012');
    await Promise.all([page.waitForURL(/\/subscription\/\d+\?t=[\w-]{22}$/), page.click('#subscription-submit')]);
    const buyerPage = page.url();
    const id = Number(new URL(buyerPage).pathname.split('/').pop());
    await loginAsAdmin(e2e, '/admin/billing');
    await landOn(page, '/admin/billing', () => page.click(`#charge-${id}`));
    expect(await page.textContent('#admin-error')).to.include('결제가 거절되었습니다');
    expect(await page.textContent(`tr[data-subscription="${id}"] .month-status`)).to.include('결제 거절');
    // Tried again: a second attempt under a new Moid, declined too.
    await landOn(page, '/admin/billing', () => page.click(`#charge-${id}`));
    const attempts = billingCharges()
      .filter((e) => e.moid.startsWith(`SUB-${id}-`))
      .map((e) => e.moid);
    expect(attempts).to.have.length(2);
    expect(attempts[1]).to.equal(`${attempts[0]}-2`);

    await page.goto(buyerPage);
    expect(await page.getAttribute('#subscription-status', 'data-month')).to.equal('declined');
    expect((await page.textContent('#subscription-status'))!).to.match(/^\d+월 구독료가 결제되지 않았습니다$/);
    expect(await page.textContent('#subscription-note')).to.include('카드사가 결제를 거절했습니다');
    expect(await page.locator('#charges tbody tr[data-status="declined"]').count()).to.equal(2);
    expect(await page.textContent('main')).to.not.include('구독 중입니다');
    await checkLayout(page, 'subscription-declined');
  });

  it('issues a cash receipt for a bank-transfer order from the back office', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await page.click('#buy-haeng-mug');
    await page.click('#pay-submit');
    await page.waitForSelector('#window-form');
    await page.check('#method-BANK');
    await Promise.all([page.waitForURL(signedOrderPage(shopUrl)), page.click('#approve')]);
    const moid = new URL(page.url()).pathname.split('/').pop()!;

    await loginAsAdmin(e2e, '/admin/billing/receipts');
    const row = page.locator(`#bank-orders tr[data-moid="${moid}"]`);
    await row.locator('select[name=type]').selectOption('income-deduction');
    await row.locator('input[name=identity]').fill('010-1234-5678');
    await landOn(page, '/admin/billing/receipts', () => row.locator('button[type=submit]').click());
    expect(await page.textContent('#admin-ok')).to.include('현금영수증을 발급했습니다');
    expect(await row.locator('.receipt-status').textContent()).to.include('발급');
    const issued = e2e.sandbox.dataHost.cashReceipts().filter((r) => r.orgSvcCd === '04');
    expect(issued).to.have.length(1);
    expect(issued[0]).to.include({ moid, goodsAmt: 8_900 });
    await checkLayout(page, 'admin-cash-receipts');
  });
});
