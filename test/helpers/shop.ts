import express, { type ErrorRequestHandler, type Express } from 'express';
import request from 'supertest';
import {
  createNicepay,
  type CheckoutReturnOptions,
  type CommittedCheckout,
  type Nicepay,
  type NicepayOptions,
} from '../../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../../src/sandbox/index.js';
import { captureLogger, type Captured } from './capture.js';

/** The window/approval test merchant of the gateway's samples. */
export const MID = 'nicepay00m';
export const MERCHANT_KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;

/** A shop on a real sandbox: app, orders by Moid, what onApproved saw, every error. */
export interface TestShop {
  sandbox: Sandbox;
  nicepay: Nicepay;
  app: Express;
  orders: Map<string, number>;
  approved: CommittedCheckout[];
  errors: unknown[];
  captured: Captured;
  close(): Promise<void>;
}

/** Options for {@link startShop}. */
export interface ShopOptions {
  nicepay?: Partial<NicepayOptions>;
  route?: Partial<CheckoutReturnOptions>;
  sandbox?: Sandbox;
}

/** Starts a sandbox on loopback and an Express shop with checkoutReturn on /pay/return. */
export async function startShop(options: ShopOptions = {}): Promise<TestShop> {
  const sandbox = options.sandbox ?? createSandbox();
  const url = options.sandbox ? sandbox.url : (await sandbox.listen(0)).url;
  const captured = captureLogger();
  const nicepay = createNicepay({
    mid: MID,
    merchantKey: MERCHANT_KEY,
    baseUrl: url,
    logger: captured.logger,
    timeouts: { connectMs: 1_000, responseMs: 2_000 },
    ...options.nicepay,
  });
  const orders = new Map<string, number>();
  const approved: CommittedCheckout[] = [];
  const errors: unknown[] = [];
  const app = express();
  app.post(
    '/pay/return',
    nicepay.checkoutReturn({
      expectedAmount: (moid) => orders.get(moid),
      onApproved: (result) => void approved.push(result),
      ...options.route,
    }),
    (req, res) => {
      res.json(req.checkout);
    },
  );
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    errors.push(err);
    captured.record(err);
    const e = err as { status?: number; code?: string; expose?: boolean; message?: string; netCancel?: string };
    res
      .status(e.status ?? 500)
      .json({ code: e.code, message: e.expose ? e.message : 'internal error', netCancel: e.netCancel });
  };
  app.use(onError);
  return {
    sandbox,
    nicepay,
    app,
    orders,
    approved,
    errors,
    captured,
    async close() {
      await nicepay.close();
      if (!options.sandbox) await sandbox.close();
    },
  };
}

/** Posts an auth return (as `sandbox.authenticate()` made it, the window's EUC-KR form) to the shop's return route. */
export function postReturn(shop: Pick<TestShop, 'app'>, auth: { contentType: string; body: Buffer }) {
  return request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
}
