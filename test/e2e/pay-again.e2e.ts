/**
 * A buyer whose payment's answer was lost, in a real browser: while the package settles the
 * approval the order's pages offer no second window; once the package reversed it, the gateway
 * takes no payment for that order number any more, and the page's 새 주문으로 결제하기 orders
 * the same product anew, which the buyer pays.
 */
import { expect } from 'chai';
import { openWindowFor, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: paying again after a payment whose answer was lost', () => {
  const e2e = useShopInBrowser({ nicepay: { settle: { intervalMs: 3_600_000 } } });

  it('no window while it is checked; after the reversal a new order of the same product is paid', async () => {
    const { page, shopUrl, sandbox, shop } = e2e;
    const moid = await openWindowFor(e2e, 'kimchi');
    sandbox.faults.inject({ target: 'approve', kind: 'status-500', commit: true });
    sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    await Promise.all([page.waitForSelector('#error-ref'), page.click('#approve')]);

    await page.goto(`${shopUrl}/checkout/${moid}`);
    await page.waitForSelector('#order-checking');
    expect(await page.locator('#pay-submit').count()).to.equal(0);
    await checkLayout(page, 'pay-again-checking');

    expect((await shop.nicepay.settle()).settled.map((s) => s.outcome)).to.deep.equal(['reversed']);
    await page.goto(`${shopUrl}/orders/${moid}`);
    expect(await page.textContent('h1')).to.equal('이 주문번호로는 다시 결제할 수 없습니다');
    await checkLayout(page, 'pay-again-spent');
    await Promise.all([page.waitForURL(/\/checkout\/ORD\w+\?t=/), page.click('#retry')]);
    const next = (await page.textContent('#order-moid'))!.trim();
    expect(next).to.not.equal(moid);
    await page.click('#pay-submit');
    await page.waitForSelector('#window-form');
    await page.check('#method-CARD');
    await Promise.all([page.waitForURL((u) => u.pathname === `/orders/${next}`), page.click('#approve')]);
    expect(await page.getAttribute('#result-status', 'data-status')).to.equal('approved');
    expect(sandbox.ledger.committed().filter((e) => e.moid === next)).to.have.length(1);
  });
});
