/**
 * NICEPAY's own sample flow against the sandbox in Chromium: a checkout page that loads
 * `/v3/common/js/nicepay-pgweb.js` from the gateway host and calls `goPay(form)`, the PC layer
 * and the mobile redirect, approval, net cancel, and full and partial cancels each with a fresh
 * Moid of their own.
 *
 * The vendor's Node sample 3.2.2 (app.js) is public, but its page template (public/
 * payRequest.ejs) is not among the published files, so the page below does exactly what the
 * vendor's JSP sample page (payRequest_utf.jsp) does: a UTF-8 page, the form `payForm` with the
 * same fields, `nicepayStart()` calling `goPay(document.payForm)`, `nicepaySubmit()` submitting the
 * form, `nicepayClose()` alerting. The server does what app.js does (approval with the auth
 * return's values and `CharSet=utf-8`, a net cancel when the approval call fails, cancels signed
 * `MID + CancelAmt + EdiDate + key` with `Moid = 'moid' + ediDate`), with two changes only: the
 * gateway host is the sandbox's, and EdiDate and Moid are made per request in KST (app.js makes
 * them once at start-up, in the server's own time zone; test/sandbox-official-sample.test.ts
 * shows what that does).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../../src/sandbox/index.js';
import { kstTimestamp14 } from '../../src/wire/kst.js';
import { approvalSignData, cancelSignData, windowSignData } from '../../src/wire/signatures.js';
import { CHROMIUM_PATH } from './harness.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

/** The vendor's sample server (app.js), its host replaced by the sandbox's. */
function vendorApp(gateway: () => string, self: () => string): express.Express {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  const post = async (url: string, data: Record<string, string>): Promise<Record<string, string>> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'User-Agent': 'Super Agent/0.0.1',
        'Content-Type': 'application/x-www-form-urlencoded; charset=euc-kr',
      },
      body: new URLSearchParams(data).toString(),
    });
    // axios throws on a status outside 2xx; the sample's catch then net-cancels.
    if (res.status < 200 || res.status >= 300) throw new Error(`Request failed with status code ${res.status}`);
    return JSON.parse(await res.text()) as Record<string, string>;
  };

  app.get('/payment', (_req, res) => {
    const ediDate = kstTimestamp14(new Date());
    const moid = `moid${ediDate}${Math.random().toString(36).slice(2, 6)}`;
    res.type('html').send(`<!DOCTYPE html>
<html><head><title>NICEPAY PAY REQUEST(UTF-8)</title><meta charset="utf-8">
<script src="${gateway()}/v3/common/js/nicepay-pgweb.js" type="text/javascript"></script>
<script type="text/javascript">
function nicepayStart(){ goPay(document.payForm); }
function nicepaySubmit(){ document.payForm.submit(); }
function nicepayClose(){ alert("결제가 취소 되었습니다"); }
</script></head><body>
<form name="payForm" method="post" action="/authReq">
<input type="text" name="PayMethod" value="CARD">
<input type="text" name="GoodsName" value="나이스상품">
<input type="text" name="Amt" value="1004">
<input type="text" name="MID" value="${MID}">
<input type="text" name="Moid" value="${moid}">
<input type="text" name="BuyerName" value="구매자">
<input type="text" name="BuyerEmail" value="happy@day.com">
<input type="text" name="BuyerTel" value="00000000000">
<input type="text" name="ReturnURL" value="${self()}/authReq">
<input type="text" name="VbankExpDate" value="">
<input type="hidden" name="GoodsCl" value="1"/>
<input type="hidden" name="TransType" value="0"/>
<input type="hidden" name="CharSet" value="utf-8"/>
<input type="hidden" name="ReqReserved" value=""/>
<input type="hidden" name="EdiDate" value="${ediDate}"/>
<input type="hidden" name="SignData" value="${windowSignData(ediDate, MID, '1004', KEY)}"/>
<a href="#" id="request" onClick="nicepayStart();">요 청</a>
</form></body></html>`);
  });

  app.post('/authReq', async (req, res) => {
    const b = req.body as Record<string, string>;
    if (b.AuthResultCode !== '0000')
      return void res.status(400).json({ success: false, message: '결제 인증 실패', AuthResultCode: b.AuthResultCode });
    const ediDate = kstTimestamp14(new Date());
    const signData = approvalSignData(b.AuthToken!, b.MID!, b.Amt!, ediDate, KEY);
    const fields = {
      TID: b.TxTid!,
      AuthToken: b.AuthToken!,
      MID: b.MID!,
      Amt: b.Amt!,
      EdiDate: ediDate,
      SignData: signData,
      CharSet: 'utf-8',
    };
    try {
      res.json(await post(b.NextAppURL!, fields));
    } catch {
      try {
        res.json(await post(b.NetCancelURL!, { ...fields, NetCancel: '1' }));
      } catch {
        res.status(500).json({ success: false, message: '결제 승인 및 망취소 요청 모두 실패했습니다.' });
      }
    }
  });

  app.get('/cancel', (_req, res) => {
    res.type('html').send(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<form name="cancelForm" method="post" action="/cancelReq">
<input type="text" name="TID" id="tid"><input type="text" name="CancelAmt" id="amt">
<select name="PartialCancelCode" id="partial"><option value="0">전체 취소</option><option value="1">부분 취소</option></select>
<button type="submit" id="cancel-submit">취소 요청</button></form></body></html>`);
  });

  app.post('/cancelReq', async (req, res) => {
    const b = req.body as Record<string, string>;
    const ediDate = kstTimestamp14(new Date());
    const data = {
      TID: b.TID!,
      MID,
      Moid: `moid${ediDate}`,
      CancelAmt: b.CancelAmt!,
      CancelMsg: 'test',
      PartialCancelCode: b.PartialCancelCode!,
      EdiDate: ediDate,
      SignData: cancelSignData(MID, b.CancelAmt!, ediDate, KEY),
      CharSet: 'utf-8',
    };
    try {
      res.json(await post(`${gateway()}/webapi/cancel_process.jsp`, data));
    } catch (err) {
      res.json({ success: false, message: (err as Error).message });
    }
  });
  return app;
}

describe("e2e: the vendor's sample flow against the sandbox (goPay, approval, net cancel, cancels)", () => {
  let sandbox: Sandbox;
  let server: Server;
  let shopUrl = '';
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    sandbox = createSandbox({ testAutoCancel: false });
    await sandbox.listen(0);
    server = createServer(
      vendorApp(
        () => sandbox.url,
        () => shopUrl,
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    await sandbox.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({
      locale: 'ko-KR',
      timezoneId: 'Asia/Seoul',
      viewport: { width: 1100, height: 900 },
    });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context.close();
  });

  /** Pays through the PC layer: 요 청, 결제하기 in the layer, the form posted by nicepaySubmit(). */
  async function payInLayer(): Promise<Record<string, string>> {
    await page.goto(`${shopUrl}/payment`);
    await page.click('#request');
    const frame = page.frameLocator('#nicepay-layer-frame');
    await frame.locator('#approve').click();
    await page.waitForURL(`${shopUrl}/authReq`);
    expect(await page.$('#nicepay-layer')).to.equal(null);
    return JSON.parse((await page.textContent('body'))!) as Record<string, string>;
  }

  async function cancel(tid: string, amount: string, partial: boolean): Promise<Record<string, string>> {
    await page.goto(`${shopUrl}/cancel`);
    await page.fill('#tid', tid);
    await page.fill('#amt', amount);
    await page.selectOption('#partial', partial ? '1' : '0');
    await Promise.all([page.waitForURL(`${shopUrl}/cancelReq`), page.click('#cancel-submit')]);
    return JSON.parse((await page.textContent('body'))!) as Record<string, string>;
  }

  it('PC layer: goPay opens the window over the page, approval answers 3001, a full cancel with its own Moid 2001', async () => {
    const approved = await payInLayer();
    expect(approved).to.include({ ResultCode: '3001', Amt: '000000001004', PayMethod: 'CARD' });
    expect(approved.GoodsName).to.equal('나이스상품'); // the form went to the window as EUC-KR and came back as UTF-8
    const cancelled = await cancel(approved.TID!, '1004', false);
    expect(cancelled).to.include({ ResultCode: '2001', CancelAmt: '000000001004', RemainAmt: '000000000000' });
    expect(cancelled.Moid)
      .to.match(/^moid\d{14}$/)
      .and.not.equal(approved.Moid);
    expect(sandbox.ledger.get(approved.TID!)!.status).to.equal('cancelled');
  });

  it('partial cancels, each with a fresh Moid, leave the rest and then nothing', async () => {
    const approved = await payInLayer();
    const first = await cancel(approved.TID!, '500', true);
    expect(first).to.include({ ResultCode: '2001', RemainAmt: '000000000504' });
    const second = await cancel(approved.TID!, '504', true);
    expect(second).to.include({ ResultCode: '2001', RemainAmt: '000000000000' });
    expect(sandbox.ledger.get(approved.TID!)!.cancels!.map((c) => c.moid)).to.have.length(2);
  });

  it("when the approval call fails (HTTP 500), the sample's net cancel reverses the payment (2001)", async () => {
    sandbox.faults.inject({ target: 'approve', kind: 'status-500' });
    const answer = await payInLayer();
    expect(answer).to.include({ ResultCode: '2001', CancelAmt: '000000001004' });
    expect(sandbox.ledger.get(answer.TID!)!.status).to.equal('net-cancelled');
  });

  it("취소 in the PC layer closes it, posts nothing and calls the page's nicepayClose()", async () => {
    const alerts: string[] = [];
    page.on('dialog', (d) => {
      alerts.push(d.message());
      void d.accept();
    });
    await page.goto(`${shopUrl}/payment`);
    const before = sandbox.ledger.entries().length;
    await page.click('#request');
    await page.frameLocator('#nicepay-layer-frame').locator('#cancel').click();
    await page.waitForFunction("document.getElementById('nicepay-layer') === null");
    expect(alerts).to.deep.equal(['결제가 취소 되었습니다']);
    expect(page.url().startsWith(`${shopUrl}/payment`)).to.equal(true);
    expect(sandbox.ledger.entries().length).to.equal(before);
  });

  it('on a phone goPay redirects to the window, which posts the auth return to ReturnURL (3001)', async () => {
    await context.close();
    context = await browser.newContext({
      locale: 'ko-KR',
      timezoneId: 'Asia/Seoul',
      userAgent: IPHONE_UA,
      viewport: { width: 390, height: 844 },
      isMobile: true,
    });
    page = await context.newPage();
    await page.goto(`${shopUrl}/payment`);
    await Promise.all([page.waitForURL(`${sandbox.url}/window`), page.click('#request')]);
    // The viewport tag: the window is laid out at the phone's width, not at 980 px.
    expect(await page.evaluate<number>('document.documentElement.clientWidth')).to.equal(390);
    await Promise.all([page.waitForURL(`${shopUrl}/authReq`), page.click('#approve')]);
    const approved = JSON.parse((await page.textContent('body'))!) as Record<string, string>;
    expect(approved).to.include({ ResultCode: '3001', GoodsName: '나이스상품' });
    // Back to the window's POST page ("Confirm Form Resubmission"), then re-posted: the window
    // says the order is paid and offers nothing again.
    // net::ERR_CACHE_MISS: a POST page is not cached; Chromium shows its error page for it, and
    // reloading that page posts the window request again.
    await page.goBack().catch(() => undefined);
    await page.waitForURL(/^chrome-error:/);
    await page.waitForLoadState();
    let reposted = null;
    for (let attempt = 0; attempt < 3 && !reposted; attempt++) {
      // The error page may still be attaching when reload is asked for: ask again.
      reposted = await page.reload().catch((err: Error) => {
        if (!/Not attached/.test(err.message)) throw err;
        return null;
      });
    }
    expect(reposted?.status()).to.equal(409);
    expect(await page.textContent('#already-paid')).to.include('결제가 끝났습니다');
    expect(await page.$('#approve')).to.equal(null);
  });
});
