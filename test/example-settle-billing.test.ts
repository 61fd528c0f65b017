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
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { billingDb } from '../example-app/db-billing.js';
import { kstToday } from '../example-app/routes/admin-page.js';
import { createNicepay, type Logger, type SettledItem } from '../src/index.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'settle-billing-password';
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: billing charges and cash receipts follow the library settlement', () => {
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
    dir = mkdtempSync(join(tmpdir(), 'settle-billing-'));
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

  describe('billing', () => {
    const month = (): string => kstToday(sandbox.clock.now()).slice(0, 6);
    const gateway = (moid: string): string[] =>
      sandbox.ledger
        .entries()
        .filter((e) => e.moid === moid)
        .map((e) => e.status);
    async function subscribe(): Promise<number> {
      const buyer = request.agent(server);
      const posted = await buyer
        .post('/subscription')
        .type('form')
        .send({ cardNumber: '4111111111111111', cardExpiry: '3012' });
      return Number(/^\/subscription\/(\d+)/.exec(posted.headers.location!)![1]);
    }
    const charge = (id: number) => admin.post(`/admin/billing/${id}/charge`).type('form').send({ _csrf: csrf });

    it('a charge whose answer and reversal were lost cannot be recorded as charged while the package holds it; after settle() the shop and the gateway agree', async () => {
      const id = await subscribe();
      sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
      sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500', commit: false });
      sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect((await charge(id)).status).to.equal(502);
      const moid = `SUB-${id}-${month()}`;
      expect(gateway(moid), 'what the merchant admin shows').to.deep.equal(['approved']);
      sandbox.faults.clear();

      // The page says the package settles it, with its reason and next attempt; no manual buttons.
      const page = await admin.get('/admin/billing');
      expect(page.text).to.include(`id="settling-${moid}"`).and.include('결제 모듈이 정산 중');
      expect(page.text).to.not.include(`resolve-charged-${moid}`).and.not.include(`id="check-${moid}"`);
      // The operator's old "charged" post changes nothing; neither does charging the month again.
      const resolved = await admin
        .post(`/admin/billing/charges/${moid}/resolve`)
        .type('form')
        .send({ _csrf: csrf, outcome: 'charged' });
      expect(resolved.status).to.equal(409);
      expect(textOf(resolved.text, 'admin-error')).to.include('결제 모듈이 정산하고 있습니다');
      expect((await charge(id)).status).to.equal(409);
      expect(billingDb(shop.db, KEY).charge(moid)!.status).to.equal('unknown');
      expect(gateway(moid)).to.deep.equal(['approved']);

      const report = await settle();
      expect(report.settled).to.deep.include({
        operation: 'billing.charge',
        mid: MID,
        tid: report.settled.find((s) => s.moid === moid)!.tid,
        moid,
        amount: 29_900,
        outcome: 'reversed',
      });
      // The shop's charge follows: not charged, as the gateway holds it (cancelled).
      expect(billingDb(shop.db, KEY).charge(moid)).to.include({ status: 'failed', message: '정산: 결제 취소됨' });
      expect(gateway(moid)).to.deep.equal(['cancelled']);
      // The month may be charged again, under the next Moid, and then the two agree on paid.
      const again = await charge(id);
      expect(decodeURIComponent(again.headers.location!)).to.include('결제했습니다');
      expect(billingDb(shop.db, KEY).charge(`${moid}-2`)!.status).to.equal('approved');
      expect(gateway(`${moid}-2`)).to.deep.equal(['approved']);
    });

    it('a charge the package settled while the shop was not listening is checked by the same charge: answered from the closed record, nothing sent', async () => {
      const id = await subscribe();
      sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
      sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500', commit: false });
      sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect((await charge(id)).status).to.equal(502);
      const moid = `SUB-${id}-${month()}`;
      sandbox.faults.clear();
      // The shop stops; a settlement pass runs without it (as `express-nicepay settle` from cron).
      const settled = await settleWhileAway();
      expect(settled.map((s) => [s.moid, s.outcome])).to.deep.include([moid, 'reversed']);
      expect(billingDb(shop.db, KEY).charge(moid)!.status, 'the shop did not hear it').to.equal('unknown');

      const page = await admin.get('/admin/billing');
      expect(page.text).to.include(`id="check-${moid}"`).and.not.include(`id="settling-${moid}"`);
      const sent = sandbox.ledger.entries().length;
      const checked = await admin.post(`/admin/billing/charges/${moid}/resolve`).type('form').send({ _csrf: csrf });
      expect(checked.status, checked.text).to.equal(303);
      expect(billingDb(shop.db, KEY).charge(moid)).to.include({ status: 'failed', message: '결제 취소됨' });
      expect(sandbox.ledger.entries().length, 'nothing was charged').to.equal(sent);
      expect(gateway(moid)).to.deep.equal(['cancelled']);
    });
  });

  describe('cash receipts', () => {
    it('a receipt whose answer and reversal were lost is not issued again while the package settles it', async () => {
      const buyer = request.agent(server);
      const post = await buyer.post('/checkout').type('form').send({ productId: 'haeng-mug' });
      const moid = /^\/checkout\/(\w+)\?/.exec(post.headers.location!)![1]!;
      const auth = await sandbox.authenticate({ moid, amount: 8_900, method: 'BANK' });
      await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(shop.db.order(moid)).to.include({ status: 'paid', method: 'BANK' });
      const issue = () =>
        admin
          .post(`/admin/billing/receipts/${moid}`)
          .type('form')
          .send({ _csrf: csrf, type: 'income-deduction', identity: '01012345678' });
      sandbox.faults.inject({ target: 'cash-receipt', kind: 'drop', commit: true });
      sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      expect((await issue()).status).to.equal(502);
      sandbox.faults.clear();
      const held = (await shop.nicepay.unsettled()).find((u) => u.moid === moid);
      expect(held).to.include({ operation: 'cash-receipt' });

      const page = await admin.get('/admin/billing/receipts');
      expect(page.text).to.include(`id="receipt-settling-${moid}"`);
      expect(page.text).to.not.match(new RegExp(`action="/admin/billing/receipts/${moid}"`));
      const sent = sandbox.dataHost.cashReceipts().length;
      const again = await issue();
      expect(again.status).to.equal(409);
      expect(textOf(again.text, 'admin-error')).to.include('결제 모듈이 정산하고 있습니다');
      expect(sandbox.dataHost.cashReceipts().length, 'nothing issued again').to.equal(sent);
      expect(billingDb(shop.db, KEY).receipt(moid)).to.equal(undefined);
    });
  });
});
