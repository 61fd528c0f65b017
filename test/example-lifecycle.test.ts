import { expect } from 'chai';
import type { Server } from 'node:http';
import request from 'supertest';
import type { Shop } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { type Sandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';
import { type NotifiedShop, startNotifiedShop } from './helpers/notified-shop.js';

/*
 * The example shop: the window opened with paymentWindow, deposits learnt
 * from the gateway's notices on /pay/notify, and refunds (full, partial, virtual accounts to a
 * refund account) from the back office, behind its login and CSRF tokens.
 */
const { merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'lifecycle-admin-password';
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const hidden = (page: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;

describe('example-app: payment window, deposit notices and refunds', () => {
  let h: NotifiedShop;
  let sandbox: Sandbox;
  let shop: Shop;
  let server: Server;
  let admin: ReturnType<typeof request.agent>;
  /** The buyer's browser: its cookie makes the orders it places its own. */
  let shopper: ReturnType<typeof request.agent>;
  let csrf: string;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  before(async () => {
    h = await startNotifiedShop({ logger, admin: { password: PASSWORD } });
    ({ sandbox, shop, server } = h);
    admin = request.agent(shop.app);
    shopper = request.agent(server);
    const form = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
    csrf = tokenOf((await admin.get('/admin/orders')).text);
  });
  after(() => h.close());

  /** Orders a product, authenticates it in the sandbox and posts the return; returns the order. */
  async function buy(productId: string, method: 'CARD' | 'VBANK') {
    const post = await shopper.post('/checkout').type('form').send({ productId });
    const page = await shopper.get(post.headers.location!);
    const moid = textOf(page.text, 'order-moid')!;
    const amount = shop.db.order(moid)!.amount;
    const auth = await sandbox.authenticate({ moid, amount, method });
    const ret = await request(server)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(ret.status, ret.text).to.equal(303);
    return shop.db.order(moid)!;
  }

  /** Step 1 (confirmation page) then step 2 of a refund; returns both answers. */
  async function refund(moid: string, fields: Record<string, string>) {
    const step1 = await admin
      .post(`/admin/orders/${moid}/refund`)
      .type('form')
      .send({ _csrf: csrf, reason: '고객 요청', ...fields });
    if (step1.status !== 200 || !step1.text.includes('id="confirm-form"')) return { step1, step2: undefined };
    const step2 = await admin
      .post(`/admin/orders/${moid}/refund`)
      .type('form')
      .send({
        _csrf: csrf,
        reason: '고객 요청',
        ...fields,
        idempotencyKey: hidden(step1.text, 'idempotencyKey'),
        confirm: 'yes',
      });
    return { step1, step2 };
  }

  it('opens the window with paymentWindow: signed fields, no hand signing in the shop', async () => {
    const post = await shopper.post('/checkout').type('form').send({ productId: 'kimchi' });
    const page = await shopper.get(post.headers.location!);
    const moid = textOf(page.text, 'order-moid')!;
    const expected = shop.nicepay.paymentWindow({
      moid,
      amount: 23_000,
      goodsName: '전라도 포기김치 2kg',
      returnUrl: 'http://x/pay/return',
    });
    expect(hidden(page.text, 'SignData')).to.match(/^[0-9a-f]{64}$/);
    expect(hidden(page.text, 'CharSet')).to.equal(expected.CharSet);
    expect(hidden(page.text, 'Amt')).to.equal('23000');
    expect(page.text).to.not.include(KEY);
  });

  it('a virtual account: issued, then the back office deposit button makes the sandbox notify /pay/notify, and the order is paid', async () => {
    const order = await buy('kimchi', 'VBANK');
    expect(order).to.include({ status: 'awaiting-deposit', method: 'VBANK' });
    const page = await admin.get(`/admin/orders/${order.moid}`);
    expect(page.text).to.include('id="deposit-submit"');

    const forged = await admin.post(`/admin/orders/${order.moid}/deposit`).type('form').send({});
    expect(forged.status).to.equal(403); // no CSRF token: nothing happened
    expect(shop.db.order(order.moid)!.status).to.equal('awaiting-deposit');

    const res = await admin.post(`/admin/orders/${order.moid}/deposit`).type('form').send({ _csrf: csrf });
    expect(res.status, res.text).to.equal(303);
    expect(shop.db.order(order.moid)).to.include({ status: 'paid' });
    const entry = sandbox.ledger.get(order.tid!)!;
    expect(entry.notices!.map((n) => [n.kind, n.status, n.answer])).to.deep.equal([['deposit', 200, 'OK']]);
    const result = await shopper.get(`/orders/${order.moid}`);
    expect(textOf(result.text, 'result-status')).to.equal('입금이 확인되어 결제가 완료되었습니다');
    expect(logLines.some((l) => l.includes('"action":"sandbox.deposit"'))).to.equal(true);
  });

  it('refunds a card partly, then the rest, then refuses one too many; each step shows the remaining amount', async () => {
    const order = await buy('tomyum-kit', 'CARD');
    const first = await refund(order.moid, { amount: '5000' });
    expect(textOf(first.step1.text, 'confirm-amount')).to.equal('5,000원');
    expect(first.step1.text).to.include('부분 환불').and.include('남은 금액: 7,000원');
    expect(first.step2!.status, first.step2!.text).to.equal(303);
    const after1 = await admin.get(first.step2!.headers.location!);
    expect(textOf(after1.text, 'admin-order-remaining')).to.equal('7,000원');
    expect(textOf(after1.text, 'admin-order-status')).to.equal('부분 환불');
    expect(sandbox.ledger.get(order.tid!)!.cancels!.map((c) => [c.amount, c.remaining, c.partial])).to.deep.equal([
      [5_000, 7_000, true],
    ]);

    // The same confirmation posted twice (a double click) refunds once.
    const again = await admin
      .post(`/admin/orders/${order.moid}/refund`)
      .type('form')
      .send({
        _csrf: csrf,
        reason: '고객 요청',
        amount: '5000',
        idempotencyKey: hidden(first.step1.text, 'idempotencyKey'),
        confirm: 'yes',
      });
    expect(again.status).to.equal(303);
    expect(sandbox.ledger.get(order.tid!)!.cancels).to.have.length(1);
    expect(shop.db.order(order.moid)!.refundedAmount).to.equal(5_000);

    const tooMuch = await refund(order.moid, { amount: '8000' });
    expect(tooMuch.step1.status).to.equal(422);
    expect(textOf(tooMuch.step1.text, 'admin-error')).to.equal('남은 금액(7,000원)보다 많이 환불할 수 없습니다.');
    expect(tooMuch.step1.text).to.include('value="8000"'); // the form keeps what was typed

    const rest = await refund(order.moid, { amount: '7000' });
    expect(rest.step1.text).to.include('전액 환불');
    expect(rest.step2!.status).to.equal(303);
    expect(shop.db.order(order.moid)!.refundedAmount).to.equal(12_000);
    expect(sandbox.ledger.get(order.tid!)!.status).to.equal('cancelled');

    const oneMore = await refund(order.moid, { amount: '1' });
    expect(oneMore.step1.status).to.equal(409);
    expect(textOf(oneMore.step1.text, 'admin-error')).to.equal('환불할 수 있는 주문이 아닙니다.');
    expect(sandbox.ledger.get(order.tid!)!.cancels).to.have.length(2);
    const buyer = await shopper.get(`/orders/${order.moid}`);
    expect(textOf(buyer.text, 'result-refunded')).to.equal('12,000원 (전액)');
    // Two refunds sent; the double click sent nothing and says so.
    expect(logLines.filter((l) => l.includes('"action":"refund"'))).to.have.length(2);
    expect(logLines.filter((l) => l.includes('"action":"refund.repeated"'))).to.have.length(1);
  });

  it('a paid virtual account is refunded to a refund account; without one the form says so and keeps its values', async () => {
    const order = await buy('jeju-tea', 'VBANK');
    await admin.post(`/admin/orders/${order.moid}/deposit`).type('form').send({ _csrf: csrf });
    expect(shop.db.order(order.moid)!.status).to.equal('paid');
    const page = await admin.get(`/admin/orders/${order.moid}`);
    expect(page.text).to.include('id="refund-account"');

    const missing = await refund(order.moid, { amount: '15500', bankCode: '004', number: '', holder: '' });
    expect(missing.step1.status).to.equal(400);
    expect(textOf(missing.step1.text, 'admin-error')).to.include('환불 계좌');
    // the bank comes back selected: a select of bank names, not a code typed from memory
    expect(missing.step1.text)
      .to.include('<select name="bankCode" id="refund-bank" required>')
      .and.include('<option value="004" selected>KB국민은행 (004)</option>');

    const ok = await refund(order.moid, {
      amount: '15500',
      bankCode: '004',
      number: '12345678901234',
      holder: '홍길동',
    });
    expect(ok.step2!.status, ok.step2!.text).to.equal(303);
    const cancel = sandbox.ledger.get(order.tid!)!.cancels![0]!;
    expect(cancel).to.include({ amount: 15_500 });
    expect(cancel.refundAccount).to.include({ bankCode: '004', holder: '홍길동' });
    expect(shop.db.order(order.moid)!.refundedAmount).to.equal(15_500);
    expect(logLines.join('\n')).to.not.include('12345678901234');
  });

  it('an unpaid virtual account is cancelled in full, without a refund account', async () => {
    const order = await buy('haeng-mug', 'VBANK');
    const page = await admin.get(`/admin/orders/${order.moid}`);
    expect(page.text).to.include('주문 취소 (입금 전 가상계좌: 전액)').and.not.include('id="refund-account"');
    const r = await refund(order.moid, { amount: '8900' });
    expect(r.step2!.status, r.step2!.text).to.equal(303);
    expect(shop.db.order(order.moid)!.refundedAmount).to.equal(8_900);
    expect((await admin.get(`/admin/orders/${order.moid}`)).text).to.not.include('id="deposit-submit"');
  });

  it('the order pages are behind the login', async () => {
    expect((await request(server).get('/admin/orders')).status).to.equal(303);
    const post = await request(server)
      .post('/admin/orders/x/refund')
      .type('form')
      .send({ amount: '1', confirm: 'yes' });
    expect(post.status).to.equal(403);
  });
});
