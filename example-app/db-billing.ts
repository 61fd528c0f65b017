/**
 * The example shop's subscription and cash-receipt tables (SQLite, beside db.ts's orders):
 *
 * - `subscriptions`: one per registered card. The billing key (BID) charges the card, so it is
 *   kept like a card number: encrypted at rest (AES-256-GCM under the shop's own key), shown
 *   only masked; `bid_enc` is never rendered or logged.
 * - `subscription_charges`: one row per charge attempt, keyed by its Moid (`SUB-<id>-<YYYYMM>`,
 *   then `-2`, `-3` ... for a month tried again after a decline). The shop's own once-a-month
 *   check lives here, not in the library's memory: before anything is sent, one SQLite
 *   transaction refuses a month that is already paid or has an attempt whose outcome is open,
 *   and records the new attempt as `charging`. So "charge this month" clicked twice, after a
 *   restart, or on two instances sharing the file, charges the month once; a partial unique
 *   index holds the rule in the schema too.
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

/**
 * Where a charge attempt stands: `charging` (recorded, the call is or was in flight), `unknown`
 * (sent, the outcome was lost: the package settles it and the attempt follows), `approved`,
 * `declined` (the card company refused; the month may be tried again), `failed` (nothing was
 * charged: not sent, or reversed; the month may be tried again).
 */
export type ChargeStatus = 'charging' | 'unknown' | 'approved' | 'declined' | 'failed';

/** One charge attempt of a subscription for a month, keyed by its Moid. */
export interface SubscriptionCharge {
  moid: string;
  subscriptionId: number;
  month: string;
  amount: number;
  status: ChargeStatus;
  tid: string;
  message: string;
  createdAt: string;
}

