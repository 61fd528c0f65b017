import { expect } from 'chai';
import iconv from 'iconv-lite';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { html, raw } from '../example-app/views.js';
import type { Logger, PayMethod } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type AuthReturn, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { parseKstTimestamp } from '../src/wire/kst.js';
import { windowSignData } from '../src/wire/signatures.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;

/** Keeps every log line, to prove the merchant key never reaches one. */
function recordingLogger(lines: string[]): Logger {
  const log = (obj: Record<string, unknown>, msg?: string): void => void lines.push(JSON.stringify({ ...obj, msg }));
  return { debug: log, info: log, warn: log, error: log };
}

const decodeEntities = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (e[0] !== '#') return named[e.toLowerCase()]!;
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag);
  return m ? decodeEntities(m[1]!) : undefined;
};

/** The form with `id` in a page: its attributes and its named inputs (hidden or not). */
function formOf(
  page: string,
  id: string,
): { action: string; acceptCharset: string | undefined; method: string | undefined; fields: Record<string, string> } {
  const m = new RegExp(`<form\\b[^>]*\\sid="${id}"[^>]*>([\\s\\S]*?)</form>`).exec(page);
  if (!m) throw new Error(`no form #${id} in page:\n${page.slice(0, 2000)}`);
  const tag = m[0].slice(0, m[0].indexOf('>') + 1);
  const fields: Record<string, string> = {};
  for (const input of m[1]!.match(/<input\b[^>]*>/g) ?? []) {
    const name = attr(input, 'name');
    if (name !== undefined) fields[name] = attr(input, 'value') ?? '';
  }
  return {
    action: attr(tag, 'action')!,
    acceptCharset: attr(tag, 'accept-charset'),
    method: attr(tag, 'method'),
    fields,
  };
}

const dataStatus = (page: string): string | undefined => /id="result-status"[^>]*data-status="([^"]+)"/.exec(page)?.[1];
const textOf = (page: string, id: string): string | undefined => {
  const m = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page);
  return m ? decodeEntities(m[1]!) : undefined;
};

