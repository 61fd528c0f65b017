import type { PayMethod } from '../types/payment.js';

/** Where a sandbox transaction stands. */
export type LedgerStatus =
  | 'authenticated'
  | 'approved'
  | 'awaiting-deposit'
  | 'declined'
  | 'net-cancelled'
  | 'auth-cancelled'
  | 'cancelled';

/** One cancel or refund the sandbox accepted (cancel_process.jsp without NetCancel). */
export interface LedgerCancel {
  /** Won cancelled by this request. */
  amount: number;
  /** Won still cancellable after it. */
  remaining: number;
  partial: boolean;
  /** 2001 cancelled, 2225 refund accepted (to `refundAccount`). */
  resultCode: string;
  cancelNum: string;
  at: Date;
  /** The cancel's CancelMsg, decoded from EUC-KR. */
  reason: string;
  /** The Moid the cancel request carried (the merchant's number for this cancel, not necessarily the order's). */
  moid: string;
  /** A refund's account, the number masked to its last 4 digits. */
  refundAccount?: { bankCode: string; number: string; holder: string };
}

/** A virtual account's deposit, made by sandbox.deposit(). */
export interface LedgerDeposit {
  amount: number;
  depositor: string;
  at: Date;
}

/** One delivery of a payment notice to the merchant's notificationUrl, and its answer. */
export interface LedgerNoticeDelivery {
  kind: 'deposit' | 'cancel';
  /** 1 for the first delivery of a notice, then 2, 3 ... for its retries. */
  attempt: number;
  /** Virtual time of the delivery. */
  at: Date;
  /** HTTP status answered, when an answer came. */
  status?: number;
  /** The answer's body (first 200 characters), or why none came. */
  answer: string;
  /** True when the answer was exactly `OK`. */
  ok: boolean;
}

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
  /** Cancels and refunds accepted, in order (cancel_process.jsp without NetCancel). */
  cancels?: LedgerCancel[];
  /** A virtual account's deposit (sandbox.deposit). */
  deposit?: LedgerDeposit;
  /** Every notice delivery for this transaction and its answer. */
  notices?: LedgerNoticeDelivery[];
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
      if (status === 'cancelled') e.cancelledAt = at;
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
