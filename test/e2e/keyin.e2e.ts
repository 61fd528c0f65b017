/** The key-in page in a real browser: pick a product, type a sandbox test card, see the result. */
import { expect } from 'chai';
import { useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: example shop in Chromium (card key-in)', () => {
  const e2e = useShopInBrowser();

  async function keyin(productId: string, cardNumber: string): Promise<string> {
    const { page, shopUrl } = e2e;
    await page.goto(`${shopUrl}/keyin`);
    await page.click(`#keyin-buy-${productId}`);
    await page.waitForSelector('#keyin-form');
    expect(await page.textContent('#test-cards')).to.include('4111-1111-1111-1111');
    const moid = (await page.textContent('#order-moid'))!.trim();
    await page.fill('#card-number-input', cardNumber);
    await page.fill('#card-expiry', '3012');
    await checkLayout(page, 'keyin-form');
    await Promise.all([
      page.waitForURL(new RegExp(`^${shopUrl}/orders/${moid}(\\?t=[\\w-]{22})?$`)),
      page.click('#keyin-submit'),
    ]);
    await page.waitForSelector('#result-status');
    return moid;
  }

  it('an approved card: 결제가 완료되었습니다 with the amount in won', async () => {
    const moid = await keyin('tomyum-kit', '4111-1111-1111-1111');
    const { page } = e2e;
    expect((await page.textContent('#result-status'))!.trim()).to.equal('결제가 완료되었습니다');
    expect(await page.textContent('#result-amount')).to.equal('12,000원');
    expect(await page.textContent('#result-goods')).to.equal('똠얌꿍 밀키트');
    expect(await page.content()).to.not.include('4111111111111111');
    expect(e2e.shop.db.order(moid)).to.include({ status: 'paid', method: 'CARD' });
    await checkLayout(page, 'keyin-result');
    // Refresh: a GET, no second charge, no "unknown order".
    await page.reload();
    expect((await page.textContent('#result-status'))!.trim()).to.equal('결제가 완료되었습니다');
    expect(e2e.sandbox.ledger.entries().filter((e) => e.moid === moid)).to.have.length(1);
  });

  it("a lost/stolen card: the issuer's message", async () => {
    const moid = await keyin('haeng-mug', '4000000000009979');
    const { page } = e2e;
    expect((await page.textContent('#result-status'))!.trim()).to.equal('결제가 거절되었습니다');
    expect(await page.textContent('#result-message')).to.equal('분실 도난 카드입니다');
    expect(e2e.shop.db.order(moid)).to.include({ status: 'declined' });
    await checkLayout(page, 'keyin-declined');
  });
});
