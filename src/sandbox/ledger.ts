import type { PayMethod } from '../types/payment.js';

/** Where a sandbox transaction stands. */
export type LedgerStatus = 'authenticated' | 'approved' | 'awaiting-deposit' | 'declined' | 'net-cancelled' | 'auth-cancelled';

/** One transaction of the sandbox gateway. */
export interface LedgerEntry {
  tid: string;
  mid: string;
  moid: string;
  amount: number;
  method: PayMethod;
  status: LedgerStatus;
  source: 'window' | 'keyin';
  goodsName: string;
  buyerName: string;
  /** Cash receipt asked for in the window (bank transfer, virtual account). */
  cashReceipt?: { type: 'income-deduction' | 'expense-proof'; identity: string };
  createdAt: Date;
  approvedAt?: Date;
  cancelledAt?: Date;
  /** How many approval calls reached the gateway for this TID (more than 1 = a duplicate). */
  approvalCalls: number;
  /** Internal: data the endpoints keep (auth token, window fields). */
  extra: Record<string, string>;
}

/** Listener for ledger changes (the data host uses it to feed settlement and receipts). */
export type LedgerListener = (entry: LedgerEntry, previous: LedgerStatus | undefined) => void;

/** The sandbox's book of transactions, readable by tests. */
export interface Ledger {
  /** Books a new transaction (no listener is told: it has no previous status). */
  add(entry: LedgerEntry): void;
  /** The transaction with this TID, if any (the live entry, not a copy). */
  get(tid: string): LedgerEntry | undefined;
  /** The merchant's transactions with this Moid, in booking order (live entries). */
  byMoid(mid: string, moid: string): readonly LedgerEntry[];
  /** Changes a transaction's status and tells the listeners. */
  update(tid: string, status: LedgerStatus, at: Date): LedgerEntry;
  /** Every transaction, in booking order. */
  entries(): readonly LedgerEntry[];
  /** Entries whose status is 'approved' or 'awaiting-deposit' (money committed). */
  committed(): readonly LedgerEntry[];
  /** Calls `listener` after every status change. */
  onChange(listener: LedgerListener): void;
  /** Forgets every transaction (listeners stay). */
  clear(): void;
}

/** Creates an empty ledger. */
export function createLedger(): Ledger {
  const byTid = new Map<string, LedgerEntry>();
  /** MID + NUL + Moid -> entries, for the duplicate-Moid rule (one lookup, not a scan). */
  const byOrder = new Map<string, LedgerEntry[]>();
  const orderKey = (mid: string, moid: string): string => `${mid}\u0000${moid}`;
  const listeners: LedgerListener[] = [];
  return {
    add(entry) {
      byTid.set(entry.tid, entry);
      const key = orderKey(entry.mid, entry.moid);
      const list = byOrder.get(key);
      if (list) list.push(entry);
      else byOrder.set(key, [entry]);
      for (const l of listeners) l(entry, undefined);
    },
    get: (tid) => byTid.get(tid),
    byMoid: (mid, moid) => byOrder.get(orderKey(mid, moid)) ?? [],
    update(tid, status, at) {
      const e = byTid.get(tid);
      if (!e) throw new Error(`sandbox ledger has no transaction ${tid}`);
      const previous = e.status;
      e.status = status;
      if (status === 'approved' || status === 'awaiting-deposit') e.approvedAt = at;
      if (status === 'net-cancelled') e.cancelledAt = at;
      for (const l of listeners) l(e, previous);
      return e;
    },
    entries: () => [...byTid.values()],
    committed: () => [...byTid.values()].filter((e) => e.status === 'approved' || e.status === 'awaiting-deposit'),
    onChange(listener) {
      listeners.push(listener);
    },
    clear() {
      byTid.clear();
      byOrder.clear();
    },
  };
}
