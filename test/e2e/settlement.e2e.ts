/**
 * The back office's 결제 정산 page in Chromium at 1,100 px and 390 px: a card payment whose
 * approval answer and net cancel were both lost (sandbox faults) is listed as a labelled card
 * on a phone; 지금 정산, reached from the back office's bar, reverses it and shows the report;
 * the order stays unpaid, as the gateway now holds it. A full refund whose cancel answer was
 * lost is shown on its order as being settled by the package (no "send again"), and after
 * 지금 정산 the order's refund follows the settled cancel.
 */
import { expect } from 'chai';
import { buyInWindow, loginAsAdmin, openWindowFor, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

describe('e2e: the settlement page lists a lost payment and 지금 정산 settles it', () => {
  // The settler ticks once an hour here: only the button settles.
  const e2e = useShopInBrowser({ nicepay: { settle: { intervalMs: 3_600_000 } } });

  it('an approval whose answer was lost is listed with why and when; 지금 정산 reverses it, at both widths', async () => {
    const { page, sandbox, shop } = e2e;
    const moid = await openWindowFor(e2e, 'kimchi');
    await page.check('#method-CARD');
    sandbox.faults.inject({ target: 'approve', kind: 'status-500' });
    sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    await Promise.all([page.waitForSelector('#error-ref'), page.click('#approve')]);
    const tid = sandbox.ledger.byMoid(shop.nicepay.mid, moid)[0]!.tid;
    expect(sandbox.ledger.get(tid)?.status).to.equal('approved');

    await loginAsAdmin(e2e, '/admin');
    await Promise.all([
      page.waitForURL((u) => u.pathname === '/admin/settlement'),
      page.click('#admin-nav-settlement'),
    ]);
    const row = page.locator(`#unsettled tr[data-tid="${tid}"]`);
    expect(await row.getAttribute('data-state')).to.equal('reversing');
    expect(await row.locator('td.moid a').textContent()).to.equal(moid);
    expect(await page.textContent('#unsettled-count')).to.equal('1');
    await checkLayout(page, 'admin-settlement');
    // On a phone the row is a card whose every value shows its label.
    await page.setViewportSize({ width: 390, height: 844 });
    const labels = await row
      .locator('td')
      .evaluateAll((cells) => cells.map((c) => (c as unknown as { dataset: { label?: string } }).dataset.label ?? ''));
    expect(labels).to.deep.equal([
      '종류',
      '거래번호',
      '주문번호',
      '금액',
      '상태',
      '확인 필요',
      '다음 확인',
      '시도',
      '사유',
    ]);
    await page.setViewportSize({ width: 1100, height: 900 });

    await Promise.all([page.waitForSelector('#admin-ok'), page.click('#settle-submit')]);
    expect(await page.textContent('#admin-ok')).to.equal('정산을 실행했습니다. 1건을 정리했고 0건이 남았습니다.');
    expect(await page.getAttribute(`#settled tr[data-tid="${tid}"]`, 'data-outcome')).to.equal('reversed');
    await page.waitForSelector('#no-unsettled');
    await checkLayout(page, 'admin-settlement-report');
    expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
    expect(shop.db.order(moid)).to.include({ status: 'pending' });
  });

  it('a full refund whose answer was lost is shown as settled by the package, and follows 지금 정산', async () => {
    const { page, shopUrl, sandbox, shop } = e2e;
    const moid = await buyInWindow(e2e, 'haeng-mug', 'CARD');
    const tid = shop.db.order(moid)!.tid!;
    await loginAsAdmin(e2e, `/admin/orders/${moid}`);
    await page.click('#refund-submit');
    await page.waitForSelector('#confirm-form');
    sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: true });
    await Promise.all([page.waitForSelector('#refund-unresolved'), page.click('#confirm-submit')]);
    expect(await page.textContent('#refund-settling')).to.include('자동으로 정산하고 있습니다');
    expect(await page.locator('#resolve-submit').count()).to.equal(0);
    expect(await page.locator('#refund-form').count()).to.equal(0);
    await page.goto(`${shopUrl}/admin/orders/${moid}`);
    await checkLayout(page, 'admin-order-refund-settling');

    await page.goto(`${shopUrl}/admin/settlement`);
    await Promise.all([page.waitForSelector('#admin-ok'), page.click('#settle-submit')]);
    expect(await page.getAttribute(`#settled tr[data-tid="${tid}"]`, 'data-outcome')).to.equal('kept');
    await shop.followed();
    await page.goto(`${shopUrl}/admin/orders/${moid}`);
    expect(await page.locator('#refund-unresolved').count()).to.equal(0);
    expect(await page.textContent('#admin-order-remaining')).to.equal('0원');
    expect(await page.getAttribute('#refunds tr[data-intent]', 'data-state')).to.equal('done');
    expect(sandbox.ledger.get(tid)!.cancels!).to.have.length(1);
  });
});
