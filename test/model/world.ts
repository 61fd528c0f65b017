/**
 * The real system one model sequence drives: a sandbox gateway on loopback whose virtual clock
 * only moves when the model says, the shop's HTTP server (the buyer's return route of each
 * instance and the notifications route the gateway posts to), two shop instances on one ledger,
 * and the shop's books. Killing, restarting and moving the clock are here.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/index.js';
import { LEASE_MS } from '../../src/pipeline/lease.js';
import { type AuthReturn, createSandbox, type FaultTarget, type Sandbox } from '../../src/sandbox/index.js';
import { MERCHANT_KEY, MID } from '../helpers/shop.js';
import { errorAnswer, type Instance, startInstance } from './instance.js';
import { ShopBooks } from './shop-books.js';
import { openStores, type StoreKind, type StoreSetup } from './store-setup.js';
import { amountOf, ORDERS } from './steps.js';

/** Monday 2 March 2026, 10:00 KST: every sequence starts here (a business day, far from 23:30). */
const START = Date.UTC(2026, 2, 2, 1, 0, 0);
/** How often a live instance's heartbeat renews its leases. */
const BEAT_MS = LEASE_MS / 3;

/** An answer that names an order's outcome, as the shop or the buyer got it. */
export interface Answer {
  op: 'approval' | 'keyin' | 'billing.charge' | 'cash-receipt';
  tid: string;
  moid: string;
  status: string;
}

/** What the sequence saw, for the checks. */
export interface Notes {
  /** Results and errors given to the shop or the buyer, as text (the secret scan reads them). */
  seen: string[];
  answers: Answer[];
  /** The first charge of each Moid (the merchant's retry repeats it). */
  charges: Map<string, { bid: string; amount: number }>;
  /**
   * TIDs outside the invariant by a documented limitation, with why: a partial cancel whose
   * outcome is unknown (left for the shop), or a TID a memoryStore restart forgot that a later
   * return met with an unknown outcome.
   */
  excluded: Map<string, string>;
  /** TIDs a memoryStore restart forgot (every TxTid posted, every payment recorded before it). */
  forgotten: Set<string>;
  /**
   * Refund requests (TID, amount, key) that went through or whose outcome was unknown, with when
   * and in which memory epoch: the once-key guards a repeat only while its record is kept.
   */
  refundsSent: Map<string, { at: number; epoch: number }>;
  /** Receipt identities sent (secrets the scan looks for). */
  identities: Set<string>;
  memoryRestarts: number;
  registrations: number;
}

/** One sequence's system. */
export interface World {
  readonly notes: Notes;
  readonly kind: StoreKind;
  readonly sandbox: Sandbox;
  readonly books: ShopBooks;
  /** The shop's base URL on loopback. */
  readonly shopUrl: string;
  /** The two instance slots; a killed instance is replaced at once. */
  readonly instances: Instance[];
  /** Every instance ever started, killed ones included. */
  readonly all: Instance[];
  /** Auth returns the buyers got from the window, in order. */
  readonly auths: AuthReturn[];
  /** BIDs registered, in order. */
  readonly bids: string[];
  /** Moves the virtual clock forward, renewing live leases as their heartbeats would. */
  advance(ms: number): Promise<void>;
  /** Kills the instance in `slot` and starts a new one there, on the same ledger. */
  kill(slot: number): Promise<void>;
  /** memory: the process restarts with an empty store (call only once nothing is open). */
  restartMemory(): void;
  /** Resolves the next time the sandbox takes a fault for `target`. */
  faultTaken(target: FaultTarget): Promise<void>;
  close(): Promise<void>;
}

