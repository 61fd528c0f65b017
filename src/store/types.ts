import { withStackText } from '../errors/stack-text.js';

/**
 * The payment ledger's storage: one record per key, each either **open** (a money operation
 * still moving: sending, awaiting its hook, being reversed or settled) or **closed** (final: it
 * answers repeats for `keepMs`), and a **lease** per key that says who may move the record now.
 *
 * memoryStore serves one process, sqliteStore the processes of one machine, redisStore a fleet:
 * the same contract, tested by the same suite (test/helpers/store-contract.ts). Only the pipeline
 * (src/pipeline/ledger*.ts) calls a store; values are opaque text it writes, with characters
 * above U+007F in them: a store must give back exactly the string it was given.
 *
 * Two clocks meet here. Leases and `keepMs` run on the store's own clock (a lease is about real
 * processes dying). `dueAt` is a time the caller computes on its clock (the settler's, virtual in
 * tests) and hands back to {@link LedgerStore.due}; the store only compares the two numbers.
 *
 * Open records are never evicted and never expire: they are money the shop and the gateway may
 * still disagree on. A bounded store that is full of live records refuses new work
 * ({@link StoreFullError}) rather than drop one.
 */
export interface LedgerStore {
  /**
   * Atomically takes the lease on `key` for `leaseMs`:
   * - a closed record that has not expired: `closed`, with it (no lease is taken);
   * - a live lease held by anyone: `busy`, with the record when there is one;
   * - no record: the lease, and `initial` written as the record (when given; else the key holds
   *   only the lease until {@link LedgerStore.write});
   * - an open record whose lease is free or expired (its holder finished a step, or died): the
   *   lease, with the record as its last holder left it.
   * May reject with {@link StoreFullError} when taking it would need room the store lacks.
   */
  acquire(key: string, leaseMs: number, initial?: RecordWrite): Promise<LeaseResult>;
  /**
   * Replaces the record while `token` holds the lease (a live one, or an expired one nobody took
   * over); answers false and changes nothing otherwise. `release` drops the lease with the
   * write; else the lease keeps its expiry. A closed write ends the record's open life: it is
   * kept `keepMs` and then forgotten.
   */
  write(key: string, token: string, record: RecordWrite, release: boolean): Promise<boolean>;
  /** Drops the lease held by `token`; a key holding no record is forgotten with it. */
  release(key: string, token: string): Promise<void>;
  /**
   * Forgets the key (record and lease) when `token` holds the lease: the operation left nothing
   * to remember (never sent, or refused as invalid). Otherwise changes nothing.
   */
  remove(key: string, token: string): Promise<void>;
  /**
   * Renews the lease for `leaseMs` from now when `token` still holds it: live, or run out with
   * nobody having taken the key over (as {@link write} accepts it); answers whether it did. The
   * heartbeat of work slower than one lease (a merchant hook), and the last look before a
   * request leaves.
   */
  extend(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** The record under `key`, open or closed (not expired), or undefined. Takes no lease. */
  get(key: string): Promise<StoredRecord | undefined>;
  /**
   * Up to `limit` open records whose `dueAt` is at or before `now` and whose lease is free or
   * expired, earliest `dueAt` first: the settler's next work. Takes no lease (the settler
   * acquires each, and may lose the race to another instance: that is fine).
   */
  due(now: number, limit: number): Promise<StoredRecord[]>;
  /** Up to `limit` open records, leased or not, earliest `dueAt` first (a back office's list). */
  open(limit: number): Promise<StoredRecord[]>;
  /** Frees timers and connections the store owns (never a client the shop passed in). */
  close?(): Promise<void>;
  /**
   * True for a store no other process reads or writes (memoryStore): the pipeline then skips
   * what guards only against other instances (claiming the TIDs the shop issues, which are
   * unique within a process already). Default false: the store may be shared.
   */
  readonly local?: boolean;
}

/**
 * A {@link LedgerStore} whose `close()` is always there: what memoryStore, sqliteStore and
 * redisStore return, so the shop can `await store.close()` after `nicepay.close()` without a
 * check. `close` stays optional on LedgerStore itself: a custom store holding nothing to free
 * need not have one.
 */
export interface ClosableLedgerStore extends LedgerStore {
  /** Frees timers and connections the store owns (never a client the shop passed in). */
  close(): Promise<void>;
}

/** One record as a store keeps it. */
export interface StoredRecord {
  key: string;
  /** The record's text, exactly as written. */
  value: string;
  /** True until a closed write: the record still needs work. */
  open: boolean;
  /** When an open record is next due (the caller's clock, ms); 0 for a closed one. */
  dueAt: number;
}

/**
 * A record to write. Its `value` (the record's text) may be made when it is first read (a
 * getter, made once): a store reads it when it stores the record, as every store sending or
 * saving it does; memoryStore keeps the write and reads it only when the record is read back.
 * Read `write.value` itself: a copy of the write (a spread, JSON.stringify) does not carry it.
 */
export type RecordWrite =
  | {
      value: string;
      open: true;
      /** When the settler should next look at it (the caller's clock, ms since the epoch). */
      dueAt: number;
    }
  | {
      value: string;
      open: false;
      /** How long the closed record answers repeats (the store's clock). */
      keepMs: number;
      /**
       * A record whose loss costs no money (a decline: sending its operation again charges at
       * most once): a full store may drop it before `keepMs` has passed. Default false.
       */
      evictable?: boolean;
    };

/** What {@link LedgerStore.acquire} found. */
export type LeaseResult =
  | { state: 'acquired'; token: string; record: StoredRecord | undefined }
  | { state: 'busy'; record: StoredRecord | undefined }
  | { state: 'closed'; record: StoredRecord };

/**
 * Thrown (rejected) by a bounded store that has no room for a new key: every record it holds is
 * live. Nothing was written; the pipeline turns it into 503 NICEPAY_STORE_FULL.
 */
export class StoreFullError extends Error {
  override name = 'StoreFullError';
  constructor(message: string) {
    super(message);
    // Thrown inside the store's call, whose frames hold the operation being taken (a key-in's card).
    withStackText(this);
  }
}
