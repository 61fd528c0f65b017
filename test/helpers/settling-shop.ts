/**
 * The example shop on a sandbox with a frozen virtual clock, its operator signed in, no automatic
 * settler (settle: false): each settlement pass is explicit, and the shop's records follow what it
 * published (example-app/settlement-follower.ts). For the tests of what follows settlement.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createShop, type Shop } from '../../example-app/app.js';
import { createNicepay, type Logger, type SettledItem, type SettleReport } from '../../src/index.js';
import { createSandbox, type Sandbox, TEST_MERCHANTS } from '../../src/sandbox/index.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'settling-shop-password';

/** The CSRF token of a back-office page. */
export const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

/** What a describe block using {@link useSettlingShop} works with; `shop` changes on a restart. */
export interface SettlingShop {
  readonly shop: Shop;
  readonly sandbox: Sandbox;
  /** The HTTP server the shop is mounted on (the same across restarts). */
  readonly server: Server;
  /** The signed-in operator, and a CSRF token of the back office. */
  readonly admin: ReturnType<typeof request.agent>;
  readonly csrf: string;
  /** Every log line of the shop and its client, as JSON. */
  readonly logLines: string[];
  /** One settlement pass, then the shop's records follow what it published. */
  settle(): Promise<SettleReport>;
  /**
   * The shop stops; one settlement pass runs on its database file without it (as `express-nicepay
   * settle` from cron would), then the shop starts again on the same file.
   */
  settleWhileAway(): Promise<SettledItem[]>;
}

/** Registers before/after hooks in the calling describe block and returns its shop. */
export function useSettlingShop(dirPrefix: string): SettlingShop {
  let sandbox: Sandbox;
  let dir: string;
  let shop: Shop;
  let server: Server;
  let admin: ReturnType<typeof request.agent>;
  let csrf: string;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

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
    dir = mkdtempSync(join(tmpdir(), dirPrefix));
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

  return {
    get shop() {
      return shop;
    },
    get sandbox() {
      return sandbox;
    },
    get server() {
      return server;
    },
    get admin() {
      return admin;
    },
    get csrf() {
      return csrf;
    },
    logLines,
    async settle() {
      const report = await shop.nicepay.settle();
      await shop.followed();
      return report;
    },
    async settleWhileAway() {
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
    },
  };
}
