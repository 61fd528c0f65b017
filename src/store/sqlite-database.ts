/**
 * The SQLite connection sqliteStore works through, reduced to what better-sqlite3's `Database`
 * and node:sqlite's `DatabaseSync` (Node 22.5+) both have: `exec`, `prepare` and statements'
 * `run`/`get`/`all` with positional parameters. Neither package is imported here: a database
 * the shop passes in is told by its shape, so node:sqlite is never needed where it is missing.
 */
import { isObject } from '../util/is-object.js';

/**
 * A prepared statement of either driver. The store binds only strings, numbers and null to `?`
 * (both drivers refuse booleans and undefined); the parameters are typed `unknown` so that both
 * drivers' own statement types (better-sqlite3's overloads, node:sqlite's `StatementSync`) fit
 * as they are.
 */
export interface SqliteStatement {
  /** Runs it for its effect. */
  run(...params: unknown[]): unknown;
  /** The first row, or undefined. */
  get(...params: unknown[]): unknown;
  /** Every row. */
  all(...params: unknown[]): unknown[];
}

/**
 * An open SQLite connection: a better-sqlite3 `Database` (`new Database(file)`) or a node:sqlite
 * `DatabaseSync` (`new DatabaseSync(file)`, Node 22.5 and later).
 */
export interface SqliteDatabase {
  /** Runs one or more statements without results. */
  exec(sql: string): unknown;
  /** Compiles one statement. */
  prepare(sql: string): SqliteStatement;
  /** Closes the connection. */
  close(): unknown;
}

/**
 * Why `value` cannot serve as an open, writable SQLite connection, or undefined when it can.
 * better-sqlite3 says `open` and `readonly`; node:sqlite says `isOpen` (Node 22.15+).
 */
export function unusableDatabase(value: unknown): string | undefined {
  if (
    !isObject(value) ||
    typeof value.prepare !== 'function' ||
    typeof value.exec !== 'function' ||
    typeof value.close !== 'function'
  ) {
    return 'an open better-sqlite3 Database or node:sqlite DatabaseSync';
  }
  if (value.open === false || value.isOpen === false) return 'an open database (this one was closed)';
  if (value.readonly === true) return 'a writable database (this one was opened read-only)';
  return undefined;
}

/**
 * Runs `work` as one `BEGIN IMMEDIATE` transaction: the write lock is taken first (waiting up to
 * the connection's busy_timeout for another process to finish), so a read and the write that
 * depends on it are one atomic step across every process sharing the file. Rolled back when
 * `work` throws.
 */
export function immediate<T>(db: SqliteDatabase, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    // `work` threw, or COMMIT did (disk full, I/O): nothing of it may stay half-done.
    try {
      db.exec('ROLLBACK');
    } catch {
      // SQLite already ended the transaction itself.
    }
    throw err;
  }
}

/** A row's numeric column as a number (a driver may hand back a BigInt when asked to). */
export function num(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : Number(value ?? 0);
}

/**
 * Whether `err` is SQLite's "database is locked" (SQLITE_BUSY, any extended code): better-sqlite3
 * says it in `code`, node:sqlite in `errcode` (its primary code, 5, in the low byte).
 */
function isSqliteBusy(err: unknown): boolean {
  if (!isObject(err)) return false;
  if (typeof err.code === 'string' && err.code.startsWith('SQLITE_BUSY')) return true;
  return typeof err.errcode === 'number' && (err.errcode & 0xff) === 5;
}

/**
 * Runs `work`, and again while it fails with SQLITE_BUSY, for up to `timeoutMs` (then the last
 * failure is thrown). SQLite answers some statements busy at once instead of calling the busy
 * handler: switching a new file to WAL while another process creates it is one (the switch would
 * otherwise deadlock with that process's lock). `work` must be safe to run again. The waits
 * between tries block the thread, as SQLite's own busy handler does with these synchronous
 * drivers.
 */
export function retryWhileBusy<T>(work: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  let pause = 2;
  for (;;) {
    try {
      return work();
    } catch (err) {
      const left = deadline - Date.now();
      if (!isSqliteBusy(err) || left <= 0) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(pause, left));
      pause = Math.min(pause * 2, 50);
    }
  }
}
