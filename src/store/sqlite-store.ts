/**
 * `express-nicepay/sqlite`: the payment ledger in one SQLite file, for a shop whose processes
 * run on one machine.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { NicepayConfigError } from '../errors/index.js';
import {
  checkKey,
  checkLimit,
  checkRecordWrite,
  checkTime,
  checkToken,
  LEASE_ONLY_KEEP_MS,
  wholeMs,
} from './ledger-args.js';
import { immediate, type SqliteDatabase } from './sqlite-database.js';
import { DEFAULT_TABLE, openLedgerTable, type LedgerRow, type LedgerTable } from './sqlite-ledger-table.js';
import { assertSqliteInstalled, openSqliteFile } from './sqlite-module.js';
import { validateSqliteOptions, type SqliteStoreOptions } from './sqlite-options.js';
import type { ClosableLedgerStore, LeaseResult, LedgerStore, RecordWrite, StoredRecord } from './types.js';

export type { SqliteDatabase, SqliteStatement } from './sqlite-database.js';
export type {
  SqliteStoreCommonOptions,
  SqliteStoreDatabaseOptions,
  SqliteStoreFileOptions,
  SqliteStoreOptions,
} from './sqlite-options.js';

/** Rows of expired records one sweep deletes at most: a write is never held up for long. */
export const SWEEP_BATCH = 200;
/** How often (the store's clock) a write also sweeps expired records. */
export const SWEEP_EVERY_MS = 60_000;

const NAME = 'sqliteStore';

/** A row that is not open and whose time is up: it no longer exists. */
const forgotten = (row: LedgerRow, t: number): boolean => !row.open && row.forgetAt <= t;
const leased = (row: LedgerRow, t: number): boolean => row.lease !== null && row.leaseUntil > t;
const stored = (key: string, row: { value: string | null; open: boolean; dueAt: number }): StoredRecord => ({
  key,
  value: row.value!,
  open: row.open,
  dueAt: row.open ? row.dueAt : 0,
});

/** `row` with `write` applied at `t` (lease fields unchanged). */
function applied(row: LedgerRow, write: RecordWrite, t: number): LedgerRow {
  return write.open
    ? { ...row, value: write.value, open: true, dueAt: write.dueAt, forgetAt: 0 }
    : { ...row, value: write.value, open: false, dueAt: 0, forgetAt: t + wholeMs(NAME, 'keepMs', write.keepMs) };
}

/**
 * A {@link LedgerStore} in one SQLite file, for the processes of one machine: it survives
 * restarts, and every method is one `BEGIN IMMEDIATE` transaction, so it is atomic across all
 * processes sharing the file (WAL mode; each commit synced to disk, `synchronous = FULL`).
 * Open records never expire. Closed ones are forgotten once their `keepMs` has passed: never
 * answered after it (lazily, on read), and deleted by a sweep that a write runs once a minute,
 * {@link SWEEP_BATCH} rows at a time, again at the next write while a sweep finds a full batch
 * (no timer: nothing keeps the process alive).
 *
 * @throws NicepayConfigError naming the option, for bad options, and (option `path`) when the
 *   optional `better-sqlite3` package is not installed: at creation, with the install hint.
 */
