/**
 * The back office never pays a refund twice. The refund intent is recorded before the call,
 * keyed by the order and the amount intent; when the cancel's answer is lost (the sandbox's
 * fault injection drops it, after or before the gateway cancelled), the order offers no new
 * refund until the outcome is settled, whatever the operator clicks: the old confirmation
 * again, a fresh form, the resolve button. A full refund is settled by the package (the same
 * cancel again) and the intent follows; a partial one is recorded by the operator.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { refundStore } from '../example-app/db-refunds.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'refunds-admin-password';
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const hidden = (page: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: a refund whose outcome was lost is never paid twice', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  let admin: ReturnType<typeof request.agent>;
  let csrf: string;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      logger,
      admin: { password: PASSWORD },
      nicepay: { clock: () => sandbox.clock.now(), timeouts: { connectMs: 1_000, responseMs: 2_000 } },
    });
    admin = request.agent(shop.app);
    const form = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
    csrf = tokenOf((await admin.get('/admin/orders')).text);
  });
  afterEach(() => sandbox.faults.clear());
  /** One settlement pass now, and the shop's refunds follow it. */
  async function settle(): Promise<void> {
    await shop.nicepay.settle();
    await shop.followed();
  }
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  /** A paid order of `productId`, by card unless said. */
  async function paidOrder(productId: string, method: 'CARD' | 'CELLPHONE' = 'CARD') {
    const buyer = request.agent(shop.app);
    const post = await buyer.post('/checkout').type('form').send({ productId });
    const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: shop.db.order(moid)!.amount, method });
    await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    const o = shop.db.order(moid)!;
    expect(o.status).to.equal('paid');
    return o;
  }
  const confirmPage = (moid: string, amount: string) =>
    admin.post(`/admin/orders/${moid}/refund`).type('form').send({ _csrf: csrf, reason: '고객 요청', amount });
  const confirm = (moid: string, amount: string, page: string) =>
    admin
      .post(`/admin/orders/${moid}/refund`)
      .type('form')
      .send({
        _csrf: csrf,
        reason: '고객 요청',
        amount,
        idempotencyKey: hidden(page, 'idempotencyKey'),
        confirm: 'yes',
      });
  const cancels = (tid: string) => sandbox.ledger.get(tid)!.cancels ?? [];

  it('a phone bill is refunded only in full: the form offers the remaining amount alone, and a part is refused before anything is sent', async () => {
    const o = await paidOrder('kimchi', 'CELLPHONE');
    const page = await admin.get(`/admin/orders/${o.moid}`);
    expect(page.text)
      .to.include('id="refund-whole-only"')
      .and.match(/id="refund-amount"[^>]*value="23000"[^>]* readonly/);
    const part = await confirmPage(o.moid, '1000');
    expect(part.status).to.equal(422);
    expect(part.text).to.include('전액만 환불할 수 있습니다');
    expect(sandbox.ledger.get(o.tid!)!.cancels ?? []).to.deep.equal([]);
  });

  it('an order page says no refund a link wrote: only the refund it made, once', async () => {
    const o = await paidOrder('kimchi');
    const forged = await admin.get(`/admin/orders/${o.moid}?refunded=${o.amount}&deposited=1&paid-out=1&cancelled=1`);
    expect(forged.status).to.equal(200);
    expect(forged.text).to.not.include('id="admin-ok"');
    const step1 = await confirmPage(o.moid, String(o.amount));
    const done = await confirm(o.moid, String(o.amount), step1.text);
    expect(done.headers.location).to.equal(`/admin/orders/${o.moid}`);
    const page = await admin.get(done.headers.location!);
    expect(page.text).to.include('id="admin-ok"').and.include('을 환불했습니다');
    expect((await admin.get(done.headers.location!)).text).to.not.include('id="admin-ok"');
  });

  for (const committed of [true, false]) {
    it(`a full refund whose answer is lost ${committed ? 'after' : 'before'} the gateway cancelled: every retry path sends nothing new, and settlement refunds exactly once`, async () => {
      const o = await paidOrder('kimchi');
      const step1 = await confirmPage(o.moid, String(o.amount));
      sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: committed });
      const lost = await confirm(o.moid, String(o.amount), step1.text);
      expect(lost.status, lost.text).to.equal(502);
      expect(lost.text).to.include('id="refund-unresolved"').and.not.include('id="refund-form"');
      expect(shop.db.order(o.moid)!.refundedAmount).to.equal(0);
      expect(cancels(o.tid!)).to.have.length(committed ? 1 : 0);

      // The operator tries everything: the old confirmation again, a fresh form, a fresh confirmation.
      expect((await confirm(o.moid, String(o.amount), step1.text)).status).to.equal(409);
      const page = await admin.get(`/admin/orders/${o.moid}`);
      expect(page.text)
        .to.include('id="refund-unresolved"')
        .and.include('id="refund-settling"')
        .and.not.include('id="resolve-submit"')
        .and.not.include('id="refund-form"');
      const fresh = await confirmPage(o.moid, String(o.amount));
      expect(fresh.status).to.equal(409);
      expect(fresh.text).to.not.include('id="confirm-form"');
      expect(cancels(o.tid!)).to.have.length(committed ? 1 : 0);

      // The package holds it: the resolve endpoint sends nothing.
      const [intent] = refundStore(shop.db).ofOrder(o.moid);
      const resolveUrl = `/admin/orders/${o.moid}/refunds/${intent!.id}/resolve`;
      expect((await admin.post(resolveUrl).type('form').send({ _csrf: csrf })).status).to.equal(409);
      expect(cancels(o.tid!)).to.have.length(committed ? 1 : 0);
      // Settlement sends the same full cancel again. Already cancelled → kept; not yet → done now.
      await settle();
      expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
      expect(cancels(o.tid!)).to.have.length(1);
      expect(sandbox.ledger.get(o.tid!)!.status).to.equal('cancelled');
      // Clicked again, and the old confirmation once more: nothing is sent, nothing counted twice.
      expect((await admin.post(resolveUrl).type('form').send({ _csrf: csrf })).status).to.equal(409);
      expect((await confirm(o.moid, String(o.amount), step1.text)).status).to.equal(303);
      expect(cancels(o.tid!)).to.have.length(1);
      expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
      expect(logLines.some((l) => l.includes('"action":"refund.unknown"') && l.includes(o.moid))).to.equal(true);
      expect(logLines.some((l) => l.includes('refund follows settlement') && l.includes(o.moid))).to.equal(true);
    });
  }

  it('a partial refund whose answer is lost blocks new refunds until the operator records what the gateway shows', async () => {
    const o = await paidOrder('tomyum-kit'); // 12,000
    const step1 = await confirmPage(o.moid, '5000');
    sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: true });
    expect((await confirm(o.moid, '5000', step1.text)).status).to.equal(502);
    expect(cancels(o.tid!)).to.have.length(1);
    // Another partial refund is not offered, not even of another amount.
    expect((await confirmPage(o.moid, '3000')).status).to.equal(409);
    expect((await confirm(o.moid, '5000', step1.text)).status).to.equal(409);
    const page = await admin.get(`/admin/orders/${o.moid}`);
    expect(page.text)
      .to.include('id="resolve-status"')
      .and.include('id="resolve-refunded"')
      .and.not.include('id="resolve-submit"');
    const resolveUrl = /action="(\/admin\/orders\/\w+\/refunds\/\d+\/resolve)"/.exec(page.text)![1]!;
    // The status inquiry is advice: shown, nothing recorded, nothing sent.
    const status = await admin.post(resolveUrl).type('form').send({ _csrf: csrf, outcome: 'status' });
    expect(textOf(status.text, 'admin-ok')).to.include('거래 상태 조회');
    expect(status.text).to.include('id="refund-unresolved"');
    expect(cancels(o.tid!)).to.have.length(1);
    // The operator records what the merchant admin shows: refunded.
    expect((await admin.post(resolveUrl).type('form').send({ _csrf: csrf, outcome: 'refunded' })).status).to.equal(303);
    expect(shop.db.order(o.moid)!.refundedAmount).to.equal(5_000);
    // Now the order is refundable again, from the right remaining amount; the stale confirmation is not.
    expect((await confirm(o.moid, '5000', step1.text)).status).to.equal(303); // its intent is done: nothing sent
    expect(cancels(o.tid!)).to.have.length(1);
    const next = await confirmPage(o.moid, '7000');
    expect(next.text).to.include('전액 환불');
    expect((await confirm(o.moid, '7000', next.text)).status).to.equal(303);
    expect(cancels(o.tid!).map((c) => c.amount)).to.deep.equal([5_000, 7_000]);
    expect(shop.db.order(o.moid)!.refundedAmount).to.equal(12_000);
  });

  it('two confirmation pages of the same amount intent refund once; a confirmation made stale by another refund sends nothing', async () => {
    const o = await paidOrder('tomyum-kit');
    const a = await confirmPage(o.moid, '2000');
    const b = await confirmPage(o.moid, '2000'); // a second tab
    const c = await confirmPage(o.moid, '3000'); // opened before the 2,000 refund
    expect(hidden(a.text, 'idempotencyKey')).to.equal(hidden(b.text, 'idempotencyKey'));
    expect((await confirm(o.moid, '2000', a.text)).status).to.equal(303);
    expect((await confirm(o.moid, '2000', b.text)).status).to.equal(303);
    const stale = await confirm(o.moid, '3000', c.text);
    expect(stale.status).to.equal(409);
    expect(textOf(stale.text, 'admin-error')).to.include('바뀌었습니다');
    expect(cancels(o.tid!).map((x) => x.amount)).to.deep.equal([2_000]);
    expect(shop.db.order(o.moid)!.refundedAmount).to.equal(2_000);
  });

  it('a gateway 500 is an unknown outcome too (it may have cancelled): the order waits for settlement, which refunds once', async () => {
    const o = await paidOrder('kimchi');
    const step1 = await confirmPage(o.moid, String(o.amount));
    sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
    expect((await confirm(o.moid, String(o.amount), step1.text)).status).to.equal(502);
    const page = await admin.get(`/admin/orders/${o.moid}`);
    expect(page.text).to.include('id="refund-unresolved"').and.include('id="refund-settling"');
    sandbox.faults.clear();
    await settle();
    expect(cancels(o.tid!)).to.have.length(1);
    expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
  });
  it('an intent left pending by a process that died mid-call blocks new refunds; once its cancel is closed, the same cancel answers from the record', async () => {
    const o = await paidOrder('kimchi');
    // As if the shop recorded the intent, sent the cancel, and died before the answer.
    const begun = refundStore(shop.db).begin({
      moid: o.moid,
      tid: o.tid!,
      amount: o.amount,
      remainingBefore: o.amount,
      partial: false,
      reason: '고객 요청',
      bankCode: '',
      number: '',
      holder: '',
    });
    if (!('intent' in begun)) throw new Error('the intent was not recorded');
    // Its cancel went through under the intent's key; the process died before recording it.
    await shop.nicepay.cancel({
      tid: o.tid!,
      moid: o.moid,
      amount: o.amount,
      reason: '고객 요청',
      partial: false,
      remainingAmount: o.amount,
      idempotencyKey: `refund-${begun.intent.id}-${begun.intent.attempts}`,
    });
    expect(cancels(o.tid!)).to.have.length(1);
    expect((await confirmPage(o.moid, String(o.amount))).status).to.equal(409);
    const page = await admin.get(`/admin/orders/${o.moid}`);
    expect(page.text).to.include('data-state="pending"').and.include('id="resolve-submit"');
    const resolveUrl = /action="(\/admin\/orders\/\w+\/refunds\/\d+\/resolve)"/.exec(page.text)![1]!;
    expect((await admin.post(resolveUrl).type('form').send({ _csrf: csrf })).status).to.equal(303);
    expect(cancels(o.tid!)).to.have.length(1); // answered from the closed record: nothing sent
    expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
  });
});
