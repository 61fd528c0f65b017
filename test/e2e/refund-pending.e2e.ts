/**
 * A refund NICEPAY only accepted, as buyer and operator see it in Chromium at 1,100 px and
 * 390 px: a paid virtual account refunded to a bank account the operator picked by name is
 * "환불 접수 (지급 전)" on the buyer's page, in the buyer's order list and in the back office,
 * until the operator records its payout; then both say it was paid out to the refund account.
 * Cancelling an unpaid virtual account reads as a cancel.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { buyInWindow, loginAsAdmin, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: a refund accepted but not paid out is said so until its payout is recorded', () => {
  const e2e = useShopInBrowser();
  const text = async (page: Page, selector: string): Promise<string> => (await page.textContent(selector))!.trim();

  it('a paid virtual account refunded to an account: 지급 전 for the buyer and the operator, then 지급 완료 once recorded', async () => {
    const { page, shopUrl, shop, sandbox } = e2e;
    const moid = await buyInWindow(e2e, 'jeju-tea', 'VBANK');
    const buyerPage = page.url();
    // The buyer pays into the account (the sandbox's deposit; its notice makes the order paid).
    await Promise.all([page.waitForURL(`${shopUrl}/orders/${moid}`), page.click('#sandbox-deposit')]);
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('paid');

    // The operator refunds it in full to the buyer's account, the bank picked by its name.
    await loginAsAdmin(e2e, `/admin/orders/${moid}`);
    expect(await page.locator('#refund-bank option[value="004"]').textContent()).to.equal('KB국민은행 (004)');
    await page.selectOption('#refund-bank', '004');
    await page.fill('#refund-number', '12345678901234');
    await page.fill('#refund-holder', '홍길동');
    await page.click('#refund-submit');
    await page.waitForSelector('#confirm-form');
    expect(await text(page, '#confirm-summary'))
      .to.include('KB국민은행 (004) ****1234 (홍길동)')
      .and.include('지급 전');
    await checkLayout(page, 'pending-refund-confirm');
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');
    expect(await text(page, '#admin-ok')).to.include('환불이 접수되었습니다 (지급 전)');
    expect(await text(page, '#admin-order-status')).to.equal('전액 환불 접수 (지급 전)');
    expect(await text(page, '#admin-order-refund-pending')).to.equal('15,500원');
    expect(await page.getAttribute('#refunds tbody tr', 'data-payout')).to.equal('pending');
    await checkLayout(page, 'pending-refund-admin-order');

    await page.click('#admin-nav-orders');
    const row = page.locator(`#admin-orders tr[data-moid="${moid}"]`);
    expect(await row.getAttribute('data-status')).to.equal('refund-pending');
    expect(await text(page, `#admin-orders tr[data-moid="${moid}"] td.status`)).to.equal('전액 환불 접수 (지급 전)');
    await checkLayout(page, 'pending-refund-admin-orders');

    // The buyer's page and order list: accepted, not done; nothing says the money is back.
    await page.goto(buyerPage);
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('refund-pending');
    expect(await text(page, '#result-status')).to.equal('환불이 접수되었습니다 (지급 전)');
    expect(await text(page, '#result-refund-payout')).to.equal('지급 전 (15,500원)');
    const body = (await page.textContent('main'))!;
    expect(body).to.not.include('전액 환불되었습니다').and.not.include('결제수단으로 돌아갑니다');
    await checkLayout(page, 'pending-refund-result');
    await page.click('#nav-orders');
    expect(await text(page, `#orders tr[data-moid="${moid}"] td.status`)).to.equal('전액 환불 접수 (지급 전)');
    await checkLayout(page, 'pending-refund-orders');

    // The operator saw the payout in NICEPAY's merchant admin and records it: nothing is sent.
    const cancels = sandbox.ledger.get(shop.db.order(moid)!.tid!)!.cancels!.length;
    await page.goto(`${shopUrl}/admin/orders/${moid}`);
    await page.click('#refunds button[id^="paid-out-"]');
    await page.waitForSelector('#admin-ok');
    expect(await text(page, '#admin-order-status')).to.equal('전액 환불');
    expect(await page.getAttribute('#refunds tbody tr', 'data-payout')).to.equal('paid');
    expect(sandbox.ledger.get(shop.db.order(moid)!.tid!)!.cancels!.length).to.equal(cancels);
    await page.goto(buyerPage);
    expect(await text(page, '#result-status')).to.equal('결제가 취소되어 전액 환불되었습니다');
    expect(await text(page, '#result-note')).to.equal('15,500원이 환불 계좌로 지급되었습니다.');
    await checkLayout(page, 'pending-refund-paid-out');
  });

  it('an unpaid virtual account is cancelled in the words of a cancel', async () => {
    const { page } = e2e;
    const moid = await buyInWindow(e2e, 'haeng-mug', 'VBANK');
    await loginAsAdmin(e2e, `/admin/orders/${moid}`);
    expect(await text(page, '#refund-form h2')).to.equal('주문 취소 (입금 전 가상계좌: 전액)');
    await page.click('#refund-submit');
    await page.waitForSelector('#confirm-form');
    expect(await text(page, '#confirm-submit')).to.equal('확인, 주문을 취소합니다');
    expect(await text(page, '#confirm-summary'))
      .to.include('입금 전에 취소합니다')
      .and.not.include('환불합니다');
    await checkLayout(page, 'vbank-cancel-confirm');
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');
    expect(await text(page, '#admin-order-status')).to.equal('주문 취소');
    expect(await page.textContent('#admin-order'))
      .to.include('취소한 금액')
      .and.not.include('환불한 금액');
  });
});