export function sqliteStore(options: SqliteStoreOptions): ClosableLedgerStore {
  validateSqliteOptions(options);
  const table = options.table ?? DEFAULT_TABLE;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const now = options.now ?? Date.now;
  let closed = false;
  let lastSweep = Number.NEGATIVE_INFINITY;
  let ready: Promise<{ db: SqliteDatabase; ledger: LedgerTable }>;
  let owned: Promise<SqliteDatabase> | undefined;

  if (options.database !== undefined) {
    const db = options.database;
    let ledger: LedgerTable;
    try {
      ledger = openLedgerTable(db, table, busyTimeoutMs);
    } catch (err) {
      if (err instanceof NicepayConfigError) throw err;
      throw new NicepayConfigError('database', 'a database where the ledger table can be created and written', err);
    }
    ready = Promise.resolve({ db, ledger });
  } else {
    assertSqliteInstalled();
    const path = options.path;
    owned = openSqliteFile(path, busyTimeoutMs);
    ready = owned.then(
      (db) => {
        try {
          return { db, ledger: openLedgerTable(db, table, busyTimeoutMs) };
        } catch (err) {
          db.close();
          if (err instanceof NicepayConfigError) throw err;
          throw new Error(`${NAME}: could not set up the ledger in ${path}`, { cause: err });
        }
      },
      (cause: unknown) => {
        throw new Error(`${NAME}: could not open ${path}`, { cause });
      },
    );
    // Failures surface through the methods that wait on `ready`, never as an unhandled rejection.
    ready.catch(() => {});
  }

  /**
   * Runs `work` once the table is ready: as one transaction, or (`write` false, for a single
   * SELECT) as it is. `t` is read once the write lock is held: waiting for another process
   * must not make a lease look younger than it is.
   */
  async function run<T>(what: string, work: (ledger: LedgerTable, t: number) => T, write = true): Promise<T> {
    if (closed) throw new Error(`${NAME}: ${what} after close()`);
    const { db, ledger } = await ready;
    if (closed) throw new Error(`${NAME}: ${what} after close()`);
    let t = 0;
    const stamp = (): number => {
      t = now();
      return t;
    };
    try {
      const result = write ? immediate(db, () => work(ledger, stamp())) : work(ledger, stamp());
      if (write && t - lastSweep >= SWEEP_EVERY_MS) sweep(db, ledger, t);
      return result;
    } catch (err) {
      throw new Error(`${NAME}: ${what} failed`, { cause: err });
    }
  }

  /**
   * Deletes up to SWEEP_BATCH forgotten rows, after the write that called it committed. Best
   * effort: a sweep that finds the file busy is simply the next write's to do.
   */
  function sweep(db: SqliteDatabase, ledger: LedgerTable, t: number): void {
    lastSweep = t;
    try {
      // A full batch may have left more behind: the next write sweeps again, not a minute later,
      // so a ledger closing more than a batch a minute does not pile up forgotten rows.
      if (immediate(db, () => ledger.sweep(t, SWEEP_BATCH)) >= SWEEP_BATCH) lastSweep = Number.NEGATIVE_INFINITY;
    } catch {
      lastSweep = Number.NEGATIVE_INFINITY;
    }
  }

  /** The key's row, or undefined when it has none or its time is up. */
  const live = (ledger: LedgerTable, key: string, t: number): LedgerRow | undefined => {
    const row = ledger.read(key);
    return row && !forgotten(row, t) ? row : undefined;
  };

  return {
    async acquire(key, leaseMs, initial) {
      checkKey(NAME, key);
      const ms = wholeMs(NAME, 'leaseMs', leaseMs);
      if (initial !== undefined) checkRecordWrite(NAME, 'initial', initial);
      return run('acquire', (ledger, t): LeaseResult => {
        const row = live(ledger, key, t);
        if (row && row.value !== null && !row.open) return { state: 'closed', record: stored(key, row) };
        if (row && leased(row, t)) return { state: 'busy', record: row.value === null ? undefined : stored(key, row) };
        const token = randomUUID();
        const lease = { lease: token, leaseUntil: t + ms };
        if (row) {
          // A key holding only a lease is forgotten a day after it, unless a holder writes.
          ledger.put(key, {
            ...row,
            ...lease,
            forgetAt: row.value === null ? t + ms + LEASE_ONLY_KEEP_MS : row.forgetAt,
          });
          return { state: 'acquired', token, record: row.value === null ? undefined : stored(key, row) };
        }
        const fresh: LedgerRow = {
          value: null,
          open: false,
          dueAt: 0,
          forgetAt: t + ms + LEASE_ONLY_KEEP_MS,
          ...lease,
        };
        ledger.put(key, initial ? applied(fresh, initial, t) : fresh);
        return { state: 'acquired', token, record: undefined };
      });
    },

    async write(key, token, record, release) {
      checkKey(NAME, key);
      checkToken(NAME, token);
      checkRecordWrite(NAME, 'record', record);
      return run('write', (ledger, t) => {
        const row = live(ledger, key, t);
        if (!row || row.lease !== token) return false;
        const next = applied(row, record, t);
        ledger.put(key, release ? { ...next, lease: null, leaseUntil: 0 } : next);
        return true;
      });
    },

    async release(key, token) {
      checkKey(NAME, key);
      checkToken(NAME, token);
      await run('release', (ledger) => {
        const row = ledger.read(key);
        if (!row || row.lease !== token) return;
        if (row.value === null) ledger.drop(key);
        else ledger.put(key, { ...row, lease: null, leaseUntil: 0 });
      });
    },

    async remove(key, token) {
      checkKey(NAME, key);
      checkToken(NAME, token);
      await run('remove', (ledger) => {
        if (ledger.read(key)?.lease === token) ledger.drop(key);
      });
    },

    async extend(key, token, leaseMs) {
      checkKey(NAME, key);
      checkToken(NAME, token);
      const ms = wholeMs(NAME, 'leaseMs', leaseMs);
      return run('extend', (ledger, t) => {
        const row = live(ledger, key, t);
        if (!row || row.lease !== token) return false;
        ledger.put(key, {
          ...row,
          leaseUntil: t + ms,
          forgetAt: row.value === null ? t + ms + LEASE_ONLY_KEEP_MS : row.forgetAt,
        });
        return true;
      });
    },

    async get(key) {
      checkKey(NAME, key);
      return run(
        'get',
        (ledger, t) => {
          const row = ledger.record(key, t);
          return row && stored(key, row);
        },
        false,
      );
    },

    async due(dueBy, limit) {
      checkTime(NAME, 'now', dueBy);
      checkLimit(NAME, limit);
      return run(
        'due',
        (ledger, t) => ledger.due(dueBy, t, limit).map((r) => stored(r.key, { ...r, open: true })),
        false,
      );
    },

    async open(limit) {
      checkLimit(NAME, limit);
      return run('open', (ledger) => ledger.open(limit).map((r) => stored(r.key, { ...r, open: true })), false);
    },

    async close() {
      if (closed) return;
      closed = true;
      // A database passed in stays the application's; a file the store opened is closed.
      if (owned)
        await owned.then(
          (db) => db.close(),
          () => {},
        );
    },
  };
}
