/**
 * A refund the gateway only accepted is never shown as done. A paid virtual account refunded
 * to a bank account gets "refund accepted, not paid out yet" from the gateway; the buyer's page
 * and the back office both say so (one order state) until the operator records the payout, and
 * recording it sends nothing to the gateway. Cancelling an unpaid virtual account is worded as
 * a cancel, never as a refund, and banks are named, not coded.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import request from 'supertest';
import type { Shop } from '../example-app/app.js';
import type { Sandbox } from '../src/sandbox/index.js';
import { type NotifiedShop, startNotifiedShop } from './helpers/notified-shop.js';

const PASSWORD = 'payout-admin-password';
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1]?.trim();
const attrOf = (page: string, id: string, attr: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*\\b${attr}="([^"]*)"`).exec(page)?.[1];
/** The text of a `<p id>` with its inline markup stripped. */
const paragraph = (page: string, id: string): string =>
  (new RegExp(`<p id="${id}"[^>]*>([\\s\\S]*?)</p>`).exec(page)?.[1] ?? '').replace(/<[^>]+>/g, '');
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const hidden = (page: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;

describe('example-app: a refund NICEPAY accepted is pending until its payout is recorded', () => {
  let h: NotifiedShop;
  let sandbox: Sandbox;
  let shop: Shop;
  let server: Server;
  let admin: ReturnType<typeof request.agent>;
  let buyer: ReturnType<typeof request.agent>;
  let csrf: string;

  before(async () => {
    h = await startNotifiedShop({ admin: { password: PASSWORD } });
    ({ sandbox, shop, server } = h);
    admin = request.agent(server);
    buyer = request.agent(server);
    const form = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
    csrf = tokenOf((await admin.get('/admin/orders')).text);
  });
  after(() => h.close());

  /** A virtual-account order of `productId` bought by `buyer`, deposited when `paid`. */
  async function vbankOrder(productId: string, paid: boolean) {
    const post = await buyer.post('/checkout').type('form').send({ productId });
    const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: shop.db.order(moid)!.amount, method: 'VBANK' });
    await request(server).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    if (paid) await admin.post(`/admin/orders/${moid}/deposit`).type('form').send({ _csrf: csrf });
    const o = shop.db.order(moid)!;
    expect(o.status).to.equal(paid ? 'paid' : 'awaiting-deposit');
    return o;
  }

  /** Both steps of a refund (or cancel) from the back office. */
  async function refund(moid: string, fields: Record<string, string>) {
    const step1 = await admin
      .post(`/admin/orders/${moid}/refund`)
      .type('form')
      .send({ _csrf: csrf, reason: '고객 요청', ...fields });
    expect(step1.status, step1.text).to.equal(200);
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
    expect(step2.status, step2.text).to.equal(303);
    return { step1, landing: await admin.get(step2.headers.location!) };
  }
  const account = { bankCode: '004', number: '12345678901234', holder: '홍길동' };

  it('a paid virtual account refunded in full is "accepted, not paid out" on both sides until the operator records the payout', async () => {
    const o = await vbankOrder('jeju-tea', true);
    const { step1, landing } = await refund(o.moid, { amount: '15500', ...account });
    // The confirmation names the bank, never its bare code.
    expect(paragraph(step1.text, 'confirm-summary'))
      .to.include('KB국민은행 (004) ****1234 (홍길동)')
      .and.not.match(/계좌 004 /);
    expect(textOf(landing.text, 'admin-ok')).to.include('15,500원 환불이 접수되었습니다 (지급 전)');
    expect(sandbox.ledger.get(o.tid!)!.cancels!.map((c) => c.resultCode)).to.deep.equal(['2225']);
    expect(shop.db.order(o.moid)).to.include({ refundedAmount: 15_500, refundPendingAmount: 15_500 });

    // The back office: the state says 지급 전, and the list too.
    expect(attrOf(landing.text, 'admin-order-status', 'data-status')).to.equal('refund-pending');
    expect(textOf(landing.text, 'admin-order-status')).to.equal('전액 환불 접수 (지급 전)');
    expect(textOf(landing.text, 'admin-order-refund-pending')).to.equal('15,500원');
    const list = await admin.get('/admin/orders');
    expect(list.text).to.match(new RegExp(`data-moid="${o.moid}" data-status="refund-pending"`));
    expect(list.text).to.include('전액 환불 접수 (지급 전)');

    // The buyer's page: accepted, not done; nothing says the money is back.
    const page = await buyer.get(`/orders/${o.moid}`);
    expect(attrOf(page.text, 'result-status', 'data-state')).to.equal('refund-pending');
    expect(textOf(page.text, 'result-status')).to.equal('환불이 접수되었습니다 (지급 전)');
    expect(textOf(page.text, 'result-refund-payout')).to.equal('지급 전 (15,500원)');
    expect(page.text).to.not.include('전액 환불되었습니다').and.not.include('결제수단으로 돌아갑니다');
    expect((await buyer.get('/orders')).text).to.include('전액 환불 접수 (지급 전)');

    // The operator records the payout seen in NICEPAY's merchant admin: nothing is sent.
    const intent = /id="paid-out-(\d+)"/.exec(landing.text)![1]!;
    const callsBefore = sandbox.ledger.get(o.tid!)!.cancels!.length;
    const paidOut = await admin
      .post(`/admin/orders/${o.moid}/refunds/${intent}/paid-out`)
      .type('form')
      .send({ _csrf: csrf });
    expect(paidOut.status).to.equal(303);
    expect(sandbox.ledger.get(o.tid!)!.cancels!.length).to.equal(callsBefore);
    expect(shop.db.order(o.moid)).to.include({ refundedAmount: 15_500, refundPendingAmount: 0 });
    const after = await admin.get(paidOut.headers.location!);
    expect(attrOf(after.text, 'admin-order-status', 'data-status')).to.equal('refunded');
    expect(after.text).to.not.include(`id="paid-out-${intent}"`);
    const done = await buyer.get(`/orders/${o.moid}`);
    expect(textOf(done.text, 'result-status')).to.equal('결제가 취소되어 전액 환불되었습니다');
    expect(textOf(done.text, 'result-note')).to.equal('15,500원이 환불 계좌로 지급되었습니다.');
    expect(textOf(done.text, 'result-refund-payout')).to.equal('환불 계좌로 지급 완료');

    // Recorded once: a second record changes nothing.
    const again = await admin
      .post(`/admin/orders/${o.moid}/refunds/${intent}/paid-out`)
      .type('form')
      .send({ _csrf: csrf });
    expect(again.status).to.equal(409);
    expect(shop.db.order(o.moid)!.refundPendingAmount).to.equal(0);
  });

  it('a partial refund of a paid virtual account is a partial refund pending, with what is still paid', async () => {
    const o = await vbankOrder('kimchi', true);
    const { landing } = await refund(o.moid, { amount: '3000', ...account });
    expect(attrOf(landing.text, 'admin-order-status', 'data-status')).to.equal('partial-refund-pending');
    const page = await buyer.get(`/orders/${o.moid}`);
    expect(textOf(page.text, 'result-status')).to.equal('결제 금액 중 3,000원의 환불이 접수되었습니다 (지급 전)');
    expect(textOf(page.text, 'result-note')).to.equal(
      '3,000원은 아직 환불 계좌로 지급되지 않았습니다. 남은 결제 금액은 20,000원입니다.',
    );
  });

  it('a card refund is done at once: no payout to wait for', async () => {
    const post = await buyer.post('/checkout').type('form').send({ productId: 'tomyum-kit' });
    const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: 12_000, method: 'CARD' });
    await request(server).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    const { landing } = await refund(moid, { amount: '12000' });
    expect(textOf(landing.text, 'admin-ok')).to.equal('12,000원을 환불했습니다.');
    expect(attrOf(landing.text, 'admin-order-status', 'data-status')).to.equal('refunded');
    expect(landing.text).to.not.match(/id="paid-out-\d+"/);
    expect(textOf((await buyer.get(`/orders/${moid}`)).text, 'result-note')).to.equal(
      '12,000원이 결제수단으로 돌아갑니다.',
    );
  });

  it('an unpaid virtual account is cancelled, in the words of a cancel: nothing is refunded', async () => {
    const o = await vbankOrder('haeng-mug', false);
    const form = await admin.get(`/admin/orders/${o.moid}`);
    expect(form.text).to.include('돌려드릴 돈은 없습니다');
    const { step1, landing } = await refund(o.moid, { amount: '8900' });
    expect(textOf(step1.text, 'confirm-submit')).to.equal('확인, 주문을 취소합니다');
    expect(paragraph(step1.text, 'confirm-summary')).to.include('입금 전에 취소합니다').and.not.include('환불합니다');
    expect(textOf(landing.text, 'admin-ok')).to.include('주문을 취소했습니다');
    expect(landing.text).to.include('<dt>취소한 금액</dt>').and.not.include('환불한 금액');
    expect(attrOf(landing.text, 'admin-order-status', 'data-status')).to.equal('cancelled');
    expect(textOf((await buyer.get(`/orders/${o.moid}`)).text, 'result-status')).to.equal('주문이 취소되었습니다');
  });
});
