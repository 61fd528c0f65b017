/**
 * The example shop's subscription and cash-receipt tables (SQLite, beside db.ts's orders):
 *
 * - `subscriptions`: one per registered card. The billing key (BID) charges the card, so it is
 *   kept like a card number: encrypted at rest (AES-256-GCM under the shop's own key), shown
 *   only masked; `bid_enc` is never rendered or logged.
 * - `subscription_charges`: one row per subscription and KST month, keyed by the charge's Moid
 *   (`SUB-<id>-<YYYYMM>`): "charge this month" clicked twice, or on two instances, is one
 *   charge (the Moid is charged once by nicepay.billing.charge and the row's key is unique).
 * - `cash_receipts`: at most one per order (its Moid).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { ShopDb } from './db.js';

/** The plan the example shop sells. */
export const PLAN = { name: '월간 밀키트 구독', price: 29_900 } as const;

/** A subscription: a registered card (its BID only masked here) and whether it is still charged. */
export interface Subscription {
  id: number;
  buyerName: string;
  bidMasked: string;
  cardName: string;
  status: 'active' | 'removed';
  createdAt: string;
}

/** One month's charge of a subscription, keyed by its Moid. */
export interface SubscriptionCharge {
  moid: string;
  subscriptionId: number;
  month: string;
  amount: number;
  status: 'approved' | 'declined' | 'failed';
  tid: string;
  message: string;
  createdAt: string;
}

/** The cash receipt issued (or refused) for one order. */
export interface CashReceiptRow {
  moid: string;
  tid: string;
  type: 'income-deduction' | 'expense-proof';
  amount: number;
  authCode: string;
  status: 'issued' | 'refused';
  message: string;
  createdAt: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, buyer_name TEXT NOT NULL, bid_enc TEXT NOT NULL, bid_masked TEXT NOT NULL,
  card_name TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active', created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS subscription_charges (
  moid TEXT PRIMARY KEY, subscription_id INTEGER NOT NULL, month TEXT NOT NULL, amount INTEGER NOT NULL,
  status TEXT NOT NULL, tid TEXT NOT NULL DEFAULT '', message TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cash_receipts (
  moid TEXT PRIMARY KEY, tid TEXT NOT NULL, type TEXT NOT NULL, amount INTEGER NOT NULL, auth_code TEXT NOT NULL,
  status TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL
);`;

/** The subscription and receipt store over the shop's SQLite handle. */
export interface BillingDb {
  addSubscription(s: { buyerName: string; bid: string; bidMasked: string; cardName: string }): Subscription;
  subscription(id: number): Subscription | undefined;
  subscriptions(): Subscription[];
  /** The decrypted BID of an active subscription (to charge or remove it), or undefined. */
  bidOf(id: number): string | undefined;
  markRemoved(id: number): void;
  charges(subscriptionId: number): SubscriptionCharge[];
  /** Records a charge's outcome; a second record of one Moid keeps the first (the charge happened once). */
  recordCharge(c: Omit<SubscriptionCharge, 'createdAt'>): void;
  receipt(moid: string): CashReceiptRow | undefined;
  recordReceipt(r: Omit<CashReceiptRow, 'createdAt'>): void;
}

/**
 * Opens the tables. The BIDs are encrypted under a key derived from `secret` with this table's
 * own label (the example passes its merchant key; a real shop keeps a separate key in its KMS).
 */
export function billingDb(db: ShopDb, secret: string): BillingDb {
  const sql = db.sqlite;
  sql.exec(SCHEMA);
  const key = createHash('sha256').update(`example-shop-bid-key\0${secret}`).digest();
  const seal = (bid: string): string => {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([c.update(bid, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
  };
  const open = (sealed: string): string => {
    const b = Buffer.from(sealed, 'base64');
    const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, 12));
    d.setAuthTag(b.subarray(12, 28));
    return Buffer.concat([d.update(b.subarray(28)), d.final()]).toString('utf8');
  };
  type SubRow = { id: number; buyer_name: string; bid_masked: string; card_name: string; status: 'active' | 'removed'; created_at: string };
  const toSub = (r: SubRow): Subscription => ({ id: r.id, buyerName: r.buyer_name, bidMasked: r.bid_masked, cardName: r.card_name, status: r.status, createdAt: r.created_at });
  const now = (): string => new Date().toISOString();
  const q = {
    add: sql.prepare('INSERT INTO subscriptions (buyer_name, bid_enc, bid_masked, card_name, created_at) VALUES (?, ?, ?, ?, ?)'),
    one: sql.prepare<[number], SubRow>('SELECT id, buyer_name, bid_masked, card_name, status, created_at FROM subscriptions WHERE id = ?'),
    all: sql.prepare<[], SubRow>('SELECT id, buyer_name, bid_masked, card_name, status, created_at FROM subscriptions ORDER BY id'),
    bid: sql.prepare<[number], { bid_enc: string }>("SELECT bid_enc FROM subscriptions WHERE id = ? AND status = 'active'"),
    removed: sql.prepare("UPDATE subscriptions SET status = 'removed' WHERE id = ?"),
    charges: sql.prepare<[number], { moid: string; subscription_id: number; month: string; amount: number; status: SubscriptionCharge['status']; tid: string; message: string; created_at: string }>(
      'SELECT * FROM subscription_charges WHERE subscription_id = ? ORDER BY month DESC'),
    charge: sql.prepare('INSERT OR IGNORE INTO subscription_charges (moid, subscription_id, month, amount, status, tid, message, created_at) VALUES (@moid, @subscriptionId, @month, @amount, @status, @tid, @message, @createdAt)'),
    receipt: sql.prepare<[string], { moid: string; tid: string; type: CashReceiptRow['type']; amount: number; auth_code: string; status: CashReceiptRow['status']; message: string; created_at: string }>(
      'SELECT * FROM cash_receipts WHERE moid = ?'),
    addReceipt: sql.prepare('INSERT OR IGNORE INTO cash_receipts (moid, tid, type, amount, auth_code, status, message, created_at) VALUES (@moid, @tid, @type, @amount, @authCode, @status, @message, @createdAt)'),
  };
  return {
    addSubscription(s) {
      const { lastInsertRowid } = q.add.run(s.buyerName, seal(s.bid), s.bidMasked, s.cardName, now());
      return toSub(q.one.get(Number(lastInsertRowid))!);
    },
    subscription: (id) => {
      const r = q.one.get(id);
      return r && toSub(r);
    },
    subscriptions: () => q.all.all().map(toSub),
    bidOf: (id) => {
      const r = q.bid.get(id);
      return r && open(r.bid_enc);
    },
    markRemoved: (id) => void q.removed.run(id),
    charges: (id) => q.charges.all(id).map((r) => ({ moid: r.moid, subscriptionId: r.subscription_id, month: r.month, amount: r.amount, status: r.status, tid: r.tid, message: r.message, createdAt: r.created_at })),
    recordCharge: (c) => void q.charge.run({ ...c, createdAt: now() }),
    receipt: (moid) => {
      const r = q.receipt.get(moid);
      return r && { moid: r.moid, tid: r.tid, type: r.type, amount: r.amount, authCode: r.auth_code, status: r.status, message: r.message, createdAt: r.created_at };
    },
    recordReceipt: (r) => void q.addReceipt.run({ ...r, createdAt: now() }),
  };
}
