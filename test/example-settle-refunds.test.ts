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
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { refundStore } from '../example-app/db-refunds.js';
import { createNicepay, type Logger, type SettledItem } from '../src/index.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'settle-refunds-password';
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const hidden = (page: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: refund intents follow the library settlement', () => {
  let sandbox: Sandbox;
  let dir: string;
  let shop: Shop;
  let server: Server;
  let admin: ReturnType<typeof request.agent>;
  let csrf: string;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  /** Starts the shop on `dir`'s database file, signed in. */
  async function startShop(): Promise<void> {
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: join(dir, 'shop.db'),
      logger,
      sandbox,
      admin: { password: PASSWORD },
      nicepay: { clock: () => sandbox.clock.now(), settle: false },
    });
    server.removeAllListeners('request');
    server.on('request', shop.app);
    admin = request.agent(server);
    const form = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
    csrf = tokenOf((await admin.get('/admin/billing')).text);
  }

  before(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sandbox = createSandbox({ merchants: [{ mid: MID, merchantKey: KEY, notificationUrl: `${shopUrl}/pay/notify` }] });
    sandbox.clock.freeze();
    await sandbox.listen(0);
    dir = mkdtempSync(join(tmpdir(), 'settle-refunds-'));
    await startShop();
  });
  afterEach(() => sandbox.faults.clear());
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await shop.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One settlement pass, then the shop's records follow what it published. */
  async function settle() {
    const report = await shop.nicepay.settle();
    await shop.followed();
    return report;
  }
  /** The library's cancel records of a TID (the shop's SQLite file holds the ledger). */
  const ledgerCancels = (tid: string): string[] =>
    shop.db.sqlite
      .prepare<[string], { key: string }>("SELECT key FROM nicepay_ledger WHERE key LIKE 'cancel:%' AND key LIKE ?")
      .all(`%:${tid}:%`)
      .map((r) => r.key);

  /**
   * The shop stops; one settlement pass runs on its database file without it (as
   * `express-nicepay settle` from cron would), then the shop starts again on the same file.
   */
  async function settleWhileAway(): Promise<SettledItem[]> {
    await shop.close();
    const file = new Database(join(dir, 'shop.db'));
    const cron = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      logger,
      clock: () => sandbox.clock.now(),
      settle: false,
      store: sqliteStore({ database: file }),
    });
    try {
      return (await cron.settle()).settled;
    } finally {
      await cron.close();
      file.close();
      await startShop();
    }
  }

  describe('refunds', () => {
    async function paidOrder(productId: string) {
      const buyer = request.agent(server);
      const post = await buyer.post('/checkout').type('form').send({ productId });
      const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
      const auth = await sandbox.authenticate({ moid, amount: shop.db.order(moid)!.amount, method: 'CARD' });
      await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      const o = shop.db.order(moid)!;
      expect(o.status).to.equal('paid');
      return o;
    }
    /** Step 1 and step 2 of a refund of `amount`; returns step 2's answer. */
    async function refund(moid: string, amount: string) {
      const step1 = await admin
        .post(`/admin/orders/${moid}/refund`)
        .type('form')
        .send({ _csrf: csrf, reason: '고객 요청', amount });
      return admin
        .post(`/admin/orders/${moid}/refund`)
        .type('form')
        .send({
          _csrf: csrf,
          reason: '고객 요청',
          amount,
          idempotencyKey: hidden(step1.text, 'idempotencyKey'),
          confirm: 'yes',
        });
    }
    const cancels = (tid: string) => sandbox.ledger.get(tid)!.cancels ?? [];
    const resolveUrl = (page: string): string =>
      /action="(\/admin\/orders\/\w+\/refunds\/\d+\/resolve)"/.exec(page)?.[1] ?? '';

    for (const committed of [true, false]) {
      it(`a full refund whose answer is lost ${committed ? 'after' : 'before'} the gateway cancelled is settled by the package with the same key: the intent follows, one cancel at the gateway, one ledger cancel record`, async () => {
        const o = await paidOrder('kimchi');
        sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: committed });
        const lost = await refund(o.moid, String(o.amount));
        expect(lost.status, lost.text).to.equal(502);
        const [intent] = refundStore(shop.db).ofOrder(o.moid);
        expect(intent).to.include({ state: 'unknown', attempts: 1 });
        sandbox.faults.clear();

        // The page shows it being settled by the package and offers no "send again".
        const page = await admin.get(`/admin/orders/${o.moid}`);
        expect(page.text).to.include('id="refund-settling"').and.not.include('id="resolve-submit"');
        expect(page.text).to.not.include('id="refund-form"');
        const url = `/admin/orders/${o.moid}/refunds/${intent!.id}/resolve`;
        expect((await admin.post(url).type('form').send({ _csrf: csrf })).status).to.equal(409);
        expect(cancels(o.tid!)).to.have.length(committed ? 1 : 0);

        const report = await settle();
        expect(report.settled).to.deep.include({
          operation: 'cancel',
          mid: MID,
          tid: o.tid,
          moid: o.moid,
          amount: o.amount,
          outcome: 'kept',
        });
        expect(refundStore(shop.db).byId(intent!.id)).to.include({
          state: 'done',
          attempts: 1,
          cancelledAmount: o.amount,
          payout: 'none',
          note: '정산: 환불됨',
        });
        expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
        expect(cancels(o.tid!)).to.have.length(1);
        expect(sandbox.ledger.get(o.tid!)!.status).to.equal('cancelled');
        expect(ledgerCancels(o.tid!), 'one cancel record: the same key').to.deep.equal([
          `cancel:${MID}:${o.tid}:${o.amount}:refund-${intent!.id}-1`,
        ]);
        // Settled: nothing more to resolve, nothing counted twice.
        expect((await admin.post(url).type('form').send({ _csrf: csrf })).status).to.equal(409);
        expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
      });
    }

    for (const committed of [true, false]) {
      it(`a paid virtual account's full refund lost ${committed ? 'after' : 'before'} the gateway accepted it follows settlement as accepted, its payout pending`, async () => {
        const buyer = request.agent(server);
        const post = await buyer.post('/checkout').type('form').send({ productId: 'jeju-tea' });
        const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
        const auth = await sandbox.authenticate({ moid, amount: 15_500, method: 'VBANK' });
        await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
        expect((await admin.post(`/admin/orders/${moid}/deposit`).type('form').send({ _csrf: csrf })).status).to.equal(
          303,
        );
        const o = shop.db.order(moid)!;
        expect(o.status).to.equal('paid');
        const account = { bankCode: '004', number: '12345678901234', holder: '홍길동' };
        const step1 = await admin
          .post(`/admin/orders/${moid}/refund`)
          .type('form')
          .send({ _csrf: csrf, reason: '고객 요청', amount: '15500', ...account });
        sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: committed });
        const lost = await admin
          .post(`/admin/orders/${moid}/refund`)
          .type('form')
          .send({
            _csrf: csrf,
            reason: '고객 요청',
            amount: '15500',
            ...account,
            idempotencyKey: hidden(step1.text, 'idempotencyKey'),
            confirm: 'yes',
          });
        expect(lost.status).to.equal(502);
        sandbox.faults.clear();
        await settle();
        const [intent] = refundStore(shop.db).ofOrder(moid);
        expect(intent).to.include({ state: 'done', cancelledAmount: 15_500, payout: 'pending' });
        expect(shop.db.order(moid)).to.include({ refundedAmount: 15_500, refundPendingAmount: 15_500 });
        expect(cancels(o.tid!)).to.have.length(1);
        expect(ledgerCancels(o.tid!)).to.have.length(1);
        expect(logLines.join('\n')).to.not.include(account.number);
      });
    }

    it('a full refund the package settled while the shop was not listening is checked by the same cancel, answered from the closed record', async () => {
      const o = await paidOrder('jeju-tea');
      sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: true });
      expect((await refund(o.moid, String(o.amount))).status).to.equal(502);
      sandbox.faults.clear();
      const settled = await settleWhileAway();
      expect(settled.map((s) => [s.tid, s.outcome])).to.deep.include([o.tid, 'kept']);

      const page = await admin.get(`/admin/orders/${o.moid}`);
      expect(page.text).to.include('id="resolve-submit"').and.not.include('id="refund-settling"');
      const checked = await admin.post(resolveUrl(page.text)).type('form').send({ _csrf: csrf });
      expect(checked.status, checked.text).to.equal(303);
      expect(shop.db.order(o.moid)!.refundedAmount).to.equal(o.amount);
      expect(cancels(o.tid!)).to.have.length(1);
      expect(ledgerCancels(o.tid!)).to.have.length(1);
    });

    it('a partial refund whose answer is lost is never sent again by the package: it needs attention and keeps the operator record', async () => {
      const o = await paidOrder('tomyum-kit'); // 12,000
      sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit: true });
      expect((await refund(o.moid, '5000')).status).to.equal(502);
      sandbox.faults.clear();
      const report = await settle();
      expect(report.settled.filter((s) => s.tid === o.tid)).to.deep.equal([]);
      expect(report.unsettled.find((u) => u.tid === o.tid)).to.include({ operation: 'cancel', needsAttention: true });
      expect(refundStore(shop.db).open(o.moid)).to.include({ state: 'unknown', partial: true });
      expect(cancels(o.tid!)).to.have.length(1);

      const page = await admin.get(`/admin/orders/${o.moid}`);
      expect(textOf(page.text, 'refund-partial-note')).to.include('부분 환불은 결제 모듈이 다시 보내지 않습니다');
      expect(page.text).to.include('id="resolve-refunded"').and.not.include('id="refund-settling"');
      const recorded = await admin.post(resolveUrl(page.text)).type('form').send({ _csrf: csrf, outcome: 'refunded' });
      expect(recorded.status).to.equal(303);
      expect(shop.db.order(o.moid)!.refundedAmount).to.equal(5_000);
      expect(cancels(o.tid!)).to.have.length(1);
    });
  });
});