/** The cash receipt issued (or refused) for one order: its latest attempt. */
export interface CashReceiptRow {
  moid: string;
  /**
   * The Moid the receipt was asked under (one per attempt, as the gateway and the ledger take
   * one receipt per Moid): the order's for the first, `<moid>-R<n>` for the n-th.
   */
  receiptMoid: string;
  /** Which attempt this is, from 1. */
  attempt: number;
  tid: string;
  type: 'income-deduction' | 'expense-proof';
  amount: number;
  authCode: string;
  /** `cancelled`: issued, then cancelled at the gateway because the order was refunded. */
  status: 'issued' | 'refused' | 'cancelled';
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
CREATE UNIQUE INDEX IF NOT EXISTS subscription_charges_once_a_month ON subscription_charges (subscription_id, month)
  WHERE status IN ('charging', 'unknown', 'approved');
CREATE TABLE IF NOT EXISTS cash_receipts (
  moid TEXT PRIMARY KEY, tid TEXT NOT NULL, type TEXT NOT NULL, amount INTEGER NOT NULL, auth_code TEXT NOT NULL,
  status TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL
);`;

/** Columns added to cash_receipts after the first release: added to an existing file on open. */
const RECEIPT_COLUMNS: ReadonlyArray<[name: string, ddl: string]> = [
  ['receipt_moid', "receipt_moid TEXT NOT NULL DEFAULT ''"],
  ['attempt', 'attempt INTEGER NOT NULL DEFAULT 1'],
];

/** The subscription and receipt store over the shop's SQLite handle. */
export interface BillingDb {
  addSubscription(s: { buyerName: string; bid: string; bidMasked: string; cardName: string }): Subscription;
  subscription(id: number): Subscription | undefined;
  subscriptions(): Subscription[];
  /** The decrypted BID of an active subscription (to charge or remove it), or undefined. */
  bidOf(id: number): string | undefined;
  markRemoved(id: number): void;
  /** The subscription's charge attempts, newest first. */
  charges(subscriptionId: number): SubscriptionCharge[];
  /** One charge attempt by its Moid. */
  charge(moid: string): SubscriptionCharge | undefined;
  /**
   * The month's attempt that decides it, if any: the approved one, else an open one (charging
   * or unknown), else the latest.
   */
  monthCharge(subscriptionId: number, month: string): SubscriptionCharge | undefined;
  /**
   * Before a charge is sent: `paid` when the month is already approved, `open` when an attempt
   * of it is charging or unknown, else the new attempt recorded as `charging` with its Moid.
   */
  beginCharge(
    subscriptionId: number,
    month: string,
    amount: number,
  ): { paid: SubscriptionCharge } | { open: SubscriptionCharge } | { attempt: SubscriptionCharge };
  /** Settles an attempt that is charging or unknown (once: a settled attempt keeps its outcome). */
  settleCharge(
    moid: string,
    outcome: { status: Exclude<ChargeStatus, 'charging'>; tid?: string; amount?: number; message?: string },
  ): SubscriptionCharge;
  receipt(moid: string): CashReceiptRow | undefined;
  /**
   * Records that the receipt attempt asked under `receiptMoid` issued nothing (the package closed
   * its lost outcome), unless a result was recorded for it: the next attempt gets a Moid of its own.
   */
  receiptNotIssued(receiptMoid: string, message: string): void;
  /** Marks an issued receipt cancelled (the gateway confirmed the cancel); false if it was not issued. */
  cancelReceipt(moid: string): boolean;
  recordReceipt(r: Omit<CashReceiptRow, 'createdAt'>): void;
}

/** The attempt that decides a month: the approved one, else an open one, else the latest. */
function decisive(tries: readonly SubscriptionCharge[]): SubscriptionCharge | undefined {
  return (
    tries.find((c) => c.status === 'approved') ??
    tries.find((c) => c.status === 'charging' || c.status === 'unknown') ??
    tries[tries.length - 1]
  );
}

/**
 * Opens the tables. The BIDs are encrypted under a key derived from `secret` with this table's
 * own label (the example passes its merchant key; a real shop keeps a separate key in its KMS).
 */
export function billingDb(db: ShopDb, secret: string): BillingDb {
  const sql = db.sqlite;
  sql.exec(SCHEMA);
  const have = new Set(
    sql
      .prepare<[], { name: string }>('PRAGMA table_info(cash_receipts)')
      .all()
      .map((c) => c.name),
  );
  for (const [name, ddl] of RECEIPT_COLUMNS)
    if (!have.has(name)) sql.exec(`ALTER TABLE cash_receipts ADD COLUMN ${ddl}`);
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
  type ChargeRow = {
    moid: string;
    subscription_id: number;
    month: string;
    amount: number;
    status: ChargeStatus;
    tid: string;
    message: string;
    created_at: string;
  };
  const toCharge = (r: ChargeRow): SubscriptionCharge => ({
    moid: r.moid,
    subscriptionId: r.subscription_id,
    month: r.month,
    amount: r.amount,
    status: r.status,
    tid: r.tid,
    message: r.message,
    createdAt: r.created_at,
  });
  type SubRow = {
    id: number;
    buyer_name: string;
    bid_masked: string;
    card_name: string;
    status: 'active' | 'removed';
    created_at: string;
  };
  const toSub = (r: SubRow): Subscription => ({
    id: r.id,
    buyerName: r.buyer_name,
    bidMasked: r.bid_masked,
    cardName: r.card_name,
    status: r.status,
    createdAt: r.created_at,
  });
  const now = (): string => new Date().toISOString();
  const q = {
    add: sql.prepare(
      'INSERT INTO subscriptions (buyer_name, bid_enc, bid_masked, card_name, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    one: sql.prepare<[number], SubRow>(
      'SELECT id, buyer_name, bid_masked, card_name, status, created_at FROM subscriptions WHERE id = ?',
    ),
    all: sql.prepare<[], SubRow>(
      'SELECT id, buyer_name, bid_masked, card_name, status, created_at FROM subscriptions ORDER BY id',
    ),
    bid: sql.prepare<[number], { bid_enc: string }>(
      "SELECT bid_enc FROM subscriptions WHERE id = ? AND status = 'active'",
    ),
    removed: sql.prepare("UPDATE subscriptions SET status = 'removed' WHERE id = ?"),
    charges: sql.prepare<[number], ChargeRow>(
      'SELECT * FROM subscription_charges WHERE subscription_id = ? ORDER BY month DESC, created_at DESC, rowid DESC',
    ),
    ofMonth: sql.prepare<[number, string], ChargeRow>(
      'SELECT * FROM subscription_charges WHERE subscription_id = ? AND month = ? ORDER BY rowid',
    ),
    charge: sql.prepare<[string], ChargeRow>('SELECT * FROM subscription_charges WHERE moid = ?'),
    addCharge: sql.prepare(`INSERT INTO subscription_charges (moid, subscription_id, month, amount, status, created_at)
      VALUES (@moid, @subscriptionId, @month, @amount, 'charging', @createdAt)`),
    settleCharge:
      sql.prepare(`UPDATE subscription_charges SET status = @status, tid = COALESCE(@tid, tid), amount = COALESCE(@amount, amount),
      message = COALESCE(@message, message) WHERE moid = @moid AND status IN ('charging', 'unknown')`),
    receipt: sql.prepare<
      [string],
      {
        moid: string;
        tid: string;
        type: CashReceiptRow['type'];
        amount: number;
        auth_code: string;
        status: CashReceiptRow['status'];
        message: string;
        created_at: string;
        receipt_moid: string;
        attempt: number;
      }
    >('SELECT * FROM cash_receipts WHERE moid = ?'),
    cancelReceipt: sql.prepare("UPDATE cash_receipts SET status = 'cancelled' WHERE moid = ? AND status = 'issued'"),
    addReceipt: sql.prepare(
      // The latest attempt replaces the one before it (refused, or cancelled): never an issued one.
      `INSERT INTO cash_receipts (moid, receipt_moid, attempt, tid, type, amount, auth_code, status, message, created_at)
       VALUES (@moid, @receiptMoid, @attempt, @tid, @type, @amount, @authCode, @status, @message, @createdAt)
       ON CONFLICT (moid) DO UPDATE SET receipt_moid = excluded.receipt_moid, attempt = excluded.attempt, tid = excluded.tid,
         type = excluded.type, amount = excluded.amount, auth_code = excluded.auth_code, status = excluded.status,
         message = excluded.message, created_at = excluded.created_at
       WHERE cash_receipts.status != 'issued' AND excluded.attempt > cash_receipts.attempt`,
    ),
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
    charges: (id) => q.charges.all(id).map(toCharge),
    charge: (moid) => {
      const r = q.charge.get(moid);
      return r && toCharge(r);
    },
    monthCharge: (id, month) => decisive(q.ofMonth.all(id, month).map(toCharge)),
    beginCharge: sql.transaction((id: number, month: string, amount: number) => {
      const tries = q.ofMonth.all(id, month).map(toCharge);
      const paid = tries.find((c) => c.status === 'approved');
      if (paid) return { paid };
      const open = tries.find((c) => c.status === 'charging' || c.status === 'unknown');
      if (open) return { open };
      const moid = tries.length === 0 ? `SUB-${id}-${month}` : `SUB-${id}-${month}-${tries.length + 1}`;
      q.addCharge.run({ moid, subscriptionId: id, month, amount, createdAt: now() });
      return { attempt: toCharge(q.charge.get(moid)!) };
    }),
    settleCharge: (moid, o) => {
      q.settleCharge.run({
        moid,
        status: o.status,
        tid: o.tid ?? null,
        amount: o.amount ?? null,
        message: o.message ?? null,
      });
      return toCharge(q.charge.get(moid)!);
    },
    receipt: (moid) => {
      const r = q.receipt.get(moid);
      return (
        r && {
          moid: r.moid,
          receiptMoid: r.receipt_moid || r.moid,
          attempt: r.attempt,
          tid: r.tid,
          type: r.type,
          amount: r.amount,
          authCode: r.auth_code,
          status: r.status,
          message: r.message,
          createdAt: r.created_at,
        }
      );
    },
    recordReceipt: (r) => void q.addReceipt.run({ ...r, createdAt: now() }),
    cancelReceipt: (moid) => q.cancelReceipt.run(moid).changes === 1,
    receiptNotIssued(receiptMoid, message) {
      // `<moid>-R<n>` is the n-th attempt of order <moid>; a bare order Moid its first.
      const m = /^(.+)-R(\d+)$/.exec(receiptMoid);
      const attempt = m ? Number(m[2]) : 1;
      q.addReceipt.run({
        moid: m ? m[1] : receiptMoid,
        receiptMoid,
        attempt,
        tid: '',
        type: 'income-deduction',
        amount: 0,
        authCode: '',
        status: 'refused',
        message,
        createdAt: now(),
      });
    },
  };
}
