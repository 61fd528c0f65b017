/**
 * The sandbox window's 승인 거절 시험 button in a real browser: a person can try the shop's
 * decline path by hand. The window authenticates (0000, a token), the browser posts the return
 * with no charset parameter, the shop's approval is refused as an issuer would refuse it, and the
 * browser lands on the order's page (post/redirect/get).
 */
import { expect } from 'chai';
import { openWindowFor, useShopInBrowser } from './harness.js';

describe('e2e: the payment window lets a person pick a decline', () => {
  const e2e = useShopInBrowser();

  it('승인 거절 시험: the shop shows the refusal, the order is declined and nothing is charged', async () => {
    const { page, shopUrl } = e2e;
    const moid = await openWindowFor(e2e, 'kimchi');
    await page.check('#method-CARD');
    await Promise.all([
      page.waitForURL(new RegExp(`^${shopUrl}/orders/ORD\\w+(\\?t=[\\w-]{22})?$`)),
      page.click('#decline'),
    ]);
    await page.waitForSelector('#result-status');
    expect(await page.getAttribute('#result-status', 'data-status')).to.equal('declined');
    // Buyers read Korean, never the gateway's code: the code goes to the log.
    expect(await page.textContent('#result-status')).to.equal('결제가 거절되었습니다');
    expect(await page.content()).not.to.include('3011');
    expect(e2e.shop.db.order(moid)).to.include({ status: 'declined', tid: null });
    expect(e2e.sandbox.ledger.committed().filter((e) => e.moid === moid)).to.have.length(0);
    expect(e2e.sandbox.ledger.entries().find((e) => e.moid === moid)?.status).to.equal('declined');
  });
});
