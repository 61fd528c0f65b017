/**
 * Refund intents: every refund the back office asks for is recorded BEFORE the gateway is
 * called, keyed by the order and the amount intent (the remaining amount the operator saw and
 * the amount to refund), and settled afterwards. A refund whose outcome was lost stays open
 * (`unknown`), and while an order has an open intent no new refund of it is sent until it is
 * settled: a full refund by the package's settlement, which the intent follows
 * (settlement-follower.ts), a partial one by the operator (admin-orders.ts). So a lost answer is never paid twice, whatever the
 * operator clicks: a double click, Back and a re-posted confirmation, a fresh form.
 *
 * A refund of a paid virtual account goes to a bank account: the gateway only accepts it
 * ("refund accepted, not paid out yet") and pays it out later. Such an intent is `done` with
 * `payout: 'pending'` until the shop learns of the payout, and the order's
 * refundPendingAmount holds it meanwhile (db.ts), so no page calls it refunded before that.
 */
import type { ShopDb } from './db.js';

/**
 * `pending`: recorded, the call is (or was, if the process died) in flight. `unknown`: the
 * call was sent and its outcome is not known. `done`: the gateway cancelled or accepted it.
 * `refused`: the gateway refused, nothing moved. `not-sent`: nothing reached the gateway.
 */
export type RefundState = 'pending' | 'unknown' | 'done' | 'refused' | 'not-sent';

/**
 * Whether a settled refund still has to reach the buyer: `none` (a card or an unpaid virtual
 * account: cancelled at the gateway, nothing to pay out), `pending` (accepted, to be paid out
 * to the refund account), `paid` (the payout was confirmed).
 */
export type RefundPayout = 'none' | 'pending' | 'paid';

/** One refund intent of an order. */
export interface RefundIntent {
  id: number;
  moid: string;
  tid: string;
  /** `<remaining before>-<amount>`: the same operator intent always has the same key. */
  key: string;
  amount: number;
  /** What was still refundable when the operator confirmed. */
  remainingBefore: number;
  partial: boolean;
  reason: string;
  /** A paid virtual account's refund account (the buyer's bank account, not card data). */
  bankCode: string;
  number: string;
  holder: string;
  state: RefundState;
  /**
   * Tries of this intent: 1, and one more each time a refused or never-sent intent is tried
   * again. Each try is one cancel for the library (its idempotency key, refund-calls.ts).
   */
  attempts: number;
  /** Won the gateway confirmed, once done. */
  cancelledAmount: number | null;
  /** How it was settled, for the operator (Korean). */
  note: string;
  createdAt: string;
  settledAt: string | null;
  payout: RefundPayout;
  /** When the payout to the refund account was recorded (ISO), once it was. */
  paidOutAt: string | null;
}

/** What a new intent needs. */
export type NewRefund = Pick<
  RefundIntent,
  'moid' | 'tid' | 'amount' | 'remainingBefore' | 'partial' | 'reason' | 'bankCode' | 'number' | 'holder'
>;

