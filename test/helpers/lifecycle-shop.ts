import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  createNicepay,
  type CancelNotice,
  type CheckoutResult,
  type DepositNotice,
  type LedgerStore,
  type Nicepay,
  type NotificationsOptions,
} from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxMerchant } from '../../src/sandbox/index.js';
import { captureLogger, type Captured } from './capture.js';
import { MERCHANT_KEY, MID } from './shop.js';

export { MERCHANT_KEY, MID };

/** A shop on a sandbox that posts its notices to the shop's /pay/notify. */
export interface LifecycleShop {
  sandbox: Sandbox;
  nicepay: Nicepay;
  app: Express;
  /** The shop's own URL (loopback). */
  url: string;
  orders: Map<string, { amount: number; tid?: string }>;
  deposits: DepositNotice[];
  cancels: CancelNotice[];
  captured: Captured;
  /** Makes onDeposit throw this many more times. */
  failDeposits: number;
  /** Authenticates and approves an order through checkoutReturn; returns the result. */
  pay(
    method: 'CARD' | 'BANK' | 'VBANK' | 'CELLPHONE',
    amount?: number,
    buyerName?: string,
  ): Promise<CheckoutResult & { tid: string }>;
  close(): Promise<void>;
}

/** Options of {@link startLifecycleShop}. */
export interface LifecycleShopOptions {
  merchant?: Partial<SandboxMerchant>;
  notify?: Partial<NotificationsOptions>;
  store?: LedgerStore;
  timeouts?: { connectMs: number; responseMs: number };
}

let seq = 0;

/** Starts the shop's server, then a sandbox whose merchant notifies it, then the client on the sandbox's clock (no automatic settler). */
export async function startLifecycleShop(options: LifecycleShopOptions = {}): Promise<LifecycleShop> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sandbox = createSandbox({
    merchants: [
      {
        mid: MID,
        merchantKey: MERCHANT_KEY,
        notificationUrl: `${url}/pay/notify`,
        // Tests move the virtual clock from real time: run near 23:30 KST, a published test MID's
        // payments would be cancelled under them. A test of that rule turns it back on.
        testAutoCancel: false,
        ...options.merchant,
      },
    ],
  });
  const { url: gateway } = await sandbox.listen(0);
  const captured = captureLogger();
  const nicepay = createNicepay({
    mid: MID,
    merchantKey: MERCHANT_KEY,
    baseUrl: gateway,
    logger: captured.logger,
    clock: () => sandbox.clock.now(),
    timeouts: options.timeouts ?? { connectMs: 1_000, responseMs: 2_000 },
    // No automatic settler: a test that settles calls nicepay.settle() when it says so.
    settle: false,
    ...(options.store ? { store: options.store } : {}),
  });
  const orders = new Map<string, { amount: number; tid?: string }>();
  const shop: LifecycleShop = {
    sandbox,
    nicepay,
    app,
    url,
    orders,
    deposits: [],
    cancels: [],
    captured,
    failDeposits: 0,
    async pay(method, amount = 1004, buyerName) {
      const moid = `ORDER-${Date.now()}-${++seq}`;
      orders.set(moid, { amount });
      const auth = await sandbox.authenticate({ moid, amount, method, ...(buyerName ? { buyerName } : {}) });
      const res = await request(app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      if (res.status !== 200) throw new Error(`checkout failed: ${res.status} ${JSON.stringify(res.body)}`);
      const result = res.body as CheckoutResult & { tid: string };
      orders.set(moid, { amount, tid: result.tid });
      return result;
    },
    async close() {
      await nicepay.close();
      await sandbox.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  app.post(
    '/pay/return',
    nicepay.checkoutReturn({ expectedAmount: (moid) => orders.get(moid)?.amount }),
    (req, res) => {
      res.json(req.checkout);
    },
  );
  app.post(
    '/pay/notify',
    nicepay.notifications({
      expectedAmount: (moid) => orders.get(moid),
      onDeposit: (n) => {
        if (shop.failDeposits > 0) {
          shop.failDeposits--;
          throw new Error('database is down');
        }
        shop.deposits.push(n);
      },
      onCancel: (n) => void shop.cancels.push(n),
      allowedIps: ['127.0.0.1'],
      ...options.notify,
    }),
  );
  // Errors become JSON answers (and are recorded for the secret scan) instead of stderr noise.
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    captured.record(err);
    const e = err as { status?: number; code?: string };
    res.status(e.status ?? 500).json({ code: e.code });
  };
  app.use(onError);
  return shop;
}
