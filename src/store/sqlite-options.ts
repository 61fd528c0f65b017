/**
 * sqliteStore's options, and their check at creation: a bad option is refused with a
 * NicepayConfigError naming it before any file is opened.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { NicepayConfigError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';
import { unusableDatabase, type SqliteDatabase } from './sqlite-database.js';
import { validTableName } from './sqlite-ledger-table.js';

/** Options shared by both ways of giving sqliteStore its database. */
export interface SqliteStoreCommonOptions {
  /**
   * The ledger's table, created when absent: an SQL identifier (letters, digits, `_`). Give
   * each shop sharing one database file its own.
   * @default 'nicepay_ledger'
   */
  table?: string;
  /**
   * Longest wait, in milliseconds, for another process's write to finish before a method
   * fails (SQLite's `busy_timeout`, set on the connection), and for other processes setting up
   * the same new file when the store opens it. better-sqlite3 and node:sqlite are synchronous:
   * the wait blocks this process's event loop, so keep it short.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /** Clock for leases and closed records' expiry, injectable for tests. @default Date.now */
  now?: () => number;
}

/** Let the store open, and close, its own connection to a file. */
export interface SqliteStoreFileOptions extends SqliteStoreCommonOptions {
  /**
   * The database file, created when absent (its folder must exist). Every process of the shop
   * names the same file. Loads the optional peer dependency `better-sqlite3`.
   */
  path: string;
  database?: never;
}

/** Use a connection the application opened and will close itself. */
export interface SqliteStoreDatabaseOptions extends SqliteStoreCommonOptions {
  /**
   * An open connection: better-sqlite3 `new Database(file)`, or node:sqlite
   * `new DatabaseSync(file)` (Node 22.5 and later). The store sets its busy_timeout, WAL and
   * synchronous = FULL, and never closes it.
   */
  database: SqliteDatabase;
  path?: never;
}

/** Options of sqliteStore: either `path` or `database`, never both. */
export type SqliteStoreOptions = SqliteStoreFileOptions | SqliteStoreDatabaseOptions;

/** Throws a NicepayConfigError naming the first bad option of `options`. */
export function validateSqliteOptions(options: unknown): asserts options is SqliteStoreOptions {
  if (!isObject(options)) throw new NicepayConfigError('sqliteStore options', 'an object with `path` or `database`');
  const { path, database, table, busyTimeoutMs, now } = options;
  if (path !== undefined && database !== undefined)
    throw new NicepayConfigError('path', 'either `path` or `database`, not both');
  if (path === undefined && database === undefined)
    throw new NicepayConfigError('path', 'a database file, or pass an open `database`');
  if (database !== undefined) {
    const why = unusableDatabase(database);
    if (why !== undefined) throw new NicepayConfigError('database', why);
  }
  if (path !== undefined) {
    if (typeof path !== 'string' || path.trim() === '' || path.includes('\0'))
      throw new NicepayConfigError('path', 'a file path');
    if (path === ':memory:')
      throw new NicepayConfigError(
        'path',
        'a file (an in-memory ledger forgets every open payment on restart: use memoryStore for that)',
      );
    const folder = dirname(resolve(path));
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory())
      throw new NicepayConfigError('path', `a file in an existing folder (${folder} is not one)`);
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
      throw new NicepayConfigError('path', `a file (${path} is a folder)`);
  }
  if (table !== undefined && !validTableName(table)) {
    throw new NicepayConfigError(
      'table',
      'an SQL identifier of letters, digits and _ (at most 63, not starting with a digit or sqlite_)',
    );
  }
  if (
    busyTimeoutMs !== undefined &&
    (typeof busyTimeoutMs !== 'number' || !Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0)
  ) {
    throw new NicepayConfigError('busyTimeoutMs', 'a whole number of milliseconds, 0 or more');
  }
  if (now !== undefined && typeof now !== 'function')
    throw new NicepayConfigError('now', 'a function answering milliseconds');
}
