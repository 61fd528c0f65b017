import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { fromKst } from '../src/wire/kst.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const DAY = '20261123'; // a Monday
const NEXT_DAY = '20261124'; // one payout per sub-merchant and day (1103 otherwise)
const PASSWORD = 'correct horse battery';
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

describe('example-app: back office (/admin)', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };
  const at = (h: number, mi = 0, d = 23) => sandbox.clock.set(fromKst(2026, 11, d, h, mi));
  let admin: ReturnType<typeof request.agent>;
  /** The CSRF token of the admin agent's session (read from a page's form). */
  let csrf: string;

  /** A signed-in agent (cookie jar) and its CSRF token. */
  async function login(
    password = PASSWORD,
  ): Promise<{ agent: ReturnType<typeof request.agent>; token: string; res: request.Response }> {
    const agent = request.agent(shop.app);
    const form = await agent.get('/admin/login');
    const res = await agent
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password, next: '/admin/payouts' });
    const page = await agent.get('/admin/sub-merchants');
    return { agent, token: page.status === 200 ? tokenOf(page.text) : '', res };
  }

  before(async () => {
    sandbox = createSandbox();
    sandbox.clock.freeze();
    await sandbox.listen(0);
    at(9, 0);
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      logger,
      nicepay: { clock: () => sandbox.clock.now() },
      admin: { password: PASSWORD },
    });
    ({ agent: admin, token: csrf } = await login());
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  describe('login, session cookie and CSRF', () => {
    it('sends an anonymous visitor to the login page and refuses an anonymous POST', async () => {
      const res = await request(shop.app).get('/admin/payouts?date=20261123');
      expect(res.status).to.equal(303);
      expect(res.headers.location).to.equal('/admin/login?next=%2Fadmin%2Fpayouts%3Fdate%3D20261123');
      const post = await request(shop.app)
        .post('/admin/payouts')
        .type('form')
        .send({ subId: 'x', amount: '1', settlmntDt: DAY, confirm: 'yes' });
      expect(post.status).to.equal(403);
      expect(post.text).to.include('id="csrf-error"');
    });

    it('refuses a wrong password (401, no session) and accepts the right one with a strict cookie', async () => {
      const wrong = await login('not the password');
      expect(wrong.res.status).to.equal(401);
      expect(textOf(wrong.res.text, 'login-error')).to.equal('아이디 또는 비밀번호가 올바르지 않습니다.');
      expect((await wrong.agent.get('/admin')).status).to.equal(303);

      const agent = request.agent(shop.app);
      const form = await agent.get('/admin/login');
      const ok = await agent
        .post('/admin/login')
        .type('form')
        .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD, next: 'https://evil.example/' });
      expect(ok.status).to.equal(303);
      expect(ok.headers.location).to.equal('/admin'); // no open redirect
      const cookie = ([] as string[]).concat(ok.headers['set-cookie'] ?? []).join('\n');
      expect(cookie)
        .to.match(/shop\.admin\.sid=/)
        .and.match(/HttpOnly/i)
        .and.match(/SameSite=Strict/i)
        .and.match(/Path=\/admin/);
      expect(logLines.join('\n')).to.not.include(PASSWORD);
    });

    it('sets Secure on the cookie when the shop is served over HTTPS (behind a trusted proxy)', async () => {
      shop.app.set('trust proxy', 'loopback');
      try {
        const agent = request.agent(shop.app);
        const form = await agent.get('/admin/login').set('x-forwarded-proto', 'https');
        const cookie = ([] as string[]).concat(form.headers['set-cookie'] ?? []).join('\n');
        expect(cookie).to.match(/; Secure/i);
      } finally {
        shop.app.set('trust proxy', false);
      }
    });

    it('refuses a signed-in POST without the CSRF token or with a wrong one, and nothing moves', async () => {
      const before = sandbox.dataHost.payouts(MID).length;
      const none = await admin
        .post('/admin/payouts')
        .type('form')
        .send({ subId: 'seller-a', amount: '1000', settlmntDt: DAY, confirm: 'yes' });
      expect(none.status).to.equal(403);
      expect(textOf(none.text, 'csrf-error')).to.include('아무것도 처리하지 않았습니다');
      const wrong = await admin
        .post('/admin/sub-merchants')
        .type('form')
        .send({
          _csrf: 'x'.repeat(20),
          subId: 'evil',
          subNm: 'E',
          subCoNo: '1',
          bankCd: '004',
          accntNo: '1',
          accntNm: 'E',
        });
      expect(wrong.status).to.equal(403);
      expect(sandbox.dataHost.payouts(MID)).to.have.length(before);
      expect(sandbox.dataHost.subMerchants(MID).map((s) => s.subId)).to.not.include('evil');
      expect(logLines.some((l) => l.includes('"action":"csrf.refused"'))).to.equal(true);
    });

    it('a back-office page says nothing a link wrote: what an action did comes from the session, once', async () => {
      for (const path of [
        '/admin/billing?ok=%EA%B3%A0%EA%B0%9D%EC%97%90%EA%B2%8C%20%EC%A0%84%ED%99%94%ED%95%98%EC%84%B8%EC%9A%94',
        '/admin/billing/receipts?ok=forged',
        '/admin/payouts?requested=FORGED-SEQ',
        '/admin/payouts?cancelled=FORGED-SEQ',
        '/admin/sub-merchants?registered=forged-seller',
      ]) {
        const page = await admin.get(path);
        expect(page.status, path).to.equal(200);
        expect(page.text, path).to.not.include('id="admin-ok"').and.not.include('FORGED').and.not.include('forged');
      }
    });

    it('keeps the payment return reachable without a login', async () => {
      const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'kimchi' });
      const moid = /^\/checkout\/(\w+)\?t=[\w-]+$/.exec(checkout.headers.location!)![1]!;
      const auth = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
      const ret = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(ret.status, ret.text).to.be.oneOf([200, 303]);
      expect(shop.db.order(moid)).to.include({ status: 'paid' });
    });
  });

  it('the payout form proposes the first weekday from today (KST): Monday on a Saturday, today on a weekday', async () => {
    const dateOf = async (): Promise<string> =>
      /id="payout-date" value="(\d{8})"/.exec((await admin.get('/admin/payouts')).text)![1]!;
    try {
      at(9, 0, 28); // Saturday 2026-11-28
      expect(await dateOf()).to.equal('20261130');
      at(9, 0, 30);
      expect(await dateOf()).to.equal('20261130');
    } finally {
      at(9, 0);
    }
  });

  it('shows the payout balance in won', async () => {
    sandbox.dataHost.deposit(MID, 50_000);
    const res = await admin.get('/admin');
    expect(res.status, res.text).to.equal(200);
    expect(textOf(res.text, 'balance-amount')).to.equal('50,000원');
    expect(textOf(res.text, 'balance-last')).to.include('현금 입금');
  });

  it('registers a sub-merchant; a duplicate id and the blackout each get their own message, and the form keeps its values', async () => {
    sandbox.dataHost.addAccountHolder('004', '111-222', '홍길동');
    const input = {
      subId: 'seller-a',
      subNm: '햏상점',
      subCoNo: '1234567890',
      bankCd: '004',
      accntNo: '111-222',
      accntNm: '홍길동',
      memo: '테스트',
    };
    const res = await admin
      .post('/admin/sub-merchants')
      .type('form')
      .send({ _csrf: csrf, ...input });
    expect(res.status, res.text).to.equal(303);
    const list = await admin.get(res.headers.location!);
    expect(textOf(list.text, 'admin-ok')).to.equal('서브몰 seller-a를 등록했습니다.');
    expect(list.text).to.include('data-sub-id="seller-a"').and.include('햏상점');
    expect(sandbox.dataHost.subMerchants(MID).map((s) => s.subId)).to.include('seller-a');

    // Gateway code 1106: an existing id.
    const dup = await admin
      .post('/admin/sub-merchants')
      .type('form')
      .send({ _csrf: csrf, ...input, subNm: '다른상점' });
    expect(dup.status).to.equal(409);
    expect(textOf(dup.text, 'admin-error')).to.equal(
      '이미 등록된 서브몰 ID입니다. 다른 ID를 입력해 주세요. (코드 1106)',
    );
    expect(dup.text).to.include('value="다른상점"').and.include('value="111-222"');

    at(23, 30, 22);
    const late = await admin.post('/admin/sub-merchants').type('form').send({
      _csrf: csrf,
      subId: 'seller-b',
      subNm: 'B상점',
      subCoNo: '1234567891',
      bankCd: '004',
      accntNo: '333-444',
      accntNm: '김철수',
    });
    expect(late.status).to.equal(422);
    expect(textOf(late.text, 'admin-error')).to.include('밤 11시부터 새벽 1시');
    expect(late.text).to.not.include('data-sub-id="seller-b"');
    expect(late.text).to.include('value="B상점"');
    at(9, 0);
  });

  it('asks for confirmation with the amount and target, then requests the payout and writes an audit line', async () => {
    const step1 = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: '30000', settlmntDt: DAY });
    expect(step1.status, step1.text).to.equal(200);
    expect(textOf(step1.text, 'confirm-amount')).to.equal('30,000원');
    expect(textOf(step1.text, 'confirm-target')).to.include('seller-a').and.include('햏상점');
    expect(sandbox.dataHost.payouts(MID)).to.have.length(0); // nothing moved yet

    const step2 = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: '30000', settlmntDt: DAY, confirm: 'yes' });
    expect(step2.status, step2.text).to.equal(303);
    const res = await admin.get(step2.headers.location!);
    expect(textOf(res.text, 'admin-ok')).to.match(/지급을 요청했습니다 \(순번 \d+\)/);
    expect(textOf(res.text, 'results-error')).to.include('오후 4시');
    expect(sandbox.dataHost.payouts(MID)).to.have.length(1);
    const line = logLines.find((l) => l.includes('"action":"payout.request"'))!;
    expect(JSON.parse(line)).to.include({
      audit: true,
      user: 'admin',
      subId: 'seller-a',
      amount: 30_000,
      settlmntDt: DAY,
    });
    expect(logLines.join('\n')).to.not.include(KEY).and.not.include(csrf);
  });

  it('the confirmation names the bank and the balance, and says plainly when the payout is above the balance', async () => {
    const balance = sandbox.dataHost.balance(MID).remainAmt;
    const within = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: String(balance), settlmntDt: NEXT_DAY });
    expect(textOf(within.text, 'confirm-target'))
      .to.include('KB국민은행 (004)')
      .and.not.match(/, 004 /);
    expect(textOf(within.text, 'confirm-balance')).to.equal(
      `현재 지급 가능 잔액: ${balance.toLocaleString('ko-KR')}원`,
    );
    expect(within.text).to.not.include('id="balance-warning"');

    const above = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: String(balance + 1_000_000), settlmntDt: NEXT_DAY });
    expect(above.status).to.equal(200);
    expect(textOf(above.text, 'balance-warning'))
      .to.include(`현재 지급 가능 잔액(${balance.toLocaleString('ko-KR')}원)보다 1,000,000원 많습니다`)
      .and.include('잔액 부족');
    expect(above.text).to.include('id="confirm-submit"'); // the operator may still confirm (the balance can be fed before the date)
    expect(sandbox.dataHost.payouts(MID)).to.have.length(1); // nothing requested by either confirmation page
  });

  it('a payout of -5 won and a late payout each get their own message, keeping the form values', async () => {
    const neg = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: '-5', settlmntDt: DAY, confirm: 'yes' });
    expect(neg.status).to.equal(400);
    expect(textOf(neg.text, 'admin-error')).to.equal('금액은 1원 이상의 정수(원)로 입력해 주세요.');
    expect(neg.text).to.include('id="payout-amount" inputmode="numeric" required value="-5"');

    at(10, 45);
    const late = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: '1000', settlmntDt: DAY, confirm: 'yes' });
    expect(late.status).to.equal(422);
    expect(textOf(late.text, 'admin-error')).to.include('10시 30분');
    expect(late.text).to.include('value="1000"');
    expect(sandbox.dataHost.payouts(MID)).to.have.length(1);
    at(9, 0);
  });

  it('a date the client would refuse (a Saturday, a past day, today after 10:30) is refused on the form step, before any confirmation', async () => {
    const step1 = (settlmntDt: string) =>
      admin.post('/admin/payouts').type('form').send({ _csrf: csrf, subId: 'seller-a', amount: '3000', settlmntDt });
    const before = sandbox.dataHost.payouts(MID).length;
    const saturday = await step1('20261128');
    expect(saturday.status).to.equal(422);
    expect(textOf(saturday.text, 'admin-error')).to.equal('영업일이 아닌 날짜입니다. 다른 지급일을 선택해 주세요.');
    expect(saturday.text).to.not.include('id="confirm-form"');
    expect(saturday.text).to.include('id="payout-date" value="20261128"').and.include('value="3000"');

    const past = await step1('20261120');
    expect([past.status, textOf(past.text, 'admin-error')]).to.deep.equal([422, '지난 날짜로는 요청할 수 없습니다.']);
    at(10, 45);
    try {
      const late = await step1(DAY);
      expect(late.status).to.equal(422);
      expect(textOf(late.text, 'admin-error')).to.include('10시 30분');
      // After the cut-off the form proposes the next business day, as the client would take it.
      expect(/id="payout-date" value="(\d{8})"/.exec((await admin.get('/admin/payouts')).text)![1]).to.equal(NEXT_DAY);
    } finally {
      at(9, 0);
    }
    // A business day still gets its confirmation step.
    expect(await step1(NEXT_DAY).then((r) => r.text)).to.include('id="confirm-form"');
    expect(sandbox.dataHost.payouts(MID)).to.have.length(before);
  });

  it('cancels a payout requested here after a confirmation step', async () => {
    const req = await admin
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: csrf, subId: 'seller-a', amount: '2000', settlmntDt: NEXT_DAY, confirm: 'yes' });
    expect(req.status, req.text).to.equal(303);
    const payout = sandbox.dataHost.payouts(MID).find((p) => p.amount === 2000)!;
    const step1 = await admin
      .post('/admin/payouts/cancel')
      .type('form')
      .send({ _csrf: csrf, settlmntDt: NEXT_DAY, seq: payout.seq });
    expect(textOf(step1.text, 'confirm-amount')).to.equal('2,000원');
    expect(sandbox.dataHost.payouts(MID).find((p) => p.seq === payout.seq)!.status).to.equal('요청');
    const step2 = await admin
      .post('/admin/payouts/cancel')
      .type('form')
      .send({ _csrf: csrf, settlmntDt: NEXT_DAY, seq: payout.seq, confirm: 'yes' });
    expect(step2.status, step2.text).to.equal(303);
    expect(sandbox.dataHost.payouts(MID).find((p) => p.seq === payout.seq)!.status).to.equal('삭제');
    expect(
      logLines.some((l) => l.includes('"action":"payout.cancel"') && l.includes(`"seq":"${payout.seq}"`)),
    ).to.equal(true);
  });

  it('shows payout results after 16:00 in Korean, and says so when ?date= is invalid', async () => {
    at(16, 5);
    const results = await admin.get(`/admin/payouts?date=${DAY}`);
    expect(results.status, results.text).to.equal(200);
    const row = /<tr data-seq="\d+" data-status="(\w+)">([\s\S]*?)<\/tr>/.exec(results.text)!;
    expect(row[1]).to.equal('succeeded');
    expect(row[2]).to.include('지급 완료').and.include('30,000원');

    const bad = await admin.get('/admin/payouts?date=2026-13-45');
    expect(bad.status).to.equal(400);
    expect(textOf(bad.text, 'date-error')).to.include('올바른 날짜').and.include('2026-13-45');
  });

  it('lists cash receipts for a date and exports them as UTF-8 CSV with a BOM', async () => {
    at(11, 0);
    const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'tomyum-kit' });
    const moid = /^\/checkout\/(\w+)\?t=[\w-]+$/.exec(checkout.headers.location!)![1]!;
    const auth = await sandbox.authenticate({
      moid,
      amount: 12_000,
      method: 'BANK',
      goodsName: '똠얌꿍 밀키트',
      cashReceipt: { type: 'income-deduction', identity: '01012345678' },
    });
    const ret = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(ret.status, ret.text).to.be.oneOf([200, 303]);

    const page = await admin.get(`/admin/recon?date=${DAY}`);
    expect(page.status, page.text).to.equal(200);
    expect(textOf(page.text, 'recon-count')).to.equal('1');
    expect(page.text).to.include('똠얌꿍 밀키트').and.include('12,000원').and.include('소득공제').and.include(moid);
    expect(page.text).to.include('<option value="all" selected>전체</option>');

    const csv = await admin
      .get(`/admin/recon?date=${DAY}&format=csv`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(csv.status).to.equal(200);
    expect(csv.headers['content-type']).to.match(/^text\/csv; charset=utf-8/);
    expect(csv.headers['content-disposition']).to.include('attachment');
    const bytes = csv.body as Buffer;
    expect([...bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).to.match(/^승인일자,승인시각,거래번호/);
    expect(lines).to.have.length(2);
    expect(lines[1]).to.include('똠얌꿍 밀키트').and.include(',12000,').and.include(moid);

    expect((await admin.get('/admin/recon?date=20261120')).text).to.include('id="no-receipts"');
    const bad = await admin.get('/admin/recon?date=tomorrow');
    expect(textOf(bad.text, 'date-error')).to.include('올바른 날짜');
  });

  it('lists every original method by default: a receipt just issued on its own (04) shows beside one from the window (02)', async () => {
    at(11, 30);
    const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'haeng-mug' });
    const moid = /^\/checkout\/(\w+)\?t=[\w-]+$/.exec(checkout.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: 8_900, method: 'BANK' });
    await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    const issued = await admin
      .post(`/admin/billing/receipts/${moid}`)
      .type('form')
      .send({ _csrf: csrf, type: 'income-deduction', identity: '01012345678' });
    expect(issued.status, issued.text).to.equal(303);
    // The receipts page shows (and so spends) the session's notice that it was issued.
    expect((await admin.get(issued.headers.location!)).text).to.include('id="admin-ok"');

    const rowsOf = (page: string) => [...page.matchAll(/<tr data-tid="(\w+)">([\s\S]*?)<\/tr>/g)].map((m) => m[2]!);
    const all = await admin.get(`/admin/recon?date=${DAY}`);
    expect(textOf(all.text, 'recon-count')).to.equal('2');
    const standalone = rowsOf(all.text).find((r) => r.includes(moid))!;
    expect(standalone).to.include('현금영수증 단독').and.include('8,900원');
    expect(rowsOf(all.text).find((r) => !r.includes(moid))).to.include('계좌이체');

    // One code still lists that code only: the gateway files the standalone receipt under 04.
    const only04 = await admin.get(`/admin/recon?date=${DAY}&orgSvcCd=04`);
    expect(rowsOf(only04.text)).to.have.length(1);
    expect(rowsOf(only04.text)[0]).to.include(moid);
    expect(only04.text).to.include('<option value="04" selected>');
    const only02 = await admin.get(`/admin/recon?date=${DAY}&orgSvcCd=02`);
    expect(rowsOf(only02.text).map((r) => r.includes(moid))).to.deep.equal([false]);

    const csv = await admin.get(`/admin/recon?date=${DAY}&format=csv`);
    expect(csv.headers['content-disposition']).to.include(`cash-receipts-${DAY}-all.csv`);
  });

  it('logout ends access', async () => {
    const { agent, token } = await login();
    expect((await agent.get('/admin')).status).to.equal(200);
    const out = await agent.post('/admin/logout').type('form').send({ _csrf: token });
    expect(out.status).to.equal(303);
    expect((await agent.get('/admin')).status).to.equal(303);
    const after = await agent
      .post('/admin/payouts')
      .type('form')
      .send({ _csrf: token, subId: 'seller-a', amount: '1', settlmntDt: DAY, confirm: 'yes' });
    expect(after.status).to.equal(403);
  });
});
