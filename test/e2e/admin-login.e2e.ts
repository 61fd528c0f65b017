/**
 * In a real browser: the back office is behind a login, its forms carry a CSRF
 * token, a form posted from another origin moves nothing, and logout ends access.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromKst } from '../../src/wire/kst.js';
import { ADMIN_PASSWORD, loginAsAdmin, useShopInBrowser } from './harness.js';
import { checkLayout } from './layout.js';

const PAYOUT_DAY = '20261123'; // a Monday, 09:00 KST: before the 10:30 cut-off
const start = fromKst(2026, 11, 23, 9, 0, 0);

describe('e2e: example shop in Chromium (back-office login and CSRF)', () => {
  const e2e = useShopInBrowser({}, () => start);
  let attacker: Server;
  let attackerUrl: string;

  before(async () => {
    e2e.sandbox.dataHost.deposit(e2e.shop.nicepay.mid, 100_000);
    e2e.sandbox.dataHost.addAccountHolder('004', '555-666', '김햏');
    // Another origin (another port): a page that auto-posts a payout form to the shop.
    attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!DOCTYPE html><form id="evil" method="post" action="${e2e.shopUrl}/admin/payouts">
<input name="subId" value="seller-x"><input name="amount" value="50000"><input name="settlmntDt" value="${PAYOUT_DAY}">
<input name="confirm" value="yes"></form><script>document.getElementById('evil').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

  it('redirects to the login page, refuses a wrong password, and lets the right one in', async () => {
    const { page, shopUrl } = e2e;
    await page.goto(`${shopUrl}/admin/payouts`);
    expect(new URL(page.url()).pathname).to.equal('/admin/login');
    await checkLayout(page, 'admin-login');
    await page.fill('#login-user', 'admin');
    await page.fill('#login-password', 'wrong-password');
    await page.click('#login-submit');
    await page.waitForSelector('#login-error');
    expect(await page.textContent('#login-error')).to.equal('아이디 또는 비밀번호가 올바르지 않습니다.');

    await page.fill('#login-user', 'admin');
    await page.fill('#login-password', ADMIN_PASSWORD);
    await Promise.all([page.waitForURL(`${shopUrl}/admin/payouts`), page.click('#login-submit')]);
    await page.waitForSelector('#payout-form');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'shop.admin.sid')).to.include({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
  });

  it('a signed-in operator tricked into a form from another origin: refused, no payout at the sandbox', async () => {
    const { page, sandbox, shop } = e2e;
    await loginAsAdmin(e2e, '/admin/sub-merchants');
    await page.fill('#sub-id', 'seller-x');
    await page.fill('#sub-nm', '햏상점');
    await page.fill('#sub-co-no', '1234567890');
    await page.selectOption('#bank-cd', '004');
    await page.fill('#accnt-no', '555-666');
    await page.fill('#accnt-nm', '김햏');
    await page.click('#sub-merchant-submit');
    await page.waitForSelector('#admin-ok');

    await page.goto(attackerUrl);
    await page.waitForSelector('#csrf-error');
    expect(await page.textContent('h1')).to.equal('요청을 거부했습니다');
    expect(sandbox.dataHost.payouts(shop.nicepay.mid)).to.have.length(0);
    await checkLayout(page, 'admin-csrf-refused');
  });

  it('after login a confirmed payout works; logout ends access', async () => {
    const { page, shopUrl, sandbox, shop } = e2e;
    await loginAsAdmin(e2e, `/admin/payouts?date=${PAYOUT_DAY}`);
    await page.selectOption('#payout-sub-id', 'seller-x');
    await page.fill('#payout-amount', '12000');
    await page.click('#payout-submit');
    await page.waitForSelector('#confirm-form');
    await checkLayout(page, 'admin-payout-confirm');
    await page.click('#confirm-submit');
    await page.waitForSelector('#admin-ok');
    expect(sandbox.dataHost.payouts(shop.nicepay.mid).map((p) => p.amount)).to.deep.equal([12_000]);
    await checkLayout(page, 'admin-payouts');

    await Promise.all([page.waitForURL(`${shopUrl}/admin/login`), page.click('#logout')]);
    await page.goto(`${shopUrl}/admin`);
    expect(new URL(page.url()).pathname).to.equal('/admin/login');
  });
});
