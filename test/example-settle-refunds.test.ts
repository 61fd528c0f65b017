/**
 * The example shop's refund intents follow the library's settlement
 * (example-app/settlement-follower.ts): a full refund whose answer was lost keeps its
 * idempotency key and is settled by the package (the same cancel again), and the intent follows
 * the settled record; while the package holds it open, the order page says so and sends
 * nothing. A partial refund, which the package never sends again, keeps the operator's record.
 *
 * Over loopback against the sandbox, on a frozen virtual clock shared with the shop's client;
 * no automatic settler runs (settle: false): each pass is an explicit nicepay.settle().
 */
import { expect } from 'chai';
import request from 'supertest';
import { refundStore } from '../example-app/db-refunds.js';
import { TEST_MERCHANTS } from '../src/sandbox/index.js';
import { useSettlingShop } from './helpers/settling-shop.js';

const { mid: MID } = TEST_MERCHANTS[0]!;
const hidden = (page: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: refund intents follow the library settlement', () => {
  const h = useSettlingShop('settle-refunds-');

  /** The library's cancel records of a TID (the shop's SQLite file holds the ledger). */
  const ledgerCancels = (tid: string): string[] =>
    h.shop.db.sqlite
      .prepare<[string], { key: string }>("SELECT key FROM nicepay_ledger WHERE key LIKE 'cancel:%' AND key LIKE ?")
      .all(`%:${tid}:%`)
      .map((r) => r.key);

  describe('refunds', () => {
    async function paidOrder(productId: string) {
      const buyer = request.agent(h.server);
      const post = await buyer.post('/checkout').type('form').send({ productId });
      const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
      const auth = await h.sandbox.authenticate({ moid, amount: h.shop.db.order(moid)!.amount, method: 'CARD' });
      await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      const o = h.shop.db.order(moid)!;
      expect(o.status).to.equal('paid');
      return o;
    }
    /** Step 1 and step 2 of a refund of `amount`; returns step 2's answer. */
    async function refund(moid: string, amount: string) {
      const step1 = await h.admin
        .post(`/admin/orders/${moid}/refund`)
        .type('form')
        .send({ _csrf: h.csrf, reason: '고객 요청', amount });
      return h.admin
        .post(`/admin/orders/${moid}/refund`)
        .type('form')
        .send({
          _csrf: h.csrf,
          reason: '고객 요청',
          amount,
          idempotencyKey: hidden(step1.text, 'idempotencyKey'),
          confirm: 'yes',
        });
    }
    const cancels = (tid: string) => h.sandbox.ledger.get(tid)!.cancels ?? [];
    const resolveUrl = (page: string): string =>
      /action="(\/admin\/orders\/\w+\/refunds\/\d+\/resolve)"/.exec(page)?.[1] ?? '';

    for (const committed of [true, false]) {
      it(`a full refund whose answer is lost ${committed ? 'after' : 'before'} the gateway cancelled is settled by the package with the same key: the intent follows, one cancel at the gateway, one ledger cancel record`, async () => {
        const o = await paidOrder('kimchi');
        h.sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: committed });
        const lost = await refund(o.moid, String(o.amount));
        expect(lost.status, lost.text).to.equal(502);
        const [intent] = refundStore(h.shop.db).ofOrder(o.moid);
        expect(intent).to.include({ state: 'unknown', attempts: 1 });
        h.sandbox.faults.clear();

        // The page shows it being settled by the package and offers no "send again".
        const page = await h.admin.get(`/admin/orders/${o.moid}`);
        expect(page.text).to.include('id="refund-settling"').and.not.include('id="resolve-submit"');
        expect(page.text).to.not.include('id="refund-form"');
        const url = `/admin/orders/${o.moid}/refunds/${intent!.id}/resolve`;
        expect((await h.admin.post(url).type('form').send({ _csrf: h.csrf })).status).to.equal(409);
        expect(cancels(o.tid!)).to.have.length(committed ? 1 : 0);

        const report = await h.settle();
        expect(report.settled).to.deep.include({
          operation: 'cancel',
          mid: MID,
          tid: o.tid,
          moid: o.moid,
          amount: o.amount,
          outcome: 'kept',
        });
        expect(refundStore(h.shop.db).byId(intent!.id)).to.include({
          state: 'done',
          attempts: 1,
          cancelledAmount: o.amount,
          payout: 'none',
          note: '정산: 환불됨',
        });
        expect(h.shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
        expect(cancels(o.tid!)).to.have.length(1);
        expect(h.sandbox.ledger.get(o.tid!)!.status).to.equal('cancelled');
        expect(ledgerCancels(o.tid!), 'one cancel record: the same key').to.deep.equal([
          `cancel:${MID}:${o.tid}:${o.amount}:refund-${intent!.id}-1`,
        ]);
        // Settled: nothing more to resolve, nothing counted twice.
        expect((await h.admin.post(url).type('form').send({ _csrf: h.csrf })).status).to.equal(409);
        expect(h.shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
      });
    }

    for (const committed of [true, false]) {
      it(`a paid virtual account's full refund lost ${committed ? 'after' : 'before'} the gateway accepted it follows settlement as accepted, its payout pending`, async () => {
        const buyer = request.agent(h.server);
        const post = await buyer.post('/checkout').type('form').send({ productId: 'jeju-tea' });
        const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
        const auth = await h.sandbox.authenticate({ moid, amount: 15_500, method: 'VBANK' });
        await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
        expect(
          (await h.admin.post(`/admin/orders/${moid}/deposit`).type('form').send({ _csrf: h.csrf })).status,
        ).to.equal(303);
        const o = h.shop.db.order(moid)!;
        expect(o.status).to.equal('paid');
        const account = { bankCode: '004', number: '12345678901234', holder: '홍길동' };
        const step1 = await h.admin
          .post(`/admin/orders/${moid}/refund`)
          .type('form')
          .send({ _csrf: h.csrf, reason: '고객 요청', amount: '15500', ...account });
        h.sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: committed });
        const lost = await h.admin
          .post(`/admin/orders/${moid}/refund`)
          .type('form')
          .send({
            _csrf: h.csrf,
            reason: '고객 요청',
            amount: '15500',
            ...account,
            idempotencyKey: hidden(step1.text, 'idempotencyKey'),
            confirm: 'yes',
          });
        expect(lost.status).to.equal(502);
        h.sandbox.faults.clear();
        await h.settle();
        const [intent] = refundStore(h.shop.db).ofOrder(moid);
        expect(intent).to.include({ state: 'done', cancelledAmount: 15_500, payout: 'pending' });
        expect(h.shop.db.order(moid)).to.include({ refundedAmount: 15_500, refundPendingAmount: 15_500 });
        expect(cancels(o.tid!)).to.have.length(1);
        expect(ledgerCancels(o.tid!)).to.have.length(1);
        expect(h.logLines.join('\n')).to.not.include(account.number);
      });
    }

    it('a full refund the package settled while the shop was not listening is checked by the same cancel, answered from the closed record', async () => {
      const o = await paidOrder('jeju-tea');
      h.sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: true });
      expect((await refund(o.moid, String(o.amount))).status).to.equal(502);
      h.sandbox.faults.clear();
      const settled = await h.settleWhileAway();
      expect(settled.map((s) => [s.tid, s.outcome])).to.deep.include([o.tid, 'kept']);

      const page = await h.admin.get(`/admin/orders/${o.moid}`);
      expect(page.text).to.include('id="resolve-submit"').and.not.include('id="refund-settling"');
      const checked = await h.admin.post(resolveUrl(page.text)).type('form').send({ _csrf: h.csrf });
      expect(checked.status, checked.text).to.equal(303);
      expect(h.shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
      expect(cancels(o.tid!)).to.have.length(1);
      expect(ledgerCancels(o.tid!)).to.have.length(1);
    });

    it('a partial refund whose answer is lost is never sent again by the package: it needs attention and keeps the operator record', async () => {
      const o = await paidOrder('tomyum-kit'); // 12,000
      h.sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: true });
      expect((await refund(o.moid, '5000')).status).to.equal(502);
      h.sandbox.faults.clear();
      const report = await h.settle();
      expect(report.settled.filter((s) => s.tid === o.tid)).to.deep.equal([]);
      expect(report.unsettled.find((u) => u.tid === o.tid)).to.include({ operation: 'cancel', needsAttention: true });
      expect(refundStore(h.shop.db).open(o.moid)).to.include({ state: 'unknown', partial: true });
      expect(cancels(o.tid!)).to.have.length(1);

      const page = await h.admin.get(`/admin/orders/${o.moid}`);
      expect(textOf(page.text, 'refund-partial-note')).to.include('부분 환불은 결제 모듈이 다시 보내지 않습니다');
      expect(page.text).to.include('id="resolve-refunded"').and.not.include('id="refund-settling"');
      const recorded = await h.admin
        .post(resolveUrl(page.text))
        .type('form')
        .send({ _csrf: h.csrf, outcome: 'refunded' });
      expect(recorded.status).to.equal(303);
      expect(h.shop.db.order(o.moid)!.refundedAmount).to.equal(5_000);
      expect(cancels(o.tid!)).to.have.length(1);
    });
  });
});