describe('example-app (the shop on a real sandbox)', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  let server: Server;
  let shopUrl: string;
  const logLines: string[] = [];
  const pages: string[] = [];

  /**
   * supertest over loopback against the listening shop, as one buyer's browser (its cookie
   * makes the orders it places its own); every page is kept for the key check.
   */
  let buyer: ReturnType<typeof request.agent> | undefined;
  const agent = () => (buyer ??= request.agent(server));
  const keep = <T extends { text: string }>(res: T): T => {
    pages.push(res.text);
    return res;
  };

  /** POST /checkout as the product page's form does; returns the order's window form. */
  async function checkout(productId: string, extra: Record<string, string> = {}) {
    const post = keep(
      await agent()
        .post('/checkout')
        .type('form')
        .send({ productId, ...extra }),
    );
    expect(post.status, post.text).to.equal(303); // post/redirect/get
    expect(post.headers.location).to.match(/^\/checkout\/ORD\w+\?t=[\w-]{22}$/); // a signed order link
    const res = keep(await agent().get(post.headers.location!));
    expect(res.status, res.text).to.equal(200);
    const form = formOf(res.text, 'pay-form');
    return { res, form, moid: form.fields.Moid!, amount: Number(form.fields.Amt) };
  }

  /**
   * Posts an auth return to /pay/return as the browser would. The body goes as a latin1 string
   * (it is all ASCII percent-escapes): superagent serializes a Buffer with a form Content-Type
   * as an object of byte indexes.
   */
  async function postReturn(auth: Pick<AuthReturn, 'body' | 'contentType'>) {
    const post = keep(
      await agent().post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1')),
    );
    if (post.status !== 303) return post; // an error page, rendered on the POST
    expect(post.headers.location).to.match(/^\/orders\/\w+(\?t=[\w-]{22})?$/);
    return keep(await agent().get(post.headers.location!));
  }

  /** The error code behind an error page: the page shows only a reference, the log has the code. */
  const errorCode = (page: string): string | undefined => {
    const ref = textOf(page, 'error-ref');
    expect(ref, 'error page without a reference number').to.match(/^[0-9A-F]{8}$/);
    expect(page).to.not.match(/NICEPAY_[A-Z_]+/);
    const line = logLines.find((l) => l.includes(`"ref":"${ref}"`));
    return line ? (JSON.parse(line) as { code?: string }).code : undefined;
  };

  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      logger: recordingLogger(logLines),
    });
    server = shop.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await shop.close();
    await sandbox.close();
  });

  it('escapes interpolated text in its templates', () => {
    const out =
      html`<p title="${'"x"'}">${'<script>alert(1)</script>'}${raw('<b>ok</b>')}${['a&', html`<i>${'<'}</i>`]}${false}${null}</p>`
        .value;
    expect(out).to.equal(
      '<p title="&quot;x&quot;">&lt;script&gt;alert(1)&lt;/script&gt;<b>ok</b>a&amp;<i>&lt;</i></p>',
    );
  });

  it('lists the products in Korean (CP949-only syllables included), prices in won', async () => {
    const res = keep(await agent().get('/'));
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/html; charset=utf-8/i);
    expect(res.text).to.include('똠얌꿍 밀키트').and.include('햏 머그컵');
    expect(textOf(res.text, 'price-tomyum-kit')).to.equal('12,000원');
    expect(textOf(res.text, 'price-haeng-mug')).to.equal('8,900원');
    expect(res.text).to.include('id="buy-tomyum-kit"').and.include('id="buy-haeng-mug"');
    expect(formOf(res.text, 'checkout-form').action).to.equal('/checkout');
  });

  it('creates an order at the server price and a signed EUC-KR window form', async () => {
    const { res, form, moid } = await checkout('haeng-mug', { Amt: '1', amount: '1', price: '1' });
    const order = shop.db.sqlite.prepare('SELECT * FROM orders WHERE moid = ?').get(moid) as Record<string, unknown>;
    expect(order).to.include({ amount: 8_900, goods: '햏 머그컵', status: 'pending', tid: null });
    expect(form.action).to.equal(`${sandbox.url}/window`);
    expect(form.method).to.equal('post');
    expect(form.acceptCharset).to.equal('euc-kr');
    const f = form.fields;
    expect(f).to.include({
      MID,
      Amt: '8900',
      Moid: moid,
      GoodsName: '햏 머그컵',
      ReturnURL: `${shopUrl}/pay/return`,
      CharSet: 'euc-kr',
    });
    expect(f.SignData).to.equal(windowSignData(f.EdiDate!, MID, '8900', KEY));
    const sent = parseKstTimestamp(f.EdiDate!);
    expect(sent, `EdiDate ${f.EdiDate} is KST YYYYMMDDHHMISS`).to.be.instanceOf(Date);
    // Signed with the shop's clock, which must agree with the gateway's (the sandbox refuses 10 minutes off).
    expect(Math.abs(sent!.getTime() - sandbox.clock.now().getTime())).to.be.lessThan(60_000);
    expect(textOf(res.text, 'order-amount')).to.equal('8,900원');
    expect(res.text).to.include('id="pay-submit"');
    expect(res.text).to.not.include(KEY);
  });

  it('refuses an unknown product and a buyer name CP949 cannot encode, creating no order', async () => {
    const count = (): number => (shop.db.sqlite.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n;
    const before = count();
    const unknown = keep(await agent().post('/checkout').type('form').send({ productId: 'no-such-thing' }));
    expect(unknown.status).to.equal(404);
    const badName = keep(
      await agent().post('/checkout').type('form').send({ productId: 'kimchi', buyerName: 'Zoë 😀' }),
    );
    expect(badName.status).to.equal(400);
    expect(count()).to.equal(before);
  });

  const methods: Array<{ method: PayMethod; check: (page: string) => void }> = [
    {
      method: 'CARD',
      check: (page) => {
        // one name per card company (issuer code 02), whatever the gateway's CardName says
        expect(textOf(page, 'card-name')).to.equal('KB국민카드');
        expect(textOf(page, 'card-number')).to.match(/^\d+\*+\d+$/);
        expect(textOf(page, 'card-installment')).to.equal('일시불');
      },
    },
    { method: 'BANK', check: (page) => expect(textOf(page, 'bank-name')).to.equal('국민은행') },
    { method: 'CELLPHONE', check: (page) => expect(textOf(page, 'result-method')).to.equal('휴대폰') },
  ];
  for (const { method, check } of methods) {
    it(`completes a ${method} purchase: Korean result page, order paid in SQLite`, async () => {
      const { moid, amount } = await checkout('tomyum-kit');
      expect(amount).to.equal(12_000);
      const auth = await sandbox.authenticate({ moid, amount, method, goodsName: '똠얌꿍 밀키트' });
      const res = await postReturn(auth);
      expect(res.status, res.text).to.equal(200);
      expect(dataStatus(res.text)).to.equal('approved');
      expect(textOf(res.text, 'result-status')).to.equal('결제가 완료되었습니다');
      expect(textOf(res.text, 'result-amount')).to.equal('12,000원');
      expect(textOf(res.text, 'result-goods')).to.equal('똠얌꿍 밀키트');
      check(res.text);
      const order = shop.db.order(moid)!;
      expect(order).to.include({ status: 'paid', method, tid: auth.fields.TxTid });
      expect(JSON.parse(order.result!)).to.include({ status: 'approved', moid, amount: 12_000 });
      expect(sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
    });
  }

  it('completes a VBANK purchase as awaiting deposit, with the account and a KST deadline', async () => {
    const { moid, amount } = await checkout('kimchi');
    const auth = await sandbox.authenticate({ moid, amount, method: 'VBANK' });
    const res = await postReturn(auth);
    expect(res.status, res.text).to.equal(200);
    expect(dataStatus(res.text)).to.equal('awaiting-deposit');
    expect(textOf(res.text, 'result-amount')).to.equal('23,000원');
    expect(textOf(res.text, 'vbank-bank')).to.equal('우리은행');
    expect(textOf(res.text, 'vbank-account')).to.match(/^\d{10,}$/);
    // The sandbox's account expires at 23:59:59 KST; shown in Asia/Seoul whatever TZ is.
    expect(textOf(res.text, 'vbank-deadline')).to.match(/^\d{4}년 \d{1,2}월 \d{1,2}일 \([월화수목금토일]\) 23:59까지$/);
    expect(shop.db.order(moid)).to.include({ status: 'awaiting-deposit', method: 'VBANK', tid: auth.fields.TxTid });
  });

  it('shows the cancel page when the buyer cancels, and leaves the order pending', async () => {
    const { moid, amount } = await checkout('jeju-tea');
    const auth = await sandbox.authenticate({ moid, amount, method: 'CARD', cancel: true });
    const res = await postReturn(auth);
    expect(res.status).to.equal(200);
    expect(dataStatus(res.text)).to.equal('auth-failed');
    expect(textOf(res.text, 'result-status')).to.equal('결제가 취소되었습니다');
    // The shop's own words: the posted AuthResultMsg is unverified and never shown.
    expect(textOf(res.text, 'result-message')).to.equal('결제창에서 결제를 마치지 않았습니다.');
    expect(textOf(res.text, 'result-amount')).to.equal('15,500원');
    expect(shop.db.order(moid)).to.include({ status: 'pending', tid: null });
  });

  it('refuses a tampered Amt (signature) and a cheap authentication (amount): order stays unpaid', async () => {
    const { moid, amount } = await checkout('tomyum-kit');
    const genuine = await sandbox.authenticate({ moid, amount, method: 'CARD' });
    const forged = encodeForm({ ...genuine.fields, Amt: '100' }, 'euc-kr');
    const r1 = await postReturn({ body: forged, contentType: genuine.contentType });
    expect(r1.status).to.equal(400);
    expect(errorCode(r1.text)).to.equal('NICEPAY_SIGNATURE_MISMATCH');
    expect(textOf(r1.text, 'error-message')).to.match(/위변조/);

    const cheap = await sandbox.authenticate({ moid, amount: 100, method: 'CARD' });
    const r2 = await postReturn(cheap);
    expect(r2.status).to.equal(400);
    expect(dataStatus(r2.text)).to.equal('error');
    expect(errorCode(r2.text)).to.equal('NICEPAY_AMOUNT_MISMATCH');
    expect(textOf(r2.text, 'error-message')).to.equal(
      '결제 금액이 주문 금액과 일치하지 않아 결제를 진행하지 않았습니다.',
    );

    expect(shop.db.order(moid)).to.include({ status: 'pending', tid: null, amount: 12_000 });
    for (const tid of [genuine.fields.TxTid!, cheap.fields.TxTid!]) {
      expect(sandbox.ledger.get(tid)).to.include({ status: 'authenticated', approvalCalls: 0 });
    }
  });

  it('answers 404 with an error page for a Moid the shop never issued', async () => {
    const auth = await sandbox.authenticate({ moid: 'ORD-NOT-OURS', amount: 1000, method: 'CARD' });
    const res = await postReturn(auth);
    expect(res.status).to.equal(404);
    expect(errorCode(res.text)).to.equal('NICEPAY_UNKNOWN_ORDER');
    expect(textOf(res.text, 'error-message')).to.equal('주문을 찾을 수 없습니다.');
  });

  it('shows the same result on a repeated return; the gateway refuses a second payment of a paid order (A127)', async () => {
    const { moid, amount } = await checkout('haeng-mug');
    const first = await sandbox.authenticate({ moid, amount, method: 'CARD' });
    expect(dataStatus((await postReturn(first)).text)).to.equal('approved');
    const again = await postReturn(first); // the buyer refreshes the result page
    expect(dataStatus(again.text)).to.equal('approved');
    expect(sandbox.ledger.get(first.fields.TxTid!)?.approvalCalls).to.equal(1);

    // gateway-facts "1681 / A127 duplicate Moid": the gateway itself refuses the second
    // payment, so nothing is charged and the paid order stays as it was.
    const second = await sandbox.authenticate({ moid, amount, method: 'BANK' });
    const res = await postReturn(second);
    // Post/redirect/get: the buyer lands on the order's page, which still shows it paid.
    expect(res.status).to.equal(200);
    expect(dataStatus(res.text)).to.equal('approved');
    expect(sandbox.ledger.get(second.fields.TxTid!)?.status).to.equal('declined');
    expect(shop.db.order(moid)).to.include({ status: 'paid', method: 'CARD', tid: first.fields.TxTid });
  });

  it('shows a declined approval with the gateway code and records the order as failed', async () => {
    const { moid, amount } = await checkout('jeju-tea');
    const auth = await sandbox.authenticate({ moid, amount, method: 'CARD' });
    // The card company refuses at approval time.
    sandbox.faults.inject({
      target: 'approve',
      kind: 'decline',
      resultCode: '3011',
      resultMsg: '카드사 승인 거절(한도초과)',
    });
    const res = keep(await postReturn(auth));
    expect(res.status, res.text).to.equal(200);
    expect(dataStatus(res.text)).to.equal('declined');
    expect(textOf(res.text, 'result-status')).to.equal('결제가 거절되었습니다');
    expect(res.text).to.not.include('3011'); // the code goes to the log, not to the buyer
    expect(logLines.some((l) => l.includes('"resultCode":"3011"') && l.includes(moid))).to.equal(true);
    expect(textOf(res.text, 'result-message')).to.equal('카드사 승인 거절(한도초과)');
    expect(shop.db.order(moid)).to.include({ status: 'declined', tid: null });
  });

  it('an approval answer that cannot be verified (bad signature, another amount) reads like a lost answer: being checked, never pay again', async () => {
    const codes: Array<string | undefined> = [];
    const messages: Array<string | undefined> = [];
    for (const kind of ['status-500', 'bad-signature', 'alter-amount'] as const) {
      const { moid, amount } = await checkout('jeju-tea');
      const auth = await sandbox.authenticate({ moid, amount, method: 'CARD' });
      sandbox.faults.inject({ target: 'approve', kind });
      const res = keep(await postReturn(auth));
      expect(res.status, kind).to.equal(502);
      codes.push(errorCode(res.text));
      messages.push(textOf(res.text, 'error-message'));
      expect(res.text, kind).to.not.include('id="pay-form"');
    }
    expect(codes).to.deep.equal([
      'NICEPAY_OUTCOME_UNKNOWN',
      'NICEPAY_ANSWER_UNVERIFIED',
      'NICEPAY_ANSWER_AMOUNT_MISMATCH',
    ]);
    expect(messages[0]).to.include('결제 결과를 아직 확인하지 못했습니다').and.not.include('다시 시도');
    expect(messages).to.deep.equal([messages[0], messages[0], messages[0]]);
  });

  it('lists orders from SQLite with Korean statuses, won amounts, methods and TIDs', async () => {
    const res = keep(await agent().get('/orders'));
    expect(res.status).to.equal(200);
    const rows = shop.db.orders();
    expect(rows.length).to.be.greaterThan(5);
    for (const o of rows) {
      const row = new RegExp(`<tr data-moid="${o.moid}" data-status="${o.status}"[^>]*>([\\s\\S]*?)</tr>`).exec(
        res.text,
      );
      expect(row, o.moid).to.not.equal(null);
      expect(row![1])
        .to.include(o.goods)
        .and.include(`${o.amount.toLocaleString('en-US')}원`);
      if (o.tid) expect(row![1]).to.include(o.tid);
    }
    expect(res.text)
      .to.include('결제 완료')
      .and.include('입금 대기')
      .and.include('결제 대기')
      .and.include('구매자 취소');
    expect(res.text).to.include('>신용카드<').and.include('>가상계좌<');
  });

  it('post/redirect/get: a refreshed result page changes nothing, and a paid order offers no window', async () => {
    const { moid, amount } = await checkout('kimchi');
    const auth = await sandbox.authenticate({ moid, amount, method: 'CARD' });
    const post = keep(
      await agent().post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1')),
    );
    expect(post.status).to.equal(303);
    expect(post.headers.location).to.match(new RegExp(`^/orders/${moid}\\?t=[\\w-]{22}$`));
    for (let i = 0; i < 2; i++) {
      const page = keep(await agent().get(`/orders/${moid}`)); // refresh, Back
      expect(dataStatus(page.text)).to.equal('approved');
    }
    expect(sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
    const again = keep(await agent().get(`/checkout/${moid}`)); // Back to the checkout page
    expect(again.status).to.equal(200);
    expect(textOf(again.text, 'order-paid')).to.equal('이미 결제가 완료된 주문입니다');
    expect(again.text).to.not.include('id="pay-form"');
  });

  it('a window cancel shows the order as cancelled by the buyer, payable again; the posted text is never shown (it is unauthenticated)', async () => {
    const { moid, amount } = await checkout('haeng-mug');
    const auth = await sandbox.authenticate({ moid, amount, method: 'CARD', cancel: true });
    // Anyone can post an auth-failed return: forge one carrying markup and a fake bank account.
    const forged = encodeForm(
      { ...auth.fields, AuthResultMsg: '<img src=x onerror=alert(1)>입금 계좌 변경, 국민 123-45-6789 로 입금 후 문의' },
      'euc-kr',
    );
    const page = await postReturn({ body: forged, contentType: auth.contentType });
    expect(dataStatus(page.text)).to.equal('auth-failed');
    expect(page.text).to.not.include('img src=x');
    expect(page.text).to.not.include('123-45-6789');
    expect(shop.db.order(moid)?.windowMessage ?? '').to.equal('');
    expect(shop.db.order(moid)).to.include({ status: 'pending', tid: null }); // the order's state is unchanged
    expect(page.text).to.include(`href="/checkout/${moid}" id="retry"`);
    const list = keep(await agent().get('/orders'));
    expect(new RegExp(`data-moid="${moid}" data-status="pending" data-display="window-left"`).test(list.text)).to.equal(
      true,
    );
    // Paying again works and clears the note.
    const retry = await sandbox.authenticate({ moid, amount, method: 'CARD' });
    expect(dataStatus((await postReturn(retry)).text)).to.equal('approved');
    expect(shop.db.order(moid)).to.include({ status: 'paid', windowCancelledAt: null });
  });

  it('fits together with the real window: checkout form → /window → confirm → auto-post → result', async () => {
    const { form, moid } = await checkout('tomyum-kit', { buyerName: '김햏똠' });
    // The browser encodes the form per accept-charset="euc-kr".
    const windowRes = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: encodeForm(form.fields, 'euc-kr'),
    });
    const windowPage = await windowRes.text();
    expect(windowRes.status, windowPage).to.equal(200);
    expect(windowPage).to.include('똠얌꿍 밀키트').and.include('김햏똠');
    const windowForm = formOf(windowPage, 'window-form');
    expect(windowForm.fields.SessionId).to.match(/^[A-Z0-9]+$/);

    // What the window page posts when the buyer picks 신용카드 and presses 결제하기.
    const confirm = await fetch(new URL(windowForm.action, sandbox.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: new URLSearchParams({
        SessionId: windowForm.fields.SessionId!,
        PayMethod: 'CARD',
        RcptType: '',
        RcptIdentity: '',
        Action: 'approve',
      }).toString(),
    });
    expect(confirm.status).to.equal(200);
    expect(confirm.headers.get('content-type')).to.match(/charset=euc-kr/i);
    const autoPost = iconv.decode(Buffer.from(await confirm.arrayBuffer()), 'cp949');
    const back = formOf(autoPost, 'return-form');
    expect(back.action).to.equal(`${shopUrl}/pay/return`);
    expect(back.acceptCharset).to.equal('euc-kr');
    expect(back.fields).to.include({ AuthResultCode: '0000', Moid: moid, Amt: '12000' });

    const res = await fetch(back.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, // no charset, as browsers send it
      body: encodeForm(back.fields, 'euc-kr'),
    });
    const page = await res.text();
    pages.push(page, windowPage, autoPost);
    expect(res.status, page).to.equal(200);
    expect(dataStatus(page)).to.equal('approved');
    expect(textOf(page, 'result-amount')).to.equal('12,000원');
    expect(shop.db.order(moid)).to.include({ status: 'paid', method: 'CARD', tid: back.fields.TxTid });
    const entry = sandbox.ledger.get(back.fields.TxTid!)!;
    expect(entry).to.include({ status: 'approved', goodsName: '똠얌꿍 밀키트', buyerName: '김햏똠', amount: 12_000 });
  });

  it('kept the merchant key out of every page and log line', () => {
    expect(pages.length).to.be.greaterThan(10);
    expect(logLines.length).to.be.greaterThan(0);
    expect(pages.join('\n')).to.not.include(KEY);
    expect(logLines.join('\n')).to.not.include(KEY);
  });
});