/** Starts the system of one sequence on `kind` (redis needs `redisUrl`). */
export async function startWorld(kind: StoreKind, logger: Logger, tag: string, redisUrl?: string): Promise<World> {
  const books = new ShopBooks();
  // The shop's orders: window payments, key-ins, billing charges and cash receipts.
  for (const prefix of ['w', 'k', 'b', 'r'])
    for (let order = 0; order < ORDERS; order++) books.orders.set(`${prefix}${order}`, amountOf(order));
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sandbox = createSandbox({
    merchants: [
      {
        mid: MID,
        merchantKey: MERCHANT_KEY,
        notificationUrl: `${shopUrl}/pay/notify`,
        notifyCancels: true,
        notificationRetry: { intervalMinutes: 1, count: 10 },
      },
    ],
    clock: () => new Date(START),
    testAutoCancel: false,
  });
  sandbox.clock.freeze();
  await sandbox.listen(0);
  const now = (): number => sandbox.clock.now().getTime();
  let stores: StoreSetup;
  try {
    stores = await openStores(kind, now, redisUrl, tag);
  } catch (err) {
    await sandbox.close();
    server.close();
    throw err;
  }
  const generations = [0, 0];
  const all: Instance[] = [];
  const start = (slot: number): Instance => {
    const instance = startInstance(`${slot}/${generations[slot]!++}`, stores.forInstance(), { sandbox, books, logger });
    all.push(instance);
    return instance;
  };
  const instances = [start(0), start(1)];

  // The gateway's notices go to the instances in turn, as behind a load balancer.
  let nextNotice = 0;
  app.post('/pay/notify', (req, res, next) => instances[nextNotice++ % instances.length]!.notifyRoute(req, res, next));
  app.post('/i/:slot/pay/return', (req, res, next) => {
    const [route, answer] = instances[Number(req.params.slot)]!.returnRoute;
    route!(req, res, (err?: unknown) => (err ? next(err) : answer!(req, res, next)));
  });
  app.use(errorAnswer);

  const takenWaiters: Array<{ target: FaultTarget; resolve: () => void }> = [];
  const take = sandbox.faults.take.bind(sandbox.faults);
  sandbox.faults.take = (target) => {
    const fault = take(target);
    if (fault) {
      for (const w of takenWaiters.filter((x) => x.target === target)) {
        takenWaiters.splice(takenWaiters.indexOf(w), 1);
        w.resolve();
      }
    }
    return fault;
  };

  const beatAll = async (): Promise<void> => {
    for (const i of instances) await i.store.beat();
  };

  const world: World = {
    kind,
    sandbox,
    books,
    shopUrl,
    instances,
    all,
    auths: [],
    bids: [],
    notes: {
      seen: [],
      answers: [],
      charges: new Map(),
      identities: new Set(),
      excluded: new Map(),
      forgotten: new Set(),
      refundsSent: new Map(),
      memoryRestarts: 0,
      registrations: 0,
    },
    async advance(ms) {
      // Live holders renew at least every BEAT_MS of virtual time, as their heartbeats would.
      let left = ms;
      while (left > 0) {
        const step = instances.some((i) => i.store.held().length > 0) ? Math.min(left, BEAT_MS) : left;
        sandbox.clock.advance(step);
        left -= step;
        await beatAll();
      }
    },
    async kill(slot) {
      const dead = instances[slot]!;
      const held = dead.store.kill();
      books.dropHooksOf(dead.name);
      void dead.nicepay.close().catch(() => undefined);
      instances[slot] = start(slot);
      // The restart takes a lease's lifetime: whatever the dead instance held is free again.
      await world.advance(LEASE_MS + 1);
      await stores.expireLeases(held);
    },
    restartMemory() {
      world.notes.memoryRestarts++;
      for (const tid of [...books.charges.keys(), ...world.auths.map((a) => a.fields.TxTid!)])
        world.notes.forgotten.add(tid);
      stores.restartMemory();
      for (const slot of [0, 1]) {
        const old = instances[slot]!;
        old.store.kill();
        void old.nicepay.close().catch(() => undefined);
        instances[slot] = start(slot);
      }
    },
    faultTaken: (target) => new Promise<void>((resolve) => takenWaiters.push({ target, resolve })),
    async close() {
      for (const i of all) {
        i.store.kill();
        void i.nicepay.close().catch(() => undefined);
      }
      await sandbox.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stores.close();
    },
  };
  return world;
}
