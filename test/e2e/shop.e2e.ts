/**
 * The example shop in a real browser: product page → checkout → the sandbox's payment window
 * → the window's auto-post back (EUC-KR) → the shop's Korean result page.
 */
import { expect } from 'chai';
import type { PayMethod } from '../../src/index.js';
import { useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: example shop in Chromium (payment window)', () => {
  const e2e = useShopInBrowser();

  /** Buys a product and stops on the sandbox window; returns the order's Moid. */
  async function openWindow(productId: string): Promise<string> {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await page.click(`#buy-${productId}`);
    await page.waitForSelector('#pay-submit');
    expect(page.url()).to.match(/\/checkout\/ORD\w+\?t=[\w-]{22}$/); // post/redirect/get, a signed order link
    const moid = (await page.textContent('#order-moid'))!.trim();
    await page.click('#pay-submit');
    await page.waitForSelector('#window-form');
    expect(await page.textContent('#moid')).to.equal(moid);
    return moid;
  }

  /** Picks a method in the window and presses 결제하기 (or 취소); waits for the shop's result page. */
  async function pay(method: PayMethod, action: 'approve' | 'cancel' = 'approve'): Promise<string> {
    const { page, shopUrl } = e2e;
    await page.check(`#method-${method}`);
    await Promise.all([
      page.waitForURL(new RegExp(`^${shopUrl}/orders/ORD\\w+(\\?t=[\\w-]{22})?$`)),
      page.click(`#${action}`),
    ]);
    await page.waitForSelector('#result-status');
    return (await page.getAttribute('#result-status', 'data-status'))!;
  }

  it('card: approved, amount in won, the CP949-only goods name intact through the window', async () => {
    const moid = await openWindow('tomyum-kit');
    const { page } = e2e;
    expect(await page.textContent('#goods-name')).to.equal('똠얌꿍 밀키트');
    expect(await pay('CARD')).to.equal('approved');
    expect((await page.textContent('#result-status'))!.trim()).to.equal('결제가 완료되었습니다');
    expect(await page.textContent('#result-amount')).to.equal('12,000원');
    expect(await page.textContent('#result-goods')).to.equal('똠얌꿍 밀키트');
    expect(await page.textContent('#result-moid')).to.equal(moid);
    expect(await page.textContent('#card-number')).to.match(/^\d+\*+\d+$/);
    expect(e2e.shop.db.order(moid)).to.include({ status: 'paid', method: 'CARD' });
    await checkLayout(page, 'result-card');
    // Refresh and Back are harmless: the result is a GET; the checkout page says it is paid.
    await page.reload();
    expect(await page.getAttribute('#result-status', 'data-status')).to.equal('approved');
    // Back past the gateway's own pages lands on the order's checkout page, a GET:
    await page.goto(`${e2e.shopUrl}/checkout/${moid}`);
    await page.waitForSelector('#order-moid');
    expect(await page.textContent('#order-paid')).to.equal('이미 결제가 완료된 주문입니다');
    expect(await page.locator('#pay-form').count()).to.equal(0);
    const tid = e2e.shop.db.order(moid)!.tid!;
    expect(e2e.sandbox.ledger.get(tid)!.approvalCalls).to.equal(1);
    expect(e2e.sandbox.ledger.get(tid)).to.include({ status: 'approved', goodsName: '똠얌꿍 밀키트', amount: 12_000 });
  });

  it('virtual account: the awaiting-deposit page with the account and deadline', async () => {
    const moid = await openWindow('kimchi');
    const { page } = e2e;
    expect(await pay('VBANK')).to.equal('awaiting-deposit');
    expect(await page.textContent('#result-status')).to.include('가상계좌가 발급되었습니다');
    expect(await page.textContent('#result-amount')).to.equal('23,000원');
    expect(await page.textContent('#vbank-account')).to.match(/^\d{10,}$/);
    expect(await page.textContent('#vbank-bank')).to.match(/은행$/);
    expect(await page.textContent('#vbank-deadline')).to.match(/23:59까지$/);
    expect(e2e.shop.db.order(moid)).to.include({ status: 'awaiting-deposit', method: 'VBANK' });
    await checkLayout(page, 'result-vbank');
  });

  it('bank transfer: approved with the bank name', async () => {
    const moid = await openWindow('haeng-mug');
    const { page } = e2e;
    expect(await page.textContent('#goods-name')).to.equal('햏 머그컵');
    expect(await pay('BANK')).to.equal('approved');
    expect(await page.textContent('#result-amount')).to.equal('8,900원');
    expect(await page.textContent('#result-goods')).to.equal('햏 머그컵');
    expect(await page.textContent('#bank-name')).to.match(/은행$/);
    expect(e2e.shop.db.order(moid)).to.include({ status: 'paid', method: 'BANK' });
  });

  it('cellphone: approved', async () => {
    const moid = await openWindow('jeju-tea');
    const { page } = e2e;
    expect(await pay('CELLPHONE')).to.equal('approved');
    expect(await page.textContent('#result-method')).to.equal('휴대폰');
    expect(await page.textContent('#result-amount')).to.equal('15,500원');
    expect(e2e.shop.db.order(moid)).to.include({ status: 'paid', method: 'CELLPHONE' });
  });

  it('the buyer cancels in the window: the cancel page, the order stays payable, and the buyer can try again', async () => {
    const moid = await openWindow('jeju-tea');
    const { page } = e2e;
    await checkLayout(page, 'checkout');
    expect(await pay('CARD', 'cancel')).to.equal('auth-failed');
    expect((await page.textContent('#result-status'))!.trim()).to.equal('결제가 취소되었습니다');
    // The shop's own words: the posted AuthResultMsg is unverified and never shown.
    expect(await page.textContent('#result-message')).to.equal('결제창에서 결제를 마치지 않았습니다.');
    expect(await page.textContent('#result-amount')).to.equal('15,500원');
    expect(e2e.shop.db.order(moid)).to.include({ status: 'pending', tid: null });
    await checkLayout(page, 'result-cancelled');
    await page.click('#retry');
    await page.waitForSelector('#pay-submit');
    expect((await page.textContent('#order-moid'))!.trim()).to.equal(moid);
  });

  it('every buyer page fits 1,100 px and 390 px, and the navigation reaches key-in and the back office', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(shopUrl);
    await checkLayout(page, 'products');
    expect(await page.getAttribute('#nav-keyin', 'href')).to.equal('/keyin');
    expect(await page.getAttribute('#nav-admin', 'href')).to.equal('/admin');
    await page.click('#nav-keyin');
    await page.waitForSelector('#keyin-order-form');
    await page.goto(`${shopUrl}/no/such/page`);
    await checkLayout(page, 'not-found');
  });

  it("the orders page lists this browser's orders, and only them, with Korean statuses", async () => {
    const { page, shopUrl } = e2e;
    const other = e2e.shop.db.createOrder(e2e.shop.db.product('kimchi')!, {
      name: '다른 구매자',
      email: 'other@example.com',
      tel: '01000000000',
    });
    const mine = [];
    for (const [method, action] of [
      ['CARD', 'approve'],
      ['VBANK', 'approve'],
      ['CARD', 'cancel'],
    ] as const) {
      mine.push(await openWindow('jeju-tea'));
      await pay(method, action);
    }
    await page.goto(shopUrl);
    await page.click('#nav-orders');
    await page.waitForSelector('#orders');
    expect(await page.locator('#orders tbody tr').count()).to.equal(mine.length);
    expect(await page.locator(`#orders tr[data-moid="${other.moid}"]`).count()).to.equal(0);
    for (const moid of mine) {
      const o = e2e.shop.db.order(moid)!;
      const row = page.locator(`#orders tr[data-moid="${o.moid}"]`);
      expect(await row.getAttribute('data-status')).to.equal(o.status);
      expect(await row.locator('.amount').textContent()).to.equal(`${o.amount.toLocaleString('en-US')}원`);
    }
    const statuses = await page.locator('#orders .status').allTextContents();
    expect(statuses).to.include.members(['결제 완료', '입금 대기', '구매자 취소']);
    await checkLayout(page, 'orders');
  });
});
