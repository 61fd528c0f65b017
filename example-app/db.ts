/**
 * The shop's SQLite store (better-sqlite3, synchronous): products and orders. The order's
 * amount is written here when the order is created and is the only amount the payment
 * return is checked against (DESIGN.md: "the merchant's amount is the truth").
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommittedCheckout, DeclinedCheckout } from '../src/index.js';

export interface Product {
  id: string;
  name: string;
  /** Whole won. */
  price: number;
  description: string;
}

export type OrderStatus = 'pending' | 'paid' | 'awaiting-deposit' | 'declined';

/** How the order is paid: the payment window or card key-in. */
export type OrderChannel = 'window' | 'keyin';

export interface Order {
  moid: string;
  productId: string;
  goods: string;
  /** Whole won, from the product table at checkout. */
  amount: number;
  status: OrderStatus;
  method: string | null;
  tid: string | null;
  /** The typed checkout result as JSON (dates as ISO strings), once there is one. */
  result: string | null;
  buyerName: string;
  buyerEmail: string;
  buyerTel: string;
  createdAt: string;
  channel: OrderChannel;
  /**
   * Set when the buyer came back from the window with auth-failed (e.g. pressed 취소). Only
   * a display hint: auth-failed returns are unauthenticated (anyone can post one), so the
   * order stays payable and its status does not change.
   */
  windowCancelledAt: string | null;
  /** The auth-failed return's message: untrusted text, always escaped when shown. */
  windowMessage: string | null;
  /** Won refunded (cancelled) so far through the back office, paid out or not. */
  refundedAmount: number;
  /**
   * Of `refundedAmount`, won the gateway accepted to refund to a bank account and has not been
   * seen paid out yet (a paid virtual account's refund: "refund accepted, not paid out").
   */
  refundPendingAmount: number;
  /** When a virtual account's deposit notice arrived (ISO), if it did. */
  depositedAt: string | null;
  /**
   * The gateway will take no payment for this order number any more: it refused one as a
   * duplicate order (A127), or the package reversed an approval of it. The order is not paid;
   * the buyer pays with a new order.
   */
  moidSpent: boolean;
}

export interface Buyer {
  name: string;
  email: string;
  tel: string;
}

/** The shop's data access; `sqlite` is the raw handle for tests and future back-office pages. */
export interface ShopDb {
  readonly sqlite: Database.Database;
  products(): Product[];
  product(id: string): Product | undefined;
  createOrder(product: Product, buyer: Buyer, channel?: OrderChannel): Order;
  order(moid: string): Order | undefined;
  orders(): Order[];
  /** The order's amount, or undefined for an unknown Moid. */
  orderAmount(moid: string): number | undefined;
  /**
   * Records a committed payment (paid, or awaiting deposit for a virtual account). Throws when
   * the order is already settled by another TID, so checkoutReturn net-cancels the second one.
   */
  markCommitted(result: CommittedCheckout): void;
  markDeclined(result: DeclinedCheckout): void;
  /** Notes that the buyer came back from the window without paying (display only; see Order). */
  markWindowCancelled(moid: string, message: string): void;
  /** Notes that the gateway takes no payment for this unpaid order's number any more (see Order). */
  markMoidSpent(moid: string): void;
  /**
   * A virtual account's deposit arrived (the gateway's notice): awaiting-deposit → paid, for
   * this TID only. Idempotent: a repeated notice changes nothing. False when the order is not
   * this TID's awaiting or paid virtual account.
   */
  markDeposited(moid: string, tid: string, at: Date | undefined): boolean;
  /**
   * Adds a refund the gateway accepted, never beyond the order's amount; `payout: 'pending'`
   * when it still has to be paid out to the refund account.
   */
  addRefund(moid: string, amount: number, payout?: 'done' | 'pending'): void;
  /** A pending refund of `amount` was paid out to the refund account: it leaves refundPendingAmount. */
  refundPaidOut(moid: string, amount: number): void;
  close(): void;
}

