/**
 * The example shop's billing records follow the library's settlement
 * (example-app/settlement-follower.ts): a subscription charge whose answer (and reversal) was
 * lost is the package's to settle; while it holds the charge open the billing page says so and
 * the operator records nothing by hand; after settle() the shop's charge and the gateway agree.
 * A cash receipt being settled is not issued again meanwhile.
 *
 * Over loopback against the sandbox, on a frozen virtual clock shared with the shop's client;
 * no automatic settler runs (settle: false): each pass is an explicit nicepay.settle().
 */
import { channel } from 'node:diagnostics_channel';
import { expect } from 'chai';
import request from 'supertest';
import { billingDb } from '../example-app/db-billing.js';
import { kstToday } from '../example-app/routes/admin-page.js';
import { SETTLE_CHANNEL } from '../src/index.js';
import { TEST_MERCHANTS } from '../src/sandbox/index.js';
import { useSettlingShop } from './helpers/settling-shop.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: billing charges and cash receipts follow the library settlement', () => {
  const h = useSettlingShop('settle-billing-');

  describe('billing', () => {
    const month = (): string => kstToday(h.sandbox.clock.now()).slice(0, 6);
    const gateway = (moid: string): string[] =>
      h.sandbox.ledger
        .entries()
        .filter((e) => e.moid === moid)
        .map((e) => e.status);
    async function subscribe(): Promise<number> {
      const buyer = request.agent(h.server);
      const posted = await buyer
        .post('/subscription')
        .type('form')
        .send({ cardNumber: '4111111111111111', cardExpiry: '3012' });
      return Number(/^\/subscription\/(\d+)/.exec(posted.headers.location!)![1]);
    }
    const charge = (id: number) => h.admin.post(`/admin/billing/${id}/charge`).type('form').send({ _csrf: h.csrf });

    it('a charge whose answer and reversal were lost cannot be recorded as charged while the package holds it; after settle() the shop and the gateway agree', async () => {
      const id = await subscribe();
      h.sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
      h.sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500', commit: false });
      h.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect((await charge(id)).status).to.equal(502);
      const moid = `SUB-${id}-${month()}`;
      expect(gateway(moid), 'what the merchant admin shows').to.deep.equal(['approved']);
      h.sandbox.faults.clear();

      // The page says the package settles it, with its reason and next attempt; no manual buttons.
      const page = await h.admin.get('/admin/billing');
      expect(page.text).to.include(`id="settling-${moid}"`).and.include('결제 모듈이 정산 중');
      expect(page.text).to.not.include(`resolve-charged-${moid}`).and.not.include(`id="check-${moid}"`);
      // The operator's old "charged" post changes nothing; neither does charging the month again.
      const resolved = await h.admin
        .post(`/admin/billing/charges/${moid}/resolve`)
        .type('form')
        .send({ _csrf: h.csrf, outcome: 'charged' });
      expect(resolved.status).to.equal(409);
      expect(textOf(resolved.text, 'admin-error')).to.include('결제 모듈이 정산하고 있습니다');
      expect((await charge(id)).status).to.equal(409);
      expect(billingDb(h.shop.db, KEY).charge(moid)!.status).to.equal('unknown');
      expect(gateway(moid)).to.deep.equal(['approved']);

      const report = await h.settle();
      expect(report.settled).to.deep.include({
        operation: 'billing.charge',
        mid: MID,
        tid: report.settled.find((s) => s.moid === moid)!.tid,
        moid,
        amount: 29_900,
        outcome: 'reversed',
      });
      // The shop's charge follows: not charged, as the gateway holds it (cancelled).
      expect(billingDb(h.shop.db, KEY).charge(moid)).to.include({ status: 'failed', message: '정산: 결제 취소됨' });
      expect(gateway(moid)).to.deep.equal(['cancelled']);
      // The month may be charged again, under the next Moid, and then the two agree on paid.
      const again = await charge(id);
      expect(again.headers.location).to.equal('/admin/billing');
      expect(textOf((await h.admin.get('/admin/billing')).text, 'admin-ok')).to.include('결제했습니다');
      expect(billingDb(h.shop.db, KEY).charge(`${moid}-2`)!.status).to.equal('approved');
      expect(gateway(`${moid}-2`)).to.deep.equal(['approved']);
    });

    it('a charge the package settled while the shop was not listening is checked by the same charge: answered from the closed record, nothing sent', async () => {
      const id = await subscribe();
      h.sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
      h.sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500', commit: false });
      h.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect((await charge(id)).status).to.equal(502);
      const moid = `SUB-${id}-${month()}`;
      h.sandbox.faults.clear();
      // The shop stops; a settlement pass runs without it (as `express-nicepay settle` from cron).
      const settled = await h.settleWhileAway();
      expect(settled.map((s) => [s.moid, s.outcome])).to.deep.include([moid, 'reversed']);
      expect(billingDb(h.shop.db, KEY).charge(moid)!.status, 'the shop did not hear it').to.equal('unknown');

      const page = await h.admin.get('/admin/billing');
      expect(page.text).to.include(`id="check-${moid}"`).and.not.include(`id="settling-${moid}"`);
      const sent = h.sandbox.ledger.entries().length;
      const checked = await h.admin.post(`/admin/billing/charges/${moid}/resolve`).type('form').send({ _csrf: h.csrf });
      expect(checked.status, checked.text).to.equal(303);
      expect(billingDb(h.shop.db, KEY).charge(moid)).to.include({ status: 'failed', message: '결제 취소됨' });
      expect(h.sandbox.ledger.entries().length, 'nothing was charged').to.equal(sent);
      expect(gateway(moid)).to.deep.equal(['cancelled']);
    });
  });

  describe('key-in orders', () => {
    it('a key-in whose charge the package reversed offers no card form for the spent order number, only a new order', async () => {
      const buyer = request.agent(h.server);
      const o = await buyer.post('/keyin/order').type('form').send({ productId: 'kimchi' });
      const moid = /moid=(\w+)/.exec(o.headers.location!)![1]!;
      h.sandbox.faults.inject({ target: 'keyin', kind: 'status-500', commit: true });
      h.sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
      const card = { moid, cardNumber: '4111111111111111', cardExpiry: '3012', quota: '0' };
      expect((await buyer.post('/keyin/pay').type('form').send(card)).status).to.equal(502);
      h.sandbox.faults.clear();
      const report = await h.settle();
      expect(report.settled.filter((s) => s.moid === moid).map((s) => [s.operation, s.outcome])).to.deep.equal([
        ['keyin', 'reversed'],
      ]);
      expect(h.shop.db.order(moid)).to.include({ status: 'pending', moidSpent: true });
      // The card form is not offered for it; its page offers a new key-in order.
      const form = await buyer.get(`/keyin?moid=${moid}`);
      expect(form.status).to.equal(303);
      const page = await buyer.get(form.headers.location!);
      expect(page.text).to.include('이 주문번호로는 다시 결제할 수 없습니다').and.include('action="/keyin/order"');
      const sent = h.sandbox.ledger.entries().length;
      expect((await buyer.post('/keyin/pay').type('form').send(card)).status).to.equal(404);
      expect(h.sandbox.ledger.entries().length, 'nothing sent for the spent number').to.equal(sent);
    });
  });

  describe('cash receipts', () => {
    /** A bank transfer paid through the shop; `cashReceipt` is what the buyer took in the window. */
    async function bankOrder(cashReceipt?: { type: 'income-deduction'; identity: string }): Promise<string> {
      const buyer = request.agent(h.server);
      const post = await buyer.post('/checkout').type('form').send({ productId: 'haeng-mug' });
      const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
      const auth = await h.sandbox.authenticate({
        moid,
        amount: 8_900,
        method: 'BANK',
        ...(cashReceipt ? { cashReceipt } : {}),
      });
      await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(h.shop.db.order(moid)).to.include({ status: 'paid', method: 'BANK' });
      return moid;
    }
    const issue = (moid: string) =>
      h.admin
        .post(`/admin/billing/receipts/${moid}`)
        .type('form')
        .send({ _csrf: h.csrf, type: 'income-deduction', identity: '01012345678' });
    /** Refunds `amount` (all of it by default) through the back office's two steps. */
    async function refundAll(moid: string, amount = 8_900): Promise<void> {
      const send = (extra: Record<string, string>) =>
        h.admin
          .post(`/admin/orders/${moid}/refund`)
          .type('form')
          .send({ _csrf: h.csrf, reason: '고객 요청', amount: String(amount), ...extra });
      const step1 = await send({});
      const key = /name="idempotencyKey" value="([^"]+)"/.exec(step1.text)![1]!;
      expect((await send({ idempotencyKey: key, confirm: 'yes' })).status).to.equal(303);
    }

    /** The gateway's standalone receipts of an order: their Moid, amount and state (0 issued, 1 cancelled). */
    const receiptsOf = (moid: string) =>
      h.sandbox.dataHost
        .cashReceipts()
        .filter((r) => r.orgSvcCd === '04' && r.moid.startsWith(moid))
        .map((r) => [r.moid, r.goodsAmt, r.stateCd]);

    it('after a partial refund the receipt for the whole amount is cancelled and one is issued for what the buyer kept', async () => {
      const moid = await bankOrder();
      expect((await issue(moid)).status).to.equal(303);
      await refundAll(moid, 1_000);
      const page = await h.admin.get('/admin/billing/receipts');
      expect(page.text).to.include(`id="receipt-cancel-${moid}"`).and.include('7,900원');
      expect((await issue(moid)).status, 'no second receipt beside the first').to.equal(409);
      const cancel = await h.admin.post(`/admin/billing/receipts/${moid}/cancel`).type('form').send({ _csrf: h.csrf });
      expect(cancel.status).to.equal(303);
      expect((await issue(moid)).status).to.equal(303);
      expect(receiptsOf(moid)).to.deep.equal([
        [moid, 8_900, '1'],
        [`${moid}-R2`, 7_900, '0'],
      ]);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.include({ status: 'issued', amount: 7_900, attempt: 2 });
      expect((await h.admin.get('/admin/billing/receipts')).text).to.not.include(`id="receipt-cancel-${moid}"`);
    });

    it('a receipt attempt whose answer was lost and that the package reversed at once can be asked for again, under a Moid of its own', async () => {
      const moid = await bankOrder();
      h.sandbox.faults.inject({ target: 'cash-receipt', kind: 'drop', commit: true });
      expect((await issue(moid)).status).to.equal(502);
      h.sandbox.faults.clear();
      expect(receiptsOf(moid)).to.deep.equal([[moid, 8_900, '1']]);
      const page = await h.admin.get('/admin/billing/receipts');
      expect(page.text)
        .to.include(`id="receipt-refused-${moid}"`)
        .and.match(new RegExp(`action="/admin/billing/receipts/${moid}"`));
      expect((await issue(moid)).status).to.equal(303);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.include({ status: 'issued', receiptMoid: `${moid}-R2` });
      expect(receiptsOf(moid)).to.deep.equal([
        [moid, 8_900, '1'],
        [`${moid}-R2`, 8_900, '0'],
      ]);
    });

    it('a receipt attempt settlement closed as not issued (published on the settle channel) moves the order on to its next attempt', async () => {
      const moid = await bankOrder();
      // What the package publishes when a settlement pass reverses a lost receipt attempt.
      channel(SETTLE_CHANNEL).publish({
        operation: 'cash-receipt',
        mid: h.shop.nicepay.mid,
        tid: 'nicepay00m04012611271200009999',
        moid,
        amount: 8_900,
        outcome: 'reversed',
      });
      await h.shop.followed();
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.include({ status: 'refused', attempt: 1 });
      expect((await issue(moid)).status).to.equal(303);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.include({ status: 'issued', receiptMoid: `${moid}-R2` });
    });

    it('a receipt the gateway refused can be asked for again, under a Moid of its own', async () => {
      const moid = await bankOrder();
      h.sandbox.faults.inject({ target: 'cash-receipt', kind: 'decline', resultCode: '7012' });
      expect((await issue(moid)).status).to.equal(303);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.include({ status: 'refused' });
      expect((await h.admin.get('/admin/billing/receipts')).text).to.include(`id="receipt-refused-${moid}"`);
      expect((await issue(moid)).status).to.equal(303);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.include({ status: 'issued', receiptMoid: `${moid}-R2` });
      expect(receiptsOf(moid)).to.deep.equal([[`${moid}-R2`, 8_900, '0']]);
    });

    it('a receipt identity that is not a phone or business number is named in the error, and nothing is issued', async () => {
      const moid = await bankOrder();
      const before = h.sandbox.dataHost.cashReceipts().length;
      const res = await h.admin
        .post(`/admin/billing/receipts/${moid}`)
        .type('form')
        .send({ _csrf: h.csrf, type: 'income-deduction', identity: '12' });
      expect(res.status).to.equal(400);
      expect(textOf(res.text, 'admin-error')).to.equal('발급번호를 확인해 주세요.');
      expect(h.sandbox.dataHost.cashReceipts().length).to.equal(before);
    });

    it('a bank transfer whose buyer took a receipt in the payment window is offered no second one; one posted anyway is refused and nothing is issued', async () => {
      const moid = await bankOrder({ type: 'income-deduction', identity: '01099998888' });
      const page = await h.admin.get('/admin/billing/receipts');
      expect(page.text).to.include(`id="receipt-window-${moid}"`);
      expect(page.text).to.not.match(new RegExp(`action="/admin/billing/receipts/${moid}"`));
      const before = h.sandbox.dataHost.cashReceipts().length;
      const res = await issue(moid);
      expect(res.status).to.equal(409);
      expect(h.sandbox.dataHost.cashReceipts().length).to.equal(before);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.equal(undefined);
    });

    it('a refunded order is offered no receipt; one issued before its refund is offered for cancel, and the cancel reaches the gateway once', async () => {
      const never = await bankOrder();
      await refundAll(never);
      const issued = await bankOrder();
      expect((await issue(issued)).status).to.equal(303);
      const rc = billingDb(h.shop.db, KEY).receipt(issued)!;
      expect(rc).to.include({ status: 'issued' });
      await refundAll(issued);

      const page = await h.admin.get('/admin/billing/receipts');
      expect(page.text).to.include(`id="receipt-none-${never}"`);
      expect(page.text).to.not.match(new RegExp(`action="/admin/billing/receipts/${never}"`));
      expect(page.text).to.include(`id="receipt-cancel-${issued}"`);
      const before = h.sandbox.dataHost.cashReceipts().length;
      expect((await issue(never)).status).to.equal(409);
      expect(h.sandbox.dataHost.cashReceipts().length, 'nothing issued for a refunded order').to.equal(before);

      const cancel = () =>
        h.admin.post(`/admin/billing/receipts/${issued}/cancel`).type('form').send({ _csrf: h.csrf });
      expect((await cancel()).status).to.equal(303);
      expect(billingDb(h.shop.db, KEY).receipt(issued)).to.include({ status: 'cancelled' });
      expect(h.sandbox.ledger.get(rc.tid)).to.include({ status: 'cancelled' });
      expect((await cancel()).status, 'a second click cancels nothing more').to.equal(409);
      const after = await h.admin.get('/admin/billing/receipts');
      expect(after.text).to.not.include(`id="receipt-cancel-${issued}"`);
    });

    it('a receipt whose answer and reversal were lost is not issued again while the package settles it', async () => {
      const buyer = request.agent(h.server);
      const post = await buyer.post('/checkout').type('form').send({ productId: 'haeng-mug' });
      const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
      const auth = await h.sandbox.authenticate({ moid, amount: 8_900, method: 'BANK' });
      await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(h.shop.db.order(moid)).to.include({ status: 'paid', method: 'BANK' });
      const issue = () =>
        h.admin
          .post(`/admin/billing/receipts/${moid}`)
          .type('form')
          .send({ _csrf: h.csrf, type: 'income-deduction', identity: '01012345678' });
      h.sandbox.faults.inject({ target: 'cash-receipt', kind: 'drop', commit: true });
      h.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect((await issue()).status).to.equal(502);
      h.sandbox.faults.clear();
      const held = (await h.shop.nicepay.unsettled()).find((u) => u.moid === moid);
      expect(held).to.include({ operation: 'cash-receipt' });

      const page = await h.admin.get('/admin/billing/receipts');
      expect(page.text).to.include(`id="receipt-settling-${moid}"`);
      expect(page.text).to.not.match(new RegExp(`action="/admin/billing/receipts/${moid}"`));
      const sent = h.sandbox.dataHost.cashReceipts().length;
      const again = await issue();
      expect(again.status).to.equal(409);
      expect(textOf(again.text, 'admin-error')).to.include('결제 모듈이 정산하고 있습니다');
      expect(h.sandbox.dataHost.cashReceipts().length, 'nothing issued again').to.equal(sent);
      expect(billingDb(h.shop.db, KEY).receipt(moid)).to.equal(undefined);
    });
  });
});
