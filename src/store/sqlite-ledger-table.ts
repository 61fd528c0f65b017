/**
 * sqliteStore's table: one row per key, its connection's settings, and the few statements the
 * store runs, compiled once. The store decides what a row becomes (src/store/sqlite-store.ts);
 * this file only reads and writes whole rows.
 */
import { NicepayConfigError } from '../errors/index.js';
import { num, retryWhileBusy, type SqliteDatabase, type SqliteStatement } from './sqlite-database.js';

/** One key's row, as the store reasons about it. */
export interface LedgerRow {
  /** The record's text; null while the key holds only a lease. */
  value: string | null;
  open: boolean;
  /** An open record's next due time (the caller's clock); 0 otherwise. */
  dueAt: number;
  /**
   * When a row that is not open may be forgotten (the store's clock): a closed record's expiry,
   * or for a key holding only a lease, a day after that lease (LEASE_ONLY_KEEP_MS). 0 when open.
   */
  forgetAt: number;
  /** The lease holder's token, or null when the lease is free. */
  lease: string | null;
  /** When that lease runs out (the store's clock). */
  leaseUntil: number;
}

/** A listed open record: key, text, due time. */
export interface OpenRow {
  key: string;
  value: string;
  dueAt: number;
}

/** The table's statements, bound to one connection. */
export interface LedgerTable {
  /** The key's row, expired or not, or undefined. */
  read(key: string): LedgerRow | undefined;
  /** Writes the key's whole row (inserting or replacing it). */
  put(key: string, row: LedgerRow): void;
  /** Deletes the key's row. */
  drop(key: string): void;
  /** The key's record unless it is absent, lease-only or expired at `now`. */
  record(key: string, now: number): { value: string; open: boolean; dueAt: number } | undefined;
  /** Open records due by `dueBy` whose lease is free at `now`, earliest first. */
  due(dueBy: number, now: number, limit: number): OpenRow[];
  /** Open records, earliest due first. */
  open(limit: number): OpenRow[];
  /** Deletes up to `limit` rows forgettable at `now`; answers how many. */
  sweep(now: number, limit: number): number;
}

/** Default table name. */
export const DEFAULT_TABLE = 'nicepay_ledger';

/** A table name the store accepts: an SQL identifier, not one of SQLite's own. */
export function validTableName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name) && !/^sqlite_/i.test(name);
}

const COLUMNS = ['key', 'value', 'open', 'due_at', 'forget_at', 'lease', 'lease_until'];

/**
 * Sets the connection up for the ledger and creates the table when absent:
 * - `busy_timeout`: a transaction waits this long for another process's write lock, then fails;
 * - WAL: readers never block the writer, nor the writer readers (an in-memory database stays
 *   in its own mode);
 * - `synchronous = FULL`: each commit is on disk before the method answers. In WAL mode NORMAL
 *   survives a crash of the process but may lose the last commits to a power cut or a kernel
 *   panic, and a lost ledger record is a payment the settler never looks at again: an fsync
 *   per write costs far less than that. A connection already at EXTRA keeps it.
 * @throws NicepayConfigError (`table`) when the table exists with other columns.
 */
export function openLedgerTable(db: SqliteDatabase, table: string, busyTimeoutMs: number): LedgerTable {
  // Processes opening a new file at once may be answered busy without waiting (retryWhileBusy):
  // every statement of the set-up may run again.
  retryWhileBusy(() => setUp(db, table, busyTimeoutMs), busyTimeoutMs);
  return compile(db, table);
}

/** The connection's settings, the table and its indexes, each created when absent. */
function setUp(db: SqliteDatabase, table: string, busyTimeoutMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  db.exec('PRAGMA journal_mode = WAL');
  // Set even when it reads FULL already: SQLite lowers a synchronous never set explicitly to
  // its WAL default (NORMAL) when the file is first written in WAL mode.
  if (num((db.prepare('PRAGMA synchronous').get() as { synchronous?: unknown } | undefined)?.synchronous) < 3)
    db.exec('PRAGMA synchronous = FULL');

  const t = `"${table}"`;
  db.exec(`CREATE TABLE IF NOT EXISTS ${t} (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT,
    open INTEGER NOT NULL,
    due_at INTEGER NOT NULL,
    forget_at INTEGER NOT NULL,
    lease TEXT,
    lease_until INTEGER NOT NULL
  ) WITHOUT ROWID`);
  const found = (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
  if (found.join() !== COLUMNS.join()) {
    throw new NicepayConfigError(
      'table',
      `a table of the ledger's own: "${table}" exists with other columns (${found.join(', ')})`,
    );
  }
  db.exec(`CREATE INDEX IF NOT EXISTS "${table}_due" ON ${t} (due_at) WHERE open = 1;
  CREATE INDEX IF NOT EXISTS "${table}_forget" ON ${t} (forget_at) WHERE open = 0;`);
}

/** The table's statements, compiled on `db`. */
function compile(db: SqliteDatabase, table: string): LedgerTable {
  const t = `"${table}"`;
  const st = (sql: string): SqliteStatement => db.prepare(sql);
  const read = st(`SELECT value, open, due_at, forget_at, lease, lease_until FROM ${t} WHERE key = ?`);
  const put = st(
    `INSERT OR REPLACE INTO ${t} (key, value, open, due_at, forget_at, lease, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const drop = st(`DELETE FROM ${t} WHERE key = ?`);
  const record = st(
    `SELECT value, open, due_at FROM ${t} WHERE key = ? AND value IS NOT NULL AND (open = 1 OR forget_at > ?)`,
  );
  // `open = 1` in each WHERE lets SQLite use the partial index on due_at.
  const due = st(
    `SELECT key, value, due_at FROM ${t} WHERE open = 1 AND due_at <= ? AND (lease IS NULL OR lease_until <= ?) ORDER BY due_at, key LIMIT ?`,
  );
  const open = st(`SELECT key, value, due_at FROM ${t} WHERE open = 1 ORDER BY due_at, key LIMIT ?`);
  const sweep = st(`DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t} WHERE open = 0 AND forget_at <= ? LIMIT ?)`);

  type Raw = Record<string, unknown>;
  const openRow = (r: Raw): OpenRow => ({ key: String(r.key), value: String(r.value), dueAt: num(r.due_at) });

  return {
    read(key) {
      const r = read.get(key) as Raw | undefined;
      if (!r) return undefined;
      return {
        value: r.value === null ? null : String(r.value),
        open: num(r.open) === 1,
        dueAt: num(r.due_at),
        forgetAt: num(r.forget_at),
        lease: r.lease === null ? null : String(r.lease),
        leaseUntil: num(r.lease_until),
      };
    },
    put(key, row) {
      put.run(key, row.value, row.open ? 1 : 0, row.dueAt, row.forgetAt, row.lease, row.leaseUntil);
    },
    drop(key) {
      drop.run(key);
    },
    record(key, now) {
      const r = record.get(key, now) as Raw | undefined;
      return r && { value: String(r.value), open: num(r.open) === 1, dueAt: num(r.due_at) };
    },
    due(dueBy, now, limit) {
      return (due.all(dueBy, now, limit) as Raw[]).map(openRow);
    },
    open(limit) {
      return (open.all(limit) as Raw[]).map(openRow);
    },
    sweep(now, limit) {
      const changes = (sweep.run(now, limit) as { changes?: unknown } | undefined)?.changes;
      return num(changes);
    },
  };
}