/** Seeded products; 똠 (0x8C63) and 햏 (0xC164) exist in CP949 only, not in plain EUC-KR. */
export const SEED_PRODUCTS: readonly Product[] = [
  { id: 'tomyum-kit', name: '똠얌꿍 밀키트', price: 12_000, description: '새콤하고 매콤한 태국식 수프, 2인분' },
  { id: 'haeng-mug', name: '햏 머그컵', price: 8_900, description: '도톰한 도자기 머그, 350ml' },
  { id: 'jeju-tea', name: '제주 녹차 티백 세트', price: 15_500, description: '유기농 녹차 30티백' },
  { id: 'kimchi', name: '전라도 포기김치 2kg', price: 23_000, description: '국산 배추와 고춧가루로 담근 김치' },
];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS products (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  price INTEGER NOT NULL CHECK (price > 0),
  description TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS orders (
  moid TEXT PRIMARY KEY,
  product_id TEXT NOT NULL REFERENCES products(id),
  goods TEXT NOT NULL,
  amount INTEGER NOT NULL CHECK (amount > 0),
  status TEXT NOT NULL DEFAULT 'pending',
  method TEXT,
  tid TEXT UNIQUE,
  result TEXT,
  buyer_name TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL
);
`;

/** Columns added after the first release: added to an existing data/shop.db on open. */
const ADDED_COLUMNS: ReadonlyArray<[name: string, ddl: string]> = [
  ['channel', "channel TEXT NOT NULL DEFAULT 'window'"],
  ['window_cancelled_at', 'window_cancelled_at TEXT'],
  ['window_message', 'window_message TEXT'],
  ['buyer_email', "buyer_email TEXT NOT NULL DEFAULT ''"],
  ['buyer_tel', "buyer_tel TEXT NOT NULL DEFAULT ''"],
  ['refunded_amount', 'refunded_amount INTEGER NOT NULL DEFAULT 0'],
  ['deposited_at', 'deposited_at TEXT'],
  ['refund_pending_amount', 'refund_pending_amount INTEGER NOT NULL DEFAULT 0'],
  ['moid_spent', 'moid_spent INTEGER NOT NULL DEFAULT 0'],
];

interface OrderRow {
  moid: string;
  product_id: string;
  goods: string;
  amount: number;
  status: OrderStatus;
  method: string | null;
  tid: string | null;
  result: string | null;
  buyer_name: string;
  created_at: string;
  channel: OrderChannel;
  window_cancelled_at: string | null;
  window_message: string | null;
  buyer_email: string;
  buyer_tel: string;
  refunded_amount: number;
  deposited_at: string | null;
  refund_pending_amount: number;
  moid_spent: number;
}

const toOrder = (r: OrderRow): Order => ({
  moid: r.moid,
  productId: r.product_id,
  goods: r.goods,
  amount: r.amount,
  status: r.status,
  method: r.method,
  tid: r.tid,
  result: r.result,
  buyerName: r.buyer_name,
  createdAt: r.created_at,
  buyerEmail: r.buyer_email,
  buyerTel: r.buyer_tel,
  channel: r.channel,
  windowCancelledAt: r.window_cancelled_at,
  windowMessage: r.window_message,
  refundedAmount: r.refunded_amount,
  refundPendingAmount: r.refund_pending_amount,
  depositedAt: r.deposited_at,
  moidSpent: r.moid_spent === 1,
});

/** A Moid: date (KST) + random, unique within the table (the PRIMARY KEY enforces it). */
function newMoid(now: Date): string {
  const kst = new Date(now.getTime() + 9 * 3_600_000).toISOString().slice(0, 10).replace(/-/g, '');
  return `ORD${kst}${randomBytes(5).toString('hex').toUpperCase()}`;
}

/** Opens (and creates, seeds) the database; `':memory:'` for tests. */
export function openDb(file: string): ShopDb {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.exec(SCHEMA);
  const have = new Set(
    sqlite
      .prepare<[], { name: string }>('PRAGMA table_info(orders)')
      .all()
      .map((c) => c.name),
  );
  for (const [name, ddl] of ADDED_COLUMNS) if (!have.has(name)) sqlite.exec(`ALTER TABLE orders ADD COLUMN ${ddl}`);
  const seed = sqlite.prepare(
    'INSERT OR IGNORE INTO products (id, name, price, description) VALUES (@id, @name, @price, @description)',
  );
  sqlite.transaction(() => {
    for (const p of SEED_PRODUCTS) seed.run(p);
  })();

  const q = {
    products: sqlite.prepare<[], Product>('SELECT id, name, price, description FROM products ORDER BY rowid'),
    product: sqlite.prepare<[string], Product>('SELECT id, name, price, description FROM products WHERE id = ?'),
    insert: sqlite.prepare(
      `INSERT INTO orders (moid, product_id, goods, amount, buyer_name, buyer_email, buyer_tel, created_at, channel)
       VALUES (@moid, @productId, @goods, @amount, @buyerName, @buyerEmail, @buyerTel, @createdAt, @channel)`,
    ),
    order: sqlite.prepare<[string], OrderRow>('SELECT * FROM orders WHERE moid = ?'),
    orders: sqlite.prepare<[], OrderRow>('SELECT * FROM orders ORDER BY created_at DESC, rowid DESC'),
    settle: sqlite.prepare(
      `UPDATE orders SET status = @status, method = @method, tid = @tid, result = @result, window_cancelled_at = NULL, window_message = NULL
       WHERE moid = @moid AND status IN ('pending', 'declined')`,
    ),
    decline: sqlite.prepare(
      `UPDATE orders SET status = 'declined', method = @method, result = @result, window_cancelled_at = NULL, window_message = NULL WHERE moid = @moid AND status = 'pending'`,
    ),
    deposited: sqlite.prepare(
      `UPDATE orders SET status = 'paid', deposited_at = @at WHERE moid = @moid AND tid = @tid AND method = 'VBANK' AND status = 'awaiting-deposit'`,
    ),
    refund: sqlite.prepare(
      `UPDATE orders SET refunded_amount = MIN(amount, refunded_amount + @amount),
         refund_pending_amount = MIN(amount, refund_pending_amount + @pending) WHERE moid = @moid`,
    ),
    paidOut: sqlite.prepare(
      `UPDATE orders SET refund_pending_amount = MAX(0, refund_pending_amount - @amount) WHERE moid = @moid`,
    ),
    moidSpent: sqlite.prepare(`UPDATE orders SET moid_spent = 1 WHERE moid = ? AND status IN ('pending', 'declined')`),
    windowCancelled: sqlite.prepare(
      `UPDATE orders SET window_cancelled_at = @at, window_message = @message WHERE moid = @moid AND status IN ('pending', 'declined')`,
    ),
  };

  return {
    sqlite,
    products: () => q.products.all(),
    product: (id) => q.product.get(id),
    createOrder(product, buyer, channel = 'window') {
      for (;;) {
        const order = {
          moid: newMoid(new Date()),
          productId: product.id,
          goods: product.name,
          amount: product.price,
          buyerName: buyer.name,
          buyerEmail: buyer.email,
          buyerTel: buyer.tel,
          createdAt: new Date().toISOString(),
          channel,
        };
        try {
          q.insert.run(order);
        } catch (err) {
          if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') continue;
          throw err;
        }
        return {
          ...order,
          status: 'pending',
          method: null,
          tid: null,
          result: null,
          windowCancelledAt: null,
          windowMessage: null,
          refundedAmount: 0,
          refundPendingAmount: 0,
          depositedAt: null,
          moidSpent: false,
        };
      }
    },
    order: (moid) => {
      const r = q.order.get(moid);
      return r && toOrder(r);
    },
    orders: () => q.orders.all().map(toOrder),
    orderAmount: (moid) => q.order.get(moid)?.amount,
    markCommitted(result) {
      const { changes } = q.settle.run({
        moid: result.moid,
        tid: result.tid,
        method: result.payment.method,
        result: JSON.stringify(result),
        status: result.status === 'approved' ? 'paid' : 'awaiting-deposit',
      });
      if (changes === 1) return;
      const current = q.order.get(result.moid);
      if (current?.tid === result.tid) return; // this TID was already recorded (another instance)
      throw new Error(`order ${result.moid} is ${current?.status ?? 'missing'} already; refusing a second payment`);
    },
    markDeclined(result) {
      q.decline.run({ moid: result.moid, method: result.raw.PayMethod ?? null, result: JSON.stringify(result) });
    },
    markWindowCancelled(moid, message) {
      // Bounded: the text comes from an unauthenticated post.
      q.windowCancelled.run({ moid, at: new Date().toISOString(), message: message.slice(0, 200) });
    },
    markMoidSpent(moid) {
      q.moidSpent.run(moid);
    },
    markDeposited(moid, tid, at) {
      q.deposited.run({ moid, tid, at: (at ?? new Date()).toISOString() });
      const o = q.order.get(moid);
      return o !== undefined && o.tid === tid && o.method === 'VBANK' && o.status === 'paid';
    },
    addRefund(moid, amount, payout = 'done') {
      q.refund.run({ moid, amount, pending: payout === 'pending' ? amount : 0 });
    },
    refundPaidOut(moid, amount) {
      q.paidOut.run({ moid, amount });
    },
    close: () => sqlite.close(),
  };
}
