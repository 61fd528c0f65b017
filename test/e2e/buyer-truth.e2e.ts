/**
 * The buyer's pages tell the truth, in Chromium at 1,100 px and 390 px: every page takes its
 * headline from the order's one state (refunded, partly refunded and cancelled are said first;
 * a cancelled virtual account shows no account to pay into), the awaiting-deposit page offers
 * the sandbox's deposit, a checkout mistake re-renders the form, and on a phone the order
 * list's amount and status stay on screen with identifiers whole.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { buyInWindow, useShopInBrowser } from './harness.js';
import { brokenOverLines, checkLayout } from './layout.js';

describe('e2e: the buyer pages say what became of the order', () => {
  const e2e = useShopInBrowser();

  const buy = (productId: string, method: 'CARD' | 'VBANK'): Promise<string> => buyInWindow(e2e, productId, method);

  /** Cancels `amount` of the order at the gateway and records it, as the back office's refund does. */
  async function refund(moid: string, amount: number): Promise<void> {
    const o = e2e.shop.db.order(moid)!;
    const r = await e2e.shop.nicepay.cancel({
      tid: o.tid!,
      moid,
      amount,
      reason: '고객 요청',
      partial: amount < o.amount - o.refundedAmount,
      remainingAmount: o.amount - o.refundedAmount,
    });
    expect(r.status).to.equal('cancelled');
    e2e.shop.db.addRefund(moid, amount);
  }

  const text = async (page: Page, selector: string): Promise<string> => (await page.textContent(selector))!.trim();

  it('a fully refunded card order says so first, on its result page, its payment page and the order list', async () => {
    const { page, shopUrl } = e2e;
    const moid = await buy('tomyum-kit', 'CARD');
    await refund(moid, 12_000);
    await page.goto(`${shopUrl}/orders/${moid}`);
    expect(await text(page, '#result-status')).to.equal('결제가 취소되어 전액 환불되었습니다');
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('refunded');
    expect(await page.textContent('body')).to.not.include('결제가 완료되었습니다');
    expect(await text(page, '#result-refunded')).to.equal('12,000원 (전액)');
    await checkLayout(page, 'truth-result-refunded');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(
      await brokenOverLines(page, '#result-moid, #card-number, #approved-at'),
      'identifiers and dates whole at 390 px',
    ).to.deep.equal([]);
    await page.setViewportSize({ width: 1100, height: 900 });

    await page.goto(`${shopUrl}/checkout/${moid}`);
    expect(await text(page, '#order-paid')).to.equal('결제가 취소되어 전액 환불된 주문입니다');
    expect(await page.locator('#pay-form').count()).to.equal(0);
    await checkLayout(page, 'truth-checkout-refunded');

    await page.goto(`${shopUrl}/orders`);
    const row = page.locator(`#orders tr[data-moid="${moid}"]`);
    expect(await row.getAttribute('data-display')).to.equal('refunded');
    expect(await text(page, `#orders tr[data-moid="${moid}"] td.status`)).to.equal('전액 환불');
  });

  it('a partly refunded order leads with the refund and the amount still paid', async () => {
    const { page, shopUrl } = e2e;
    const moid = await buy('jeju-tea', 'CARD');
    await refund(moid, 5_500);
    await page.goto(`${shopUrl}/orders/${moid}`);
    expect(await text(page, '#result-status')).to.equal('결제 금액 중 5,500원이 환불되었습니다');
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('partially-refunded');
    expect(await text(page, '#result-note')).to.equal('남은 결제 금액은 10,000원입니다.');
    await checkLayout(page, 'truth-result-partly-refunded');
    await page.goto(`${shopUrl}/checkout/${moid}`);
    expect(await text(page, '#order-paid')).to.equal('일부 환불된 주문입니다');
  });

  it('a virtual account cancelled before its deposit shows no account to pay into, here or at /checkout', async () => {
    const { page, shopUrl, shop } = e2e;
    const moid = await buy('kimchi', 'VBANK');
    const account = await text(page, '#vbank-account');
    expect(account).to.match(/^\d{10,}$/);
    await refund(moid, 23_000);
    await page.goto(`${shopUrl}/orders/${moid}`);
    expect(await text(page, '#result-status')).to.equal('주문이 취소되었습니다');
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('cancelled');
    expect(await text(page, '#result-note')).to.include('입금하지 마세요');
    const body = (await page.textContent('body'))!;
    expect(body).to.not.include(account);
    expect(body).to.not.include('입금해 주시면');
    expect(await page.locator('#vbank-account, #vbank-deadline, #sandbox-deposit').count()).to.equal(0);
    await checkLayout(page, 'truth-result-vbank-cancelled');

    await page.goto(`${shopUrl}/checkout/${moid}`);
    expect(await text(page, '#order-paid')).to.equal('취소된 주문입니다. 입금하거나 다시 결제할 수 없습니다');
    expect((await page.textContent('body'))!).to.not.include('가상계좌가 발급된');
    expect(shop.db.order(moid)).to.include({ status: 'awaiting-deposit', refundedAmount: 23_000 });
  });

  it("in sandbox mode the awaiting-deposit page offers the deposit, and the gateway's notice makes it paid", async () => {
    const { page, shop, shopUrl } = e2e;
    const moid = await buy('haeng-mug', 'VBANK');
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('awaiting-deposit');
    await checkLayout(page, 'truth-result-vbank-awaiting');
    // the deposit answers with the order's plain page: this browser owns the order
    await Promise.all([page.waitForURL(`${shopUrl}/orders/${moid}`), page.click('#sandbox-deposit')]);
    expect(await text(page, '#result-status')).to.equal('입금이 확인되어 결제가 완료되었습니다');
    expect(await page.getAttribute('#result-status', 'data-state')).to.equal('paid');
    expect(await page.locator('#sandbox-deposit').count()).to.equal(0);
    expect(shop.db.order(moid)).to.include({ status: 'paid' });
  });

  it('a checkout mistake re-renders the form with the values typed and the mistaken field marked', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await page.fill('#buyer-email', 'hong@example.com');
    await page.fill('#buyer-tel', '010-12ab');
    await Promise.all([page.waitForURL(`${shopUrl}/checkout`), page.click('#buy-haeng-mug')]);
    expect(await text(page, '#form-error')).to.include('휴대폰 번호는 숫자로 입력해 주세요.');
    expect(await page.getAttribute('#buyer-tel', 'aria-invalid')).to.equal('true');
    expect(await text(page, '#buyer-tel-error')).to.equal('휴대폰 번호는 숫자로 입력해 주세요.');
    expect(await page.getAttribute('#buyer-email', 'aria-invalid')).to.equal(null);
    expect(await page.inputValue('#buyer-email')).to.equal('hong@example.com');
    expect(await page.inputValue('#buyer-tel')).to.equal('010-12ab');
    expect(await page.inputValue('#buyer-name')).to.equal('홍길동');
    await checkLayout(page, 'truth-checkout-mistake');
    // corrected, the same form goes on to the order's payment page
    await page.fill('#buyer-tel', '010-1234-5678');
    await page.click('#buy-haeng-mug');
    await page.waitForSelector('#pay-submit');
  });

  it('every page has the favicon (no 404 in the console)', async () => {
    const { page, shopUrl } = e2e;
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(shopUrl);
    await page.goto(`${shopUrl}/orders`);
    const icon = await page.request.get(`${shopUrl}/favicon.ico`);
    expect(icon.status()).to.equal(200);
    expect(icon.headers()['content-type']).to.include('image/svg+xml');
    expect(await page.getAttribute('link[rel=icon]', 'href')).to.equal('/favicon.svg');
    expect(failed).to.deep.equal([]);
  });

  describe('at 390 px', () => {
    it('the buyer form is on the first screen, above the products', async () => {
      const { page, shopUrl } = e2e;
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(shopUrl);
      const name = (await page.locator('#buyer-name').boundingBox())!;
      expect(name.y + name.height, 'the name field is visible without scrolling').to.be.below(844);
      const firstProduct = (await page.locator('#products li').first().boundingBox())!;
      expect(name.y).to.be.below(firstProduct.y);
      await checkLayout(page, 'truth-products');
    });

    it('/orders keeps every amount and status on screen, dates on one line, order numbers and TIDs whole', async () => {
      const { page, shopUrl } = e2e;
      // this browser's own orders: one paid by card, one partly refunded, one awaiting its deposit
      await buy('tomyum-kit', 'CARD');
      await refund(await buy('jeju-tea', 'CARD'), 500);
      await buy('kimchi', 'VBANK');
      await page.goto(`${shopUrl}/orders`);
      await checkLayout(page, 'truth-orders');
      await page.setViewportSize({ width: 390, height: 844 });
      const facts = await page.evaluate(() => {
        const g = globalThis as any;
        const out: { offscreen: string[] } = { offscreen: [] };
        for (const cell of g.document.querySelectorAll('#orders td.amount, #orders td.status')) {
          const r = cell.getBoundingClientRect();
          if (r.width === 0 || r.right > g.innerWidth || r.left < 0) out.offscreen.push(cell.textContent.trim());
        }
        return out;
      });
      expect(await page.locator('#orders tbody tr').count()).to.be.at.least(3);
      expect(facts.offscreen, 'amount or status cells off screen').to.deep.equal([]);
      expect(
        await brokenOverLines(page, '#orders td.moid a, #orders td.tid, #orders td.date'),
        'identifiers or dates broken over lines',
      ).to.deep.equal([]);
      await page.screenshot({ path: 'test/e2e/screenshots/truth-orders-390-cards.png', fullPage: false });
    });
  });
});
