/**
 * One shop instance of the model: a createNicepay client over its view of the store, with the
 * routes a shop mounts (the return route, the notifications route) and the key-in route's hook
 * registered (the one settlement runs again for a key-in whose hook never resolved). Every hook
 * records into the shop's books through {@link ShopBooks.runHook}.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { createNicepay, type Logger, type Nicepay } from '../../src/index.js';
import type { LedgerStore } from '../../src/store/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { MERCHANT_KEY, MID } from '../helpers/shop.js';
import { instanceStore, type InstanceStore } from './instance-store.js';
import { HOOK_TIMEOUT_MS, type ShopBooks } from './shop-books.js';

/** A live or killed shop instance. */
export interface Instance {
  /** `slot/generation`: which instance, and which start of it. */
  readonly name: string;
  readonly store: InstanceStore;
  readonly nicepay: Nicepay;
  /** POST /pay/return of this instance (checkoutReturn, then the result as JSON). */
  readonly returnRoute: RequestHandler[];
  /** POST /pay/notify of this instance. */
  readonly notifyRoute: RequestHandler;
}

/** What an instance is made of. */
export interface InstanceParts {
  sandbox: Sandbox;
  books: ShopBooks;
  logger: Logger;
}

/** Starts an instance named `name` over `real`. */
export function startInstance(name: string, real: LedgerStore, { sandbox, books, logger }: InstanceParts): Instance {
  const store = instanceStore(real);
  const nicepay = createNicepay({
    mid: MID,
    merchantKey: MERCHANT_KEY,
    baseUrl: sandbox.url,
    store,
    clock: () => sandbox.clock.now(),
    timeouts: { connectMs: 1_000, responseMs: 2_000 },
    // The settler's own timer never fires within a sequence: the model calls settle() itself.
    settle: { intervalMs: 3_600_000, reconciliation: { usrId: `${MID}admin` } },
    logger,
  });
  const approval = nicepay.checkoutReturn({
    expectedAmount: (moid) => books.orders.get(moid),
    hookTimeoutMs: HOOK_TIMEOUT_MS,
    onApproved: (result, req) =>
      books.runHook('approval', `approval:${result.tid}`, name, req === undefined, () =>
        books.recordCharge(result.tid, { op: 'approval', moid: result.moid, amount: result.amount }),
      ),
  });
  // Created for its hook only: settlement runs it for a key-in whose own hook never resolved.
  nicepay.keyinRouter({
    expectedAmount: (moid) => books.orders.get(moid),
    requireHttps: false,
    onApproved: (result) =>
      books.runHook('keyin', `keyin:${result.tid}`, name, true, () =>
        books.recordCharge(result.tid, { op: 'keyin', moid: result.moid, amount: result.amount }),
      ),
  });
  const notifyRoute = nicepay.notifications({
    expectedAmount: (moid) => books.orders.get(moid),
    allowedIps: ['127.0.0.1'],
    hookTimeoutMs: HOOK_TIMEOUT_MS,
    onDeposit: (n) =>
      books.runHook('deposit', `deposit:${n.tid}`, name, false, () => void books.deposits.set(n.tid, n.amount)),
    onCancel: (n) =>
      books.runHook('cancel', `cancel:${n.tid}:${n.cancelMoid}`, name, false, () =>
        books.recordRefund(n.tid, n.cancelMoid, n.amount),
      ),
  });
  const answer: RequestHandler = (req, res) => void res.json(req.checkout);
  return { name, store, nicepay, returnRoute: [approval, answer], notifyRoute };
}

/** The shop's error handler: a NicepayError as JSON (status, code, TID), as a shop would answer. */
export const errorAnswer: ErrorRequestHandler = (err, _req, res, _next) => {
  const e = err as { status?: number; code?: string; tid?: string; expose?: boolean; message?: string };
  res.status(e.status ?? 500).json({ code: e.code, tid: e.tid, message: e.expose ? e.message : 'internal error' });
};
