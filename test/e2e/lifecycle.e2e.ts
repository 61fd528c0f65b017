/**
 * In a real browser: a virtual-account order from the window to paid (the back
 * office's deposit button drives sandbox.deposit, whose notice reaches the shop's
 * /pay/notify), and a card refund in two steps, each behind the login and its confirmation.
 */
import { expect } from 'chai';
import { buyInWindow, loginAsAdmin, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: example shop in Chromium (virtual account deposit and refunds)', () => {
  const e2e = useShopInBrowser();

  const buy = (productId: string, method: 'CARD' | 'VBANK'): Promise<string> => buyInWindow(e2e, productId, method);

  it('order → account issued → back-office deposit → order paid', async () => {
    const { page, shopUrl, shop, sandbox } = e2e;
    const moid = await buy('kimchi', 'VBANK');
    expect(await page.getAttribute('#result-status', 'data-status')).to.equal('awaiting-deposit');
    expect(await page.textContent('#vbank-account')).to.match(/^\d{10,}$/);

    await loginAsAdmin(e2e, '/admin/orders');
    await checkLayout(page, 'admin-orders');
    const row = page.locator(`#admin-orders tr[data-moid="${moid}"]`);
    expect(await row.getAttribute('data-status')).to.equal('awaiting-deposit');
    await row.locator('a').click();
    await page.waitForSelector('#deposit-form');
    await checkLayout(page, 'admin-order-vbank');
    await page.click('#deposit-submit');
    await page.waitForSelector('#admin-ok');
    expect(await page.textContent('#admin-order-status')).to.equal('결제 완료');
    expect(shop.db.order(moid)).to.include({ status: 'paid' });
    expect(sandbox.ledger.get(shop.db.order(moid)!.tid!)!.notices!.map((n) => n.answer)).to.deep.equal(['OK']);

    // The buyer's result page now says paid.
    await page.goto(`${shopUrl}/orders/${moid}`);
    expect((await page.textContent('#result-status'))!.trim()).to.equal('입금이 확인되어 결제가 완료되었습니다');
    await checkLayout(page, 'result-vbank-paid');
  });

  it('refunds a card partly, then in full, showing the remaining amount', async () => {
    const { page, shop, sandbox } = e2e;
    const moid = await buy('tomyum-kit', 'CARD');
    await loginAsAdmin(e2e, `/admin/orders/${moid}`);
    await page.fill('#refund-amount', '2000');
    await page.fill('#refund-reason', '일부 품절');
    await page.click('#refund-submit');
    await page.waitForSelector('#confirm-form');
    expect(await page.textContent('#confirm-amount')).to.equal('2,000원');
    await checkLayout(page, 'admin-refund-confirm');
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');
    expect(await page.textContent('#admin-order-remaining')).to.equal('10,000원');
    await checkLayout(page, 'admin-order-card');

    // The form offers the rest; refund it in full.
    expect(await page.inputValue('#refund-amount')).to.equal('10000');
    await page.click('#refund-submit');
    await page.waitForSelector('#confirm-form');
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');
    expect(await page.textContent('#admin-order-remaining')).to.equal('0원');
    expect(await page.locator('#refund-form').count()).to.equal(0);
    const tid = shop.db.order(moid)!.tid!;
    expect(sandbox.ledger.get(tid)!.cancels!.map((c) => c.amount)).to.deep.equal([2_000, 10_000]);
    expect(sandbox.ledger.get(tid)!.status).to.equal('cancelled');
  });
});
