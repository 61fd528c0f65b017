/** The back office's payout pages in a real browser, on the sandbox's virtual clock. */
import { expect } from 'chai';
import { fromKst } from '../../src/wire/kst.js';
import { loginAsAdmin, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

// A Monday: 2026-11-23, 09:00 KST (before the 10:30 request cut-off).
const PAYOUT_DAY = '20261123';
const start = fromKst(2026, 11, 23, 9, 0, 0);

describe('e2e: example shop in Chromium (back office payouts)', () => {
  const e2e = useShopInBrowser({}, () => start);

  it('registers a sub-merchant, requests a payout, and shows it paid (성공, 지급 완료) after 16:00', async () => {
    const { page, shopUrl, sandbox, shop } = e2e;
    sandbox.dataHost.deposit(shop.nicepay.mid, 100_000);

    await loginAsAdmin(e2e, '/admin/sub-merchants');
    await page.fill('#sub-id', 'seller-01');
    await page.fill('#sub-nm', '똠방각하 상회');
    await page.fill('#sub-co-no', '1234567890');
    await page.selectOption('#bank-cd', '004');
    await page.fill('#accnt-no', '12345678901234');
    await page.fill('#accnt-nm', '김햏');
    await page.click('#sub-merchant-submit');
    await page.waitForSelector('#admin-ok');
    expect(await page.textContent('#sub-merchants')).to.include('똠방각하 상회');
    expect(await page.textContent('#admin-ok')).to.equal('서브몰 seller-01을 등록했습니다.');
    await checkLayout(page, 'admin-sub-merchants');

    await page.goto(`${shopUrl}/admin/payouts?date=${PAYOUT_DAY}`);
    await page.selectOption('#payout-sub-id', 'seller-01');
    await page.fill('#payout-amount', '30000');
    await page.fill('#payout-date', PAYOUT_DAY);
    await page.click('#payout-submit');
    // The confirmation step shows the amount and the target before anything moves.
    await page.waitForSelector('#confirm-form');
    expect(await page.textContent('#confirm-amount')).to.equal('30,000원');
    expect(await page.textContent('#confirm-target')).to.include('seller-01');
    expect(sandbox.dataHost.payouts(shop.nicepay.mid)).to.have.length(0);
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');
    expect(await page.textContent('#admin-ok')).to.match(/지급을 요청했습니다 \(순번 \d+\)/);
    expect(sandbox.dataHost.payouts(shop.nicepay.mid)).to.have.length(1);

    // Execution runs 11:00-14:00; results may be read from 16:00 of the payout day.
    sandbox.clock.set(fromKst(2026, 11, 23, 16, 0, 5));
    await page.goto(`${shopUrl}/admin/payouts?date=${PAYOUT_DAY}`);
    await page.waitForSelector('#payouts');
    const row = page.locator('#payouts tbody tr').first();
    expect(await row.getAttribute('data-status')).to.equal('succeeded');
    expect(await row.textContent())
      .to.include('seller-01')
      .and.include('30,000원')
      .and.include('지급 완료');
    expect(await page.textContent('#payout-summary')).to.include('성공 1건');
    await checkLayout(page, 'admin-payout-results');
  });
});
