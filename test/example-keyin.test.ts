import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const APPROVED = '4111111111111111';
const LOST = '4000000000009979';

const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: card key-in page (/keyin)', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  /** The buyer's browser: keeps the cookie that makes the orders it places its own. */
  let buyer: ReturnType<typeof request.agent>;
  const logLines: string[] = [];
  const pages: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
    shop = createShop({ mid: MID, merchantKey: KEY, baseUrl: sandbox.url, dbFile: ':memory:', logger });
    buyer = request.agent(shop.app);
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  const keep = <T extends { text: string }>(res: T): T => {
    pages.push(res.text);
    return res;
  };

  async function newOrder(productId: string): Promise<string> {
    const res = await buyer.post('/keyin/order').type('form').send({ productId });
    expect(res.status).to.equal(303);
    const moid = /moid=([A-Z0-9]+)/.exec(res.headers.location!)![1]!;
    expect(shop.db.order(moid)).to.include({ status: 'pending', productId });
    return moid;
  }
  /** Posts the card form; follows the 303 to the result page (post/redirect/get). */
  async function pay(fields: Record<string, string>) {
    const post = keep(
      await buyer
        .post('/keyin/pay')
        .type('form')
        .send({ cardExpiry: '3012', ...fields }),
    );
    if (post.status !== 303) return post;
    expect(post.headers.location).to.match(new RegExp(`^/orders/${fields.moid}(\\?t=[\\w-]{22})?$`));
    return keep(await buyer.get(post.headers.location!));
  }
  /** The error code behind an error page: only a reference is shown, the log line has the code. */
  const errorCode = (page: string): string | undefined => {
    const ref = textOf(page, 'error-ref');
    expect(page).to.not.match(/NICEPAY_[A-Z_]+/);
    const line = logLines.find((l) => ref !== undefined && l.includes(`"ref":"${ref}"`));
    return line ? (JSON.parse(line) as { code?: string }).code : undefined;
  };

  it('shows a product picker, then a Korean card form for the order with the sandbox test cards', async () => {
    const list = keep(await buyer.get('/keyin'));
    expect(list.status).to.equal(200);
    expect(list.text).to.include('id="keyin-buy-tomyum-kit"').and.include('똠얌꿍 밀키트');
    const moid = await newOrder('tomyum-kit');
    const form = keep(await buyer.get(`/keyin?moid=${moid}`));
    expect(form.status).to.equal(200);
    expect(form.text).to.include('카드번호').and.include('유효기간').and.include('id="keyin-form"');
    expect(textOf(form.text, 'order-amount')).to.equal('12,000원');
    expect(form.text).to.include('4111-1111-1111-1111').and.include('4000-0000-0000-9979');
    // The test-card hints are in Korean: no English outcome names.
    expect(textOf(form.text, 'test-cards')).to.not.match(/expired|lost-stolen|suspended|limit-exceeded/);
    expect(form.text).to.include('분실·도난 카드');
    expect((await buyer.get('/keyin?moid=NOPE')).status).to.equal(404);
  });

  it('charges the order amount from SQLite and marks the order paid', async () => {
    const moid = await newOrder('tomyum-kit');
    const res = await pay({ moid, cardNumber: APPROVED });
    expect(res.status, res.text).to.equal(200);
    expect(textOf(res.text, 'result-status')).to.equal('결제가 완료되었습니다');
    expect(textOf(res.text, 'result-amount')).to.equal('12,000원');
    expect(textOf(res.text, 'result-goods')).to.equal('똠얌꿍 밀키트');
    expect(textOf(res.text, 'card-number')).to.match(/\*/);
    const order = shop.db.order(moid)!;
    expect(order).to.include({ status: 'paid', method: 'CARD' });
    expect(sandbox.ledger.get(order.tid!)).to.include({
      status: 'approved',
      amount: 12_000,
      source: 'keyin',
      goodsName: '똠얌꿍 밀키트',
    });
    // Refreshing the result page repeats only the GET; posting the card again charges nothing.
    expect(textOf((await buyer.get(`/orders/${moid}`)).text, 'result-status')).to.equal('결제가 완료되었습니다');
    const again = await pay({ moid, cardNumber: APPROVED });
    expect(again.status).to.equal(404);
    expect(sandbox.ledger.entries().filter((e) => e.moid === moid)).to.have.length(1);
    // The card form of a paid order leads to its result.
    const form = await buyer.get(`/keyin?moid=${moid}`);
    expect(form.status).to.equal(303);
    expect(form.headers.location).to.match(new RegExp(`^/orders/${moid}\\?t=[\\w-]{22}$`));
  });

  it("shows a decline with the issuer's message verbatim and marks the order declined", async () => {
    const moid = await newOrder('kimchi');
    const res = await pay({ moid, cardNumber: LOST });
    expect(res.status).to.equal(200);
    expect(textOf(res.text, 'result-status')).to.equal('결제가 거절되었습니다');
    expect(textOf(res.text, 'result-message')).to.equal('분실 도난 카드입니다');
    expect(res.text).to.not.include('3052'); // the code goes to the log only
    expect(logLines.some((l) => l.includes('"resultCode":"3052"'))).to.equal(true);
    expect(res.text).to.include('id="retry"').and.include('다른 카드로 다시 결제');
    expect(shop.db.order(moid)).to.include({ status: 'declined', tid: null });
  });

  it('refuses a posted amount that differs from the order, and an invalid card number without echoing it', async () => {
    const moid = await newOrder('haeng-mug');
    const cheap = await pay({ moid, cardNumber: APPROVED, amount: '100' });
    expect(cheap.status).to.equal(400);
    expect(errorCode(cheap.text)).to.equal('NICEPAY_AMOUNT_MISMATCH');
    const bad = await pay({ moid, cardNumber: '4111111111111112' });
    expect(bad.status).to.equal(400);
    expect(textOf(bad.text, 'form-error')).to.equal(
      '카드번호를 확인해 주세요. 보안을 위해 카드 정보는 다시 입력해 주세요.',
    );
    // The refused field is marked (and focused); no other is.
    expect(bad.text).to.match(/id="card-number-input"[^>]* aria-invalid="true"/);
    expect(bad.text.match(/aria-invalid="true"/g)).to.have.length(1);
    expect(bad.text).to.not.include('4111111111111112');
    expect(shop.db.order(moid)).to.include({ status: 'pending' });
  });

  it('refuses an installment plan the form does not offer: the form again naming 할부, the order unpaid, nothing charged', async () => {
    const moid = await newOrder('haeng-mug');
    const before = sandbox.ledger.entries().length;
    const res = await pay({ moid, cardNumber: APPROVED, quota: '99' });
    expect(res.status).to.equal(400);
    expect(textOf(res.text, 'form-error')).to.equal(
      '할부를 확인해 주세요. 보안을 위해 카드 정보는 다시 입력해 주세요.',
    );
    expect(res.text).to.match(/id="quota"[^>]* aria-invalid="true"/);
    expect(sandbox.ledger.entries().length).to.equal(before);
    expect(shop.db.order(moid)).to.include({ status: 'pending' });
    const offered = await pay({ moid, cardNumber: APPROVED, quota: '6' });
    expect(offered.status).to.equal(200);
    expect(shop.db.order(moid)).to.include({ status: 'paid' });
  });

  it('requires HTTPS when the gateway is not the local sandbox', async () => {
    const real = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: 'https://gateway.example.invalid',
      dbFile: ':memory:',
      logger,
    });
    try {
      const realBuyer = request.agent(real.app);
      const moid = /moid=([A-Z0-9]+)/.exec(
        (await realBuyer.post('/keyin/order').type('form').send({ productId: 'kimchi' })).headers.location!,
      )![1]!;
      const form = await realBuyer.get(`/keyin?moid=${moid}`);
      expect(form.text).to.not.include('id="test-cards"');
      const res = keep(
        await realBuyer.post('/keyin/pay').type('form').send({ moid, cardNumber: APPROVED, cardExpiry: '3012' }),
      );
      expect(res.status).to.equal(403);
      expect(errorCode(res.text)).to.equal('NICEPAY_INSECURE_TRANSPORT');
    } finally {
      await real.close();
    }
  });

  it('never logs nor echoes card data', () => {
    expect(pages.length).to.be.greaterThan(5);
    for (const n of [APPROVED, LOST, '4111111111111112']) {
      expect(pages.join('\n')).to.not.include(n);
      expect(logLines.join('\n')).to.not.include(n);
    }
  });
});