/** The refund-intent table and its operations; every state change is one SQLite transaction. */
export interface RefundStore {
  /** The intent key of an amount intent. */
  keyOf(remainingBefore: number, amount: number): string;
  byKey(moid: string, key: string): RefundIntent | undefined;
  byId(id: number): RefundIntent | undefined;
  /** The order's intent that is pending or unknown, if any. */
  open(moid: string): RefundIntent | undefined;
  /**
   * Records the intent before the call (or reopens the same one after a refusal or a call
   * never sent). `busy` with the open intent when the order already has one.
   */
  begin(r: NewRefund): { intent: RefundIntent } | { busy: RefundIntent };
  /**
   * Settles an intent; `done` also adds the refunded amount to the order, in the same
   * transaction, as paid out (`payout: 'none'`) or still to be paid out (`'pending'`).
   */
  settle(
    id: number,
    state: Exclude<RefundState, 'pending'>,
    note: string,
    cancelledAmount?: number,
    payout?: Exclude<RefundPayout, 'paid'>,
  ): RefundIntent;
  /**
   * Records that a pending refund was paid out to its refund account; the order's pending
   * amount drops by it in the same transaction. False when the intent is not a pending payout.
   */
  markPaidOut(id: number): boolean;
  /** Every intent of the order, oldest first. */
  ofOrder(moid: string): RefundIntent[];
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS refund_intents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  moid TEXT NOT NULL, tid TEXT NOT NULL, key TEXT NOT NULL,
  amount INTEGER NOT NULL, remaining_before INTEGER NOT NULL, partial INTEGER NOT NULL,
  reason TEXT NOT NULL, bank_code TEXT NOT NULL DEFAULT '', number TEXT NOT NULL DEFAULT '', holder TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 1,
  cancelled_amount INTEGER, note TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL, settled_at TEXT,
  UNIQUE (moid, key)
);
CREATE UNIQUE INDEX IF NOT EXISTS refund_intents_one_open ON refund_intents (moid) WHERE state IN ('pending', 'unknown');`;

/** Columns added after the first release: added to an existing table on open. */
const ADDED_COLUMNS: ReadonlyArray<[name: string, ddl: string]> = [
  ['payout', "payout TEXT NOT NULL DEFAULT 'none'"],
  ['paid_out_at', 'paid_out_at TEXT'],
];

interface Row {
  id: number;
  moid: string;
  tid: string;
  key: string;
  amount: number;
  remaining_before: number;
  partial: number;
  reason: string;
  bank_code: string;
  number: string;
  holder: string;
  state: RefundState;
  attempts: number;
  cancelled_amount: number | null;
  note: string;
  created_at: string;
  settled_at: string | null;
  payout: RefundPayout;
  paid_out_at: string | null;
}

const fromRow = (r: Row): RefundIntent => ({
  id: r.id,
  moid: r.moid,
  tid: r.tid,
  key: r.key,
  amount: r.amount,
  remainingBefore: r.remaining_before,
  partial: r.partial === 1,
  reason: r.reason,
  bankCode: r.bank_code,
  number: r.number,
  holder: r.holder,
  state: r.state,
  attempts: r.attempts,
  cancelledAmount: r.cancelled_amount,
  note: r.note,
  createdAt: r.created_at,
  settledAt: r.settled_at,
  payout: r.payout,
  paidOutAt: r.paid_out_at,
});

/** Opens the refund-intent table in the shop's database. */
export function refundStore(db: ShopDb): RefundStore {
  const { sqlite } = db;
  sqlite.exec(SCHEMA);
  const have = new Set(
    sqlite
      .prepare<[], { name: string }>('PRAGMA table_info(refund_intents)')
      .all()
      .map((c) => c.name),
  );
  for (const [name, ddl] of ADDED_COLUMNS)
    if (!have.has(name)) sqlite.exec(`ALTER TABLE refund_intents ADD COLUMN ${ddl}`);
  const q = {
    byKey: sqlite.prepare<[string, string], Row>('SELECT * FROM refund_intents WHERE moid = ? AND key = ?'),
    byId: sqlite.prepare<[number], Row>('SELECT * FROM refund_intents WHERE id = ?'),
    open: sqlite.prepare<[string], Row>(
      "SELECT * FROM refund_intents WHERE moid = ? AND state IN ('pending', 'unknown')",
    ),
    insert:
      sqlite.prepare(`INSERT INTO refund_intents (moid, tid, key, amount, remaining_before, partial, reason, bank_code, number, holder, state, created_at)
      VALUES (@moid, @tid, @key, @amount, @remainingBefore, @partial, @reason, @bankCode, @number, @holder, 'pending', @now)`),
    reopen:
      sqlite.prepare(`UPDATE refund_intents SET state = 'pending', attempts = attempts + 1, reason = @reason, bank_code = @bankCode,
      number = @number, holder = @holder, note = '', settled_at = NULL WHERE id = @id AND state IN ('refused', 'not-sent')`),
    settle:
      sqlite.prepare(`UPDATE refund_intents SET state = @state, note = @note, cancelled_amount = @cancelledAmount, settled_at = @now, payout = @payout
      WHERE id = @id AND state IN ('pending', 'unknown')`),
    paidOut: sqlite.prepare(
      `UPDATE refund_intents SET payout = 'paid', paid_out_at = @now WHERE id = @id AND state = 'done' AND payout = 'pending'`,
    ),
    ofOrder: sqlite.prepare<[string], Row>('SELECT * FROM refund_intents WHERE moid = ? ORDER BY id'),
  };
  const byId = (id: number): RefundIntent => fromRow(q.byId.get(id)!);
  const keyOf = (remainingBefore: number, amount: number): string => `${remainingBefore}-${amount}`;

  const begin = sqlite.transaction((r: NewRefund): { intent: RefundIntent } | { busy: RefundIntent } => {
    const open = q.open.get(r.moid);
    if (open) return { busy: fromRow(open) };
    const key = keyOf(r.remainingBefore, r.amount);
    const existing = q.byKey.get(r.moid, key);
    if (existing) {
      q.reopen.run({ id: existing.id, reason: r.reason, bankCode: r.bankCode, number: r.number, holder: r.holder });
      return { intent: byId(existing.id) };
    }
    const { lastInsertRowid } = q.insert.run({ ...r, key, partial: r.partial ? 1 : 0, now: new Date().toISOString() });
    return { intent: byId(Number(lastInsertRowid)) };
  });

  const settle = sqlite.transaction(
    (
      id: number,
      state: Exclude<RefundState, 'pending'>,
      note: string,
      cancelledAmount?: number,
      payout: Exclude<RefundPayout, 'paid'> = 'none',
    ): RefundIntent => {
      const recorded = state === 'done' ? payout : 'none';
      const { changes } = q.settle.run({
        id,
        state,
        note,
        cancelledAmount: cancelledAmount ?? null,
        payout: recorded,
        now: new Date().toISOString(),
      });
      const intent = byId(id);
      // Only the transition out of pending/unknown adds the refund: a settled intent is never counted twice.
      if (changes === 1 && state === 'done')
        db.addRefund(intent.moid, cancelledAmount ?? intent.amount, recorded === 'pending' ? 'pending' : 'done');
      return intent;
    },
  );

  const markPaidOut = sqlite.transaction((id: number): boolean => {
    const { changes } = q.paidOut.run({ id, now: new Date().toISOString() });
    if (changes !== 1) return false;
    const intent = byId(id);
    db.refundPaidOut(intent.moid, intent.cancelledAmount ?? intent.amount);
    return true;
  });

  return {
    keyOf,
    byKey: (moid, key) => {
      const r = q.byKey.get(moid, key);
      return r ? fromRow(r) : undefined;
    },
    byId: (id) => {
      const r = q.byId.get(id);
      return r ? fromRow(r) : undefined;
    },
    open: (moid) => {
      const r = q.open.get(moid);
      return r ? fromRow(r) : undefined;
    },
    begin,
    settle,
    markPaidOut,
    ofOrder: (moid) => q.ofOrder.all(moid).map(fromRow),
  };
}
