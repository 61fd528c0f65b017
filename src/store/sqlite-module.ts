import { createRequire } from 'node:module';
import { NicepayConfigError } from '../errors/index.js';
import type { SqliteDatabase } from './sqlite-database.js';

/**
 * Where the optional `better-sqlite3` package resolves from, by Node's own resolution from this
 * file (the package is CommonJS with a `main`); replaced only by tests (see below).
 */
let resolveSqlite: () => string = () => createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Fails at once, when `sqliteStore({ path })` is created, if the optional peer dependency
 * `better-sqlite3` is not installed: a shop learns it at start-up with the install hint, not
 * from a 503 on its first payment. Resolving is synchronous and loads nothing.
 */
export function assertSqliteInstalled(): void {
  try {
    resolveSqlite();
  } catch (cause) {
    throw new NicepayConfigError(
      'path',
      'needs the optional peer dependency "better-sqlite3": npm install better-sqlite3 (or pass an open `database`)',
      cause,
    );
  }
}

/** Opens `path` (created when absent) with better-sqlite3, loaded only now. */
export async function openSqliteFile(path: string, busyTimeoutMs: number): Promise<SqliteDatabase> {
  const { default: Database } = await import('better-sqlite3');
  return new Database(path, { timeout: busyTimeoutMs });
}

/**
 * Test seam: makes {@link assertSqliteInstalled} resolve with `resolver` instead, to simulate
 * a shop without the package. Returns the function that restores the real resolver.
 * @internal
 */
export function simulateSqliteResolver(resolver: () => string): () => void {
  const before = resolveSqlite;
  resolveSqlite = resolver;
  return () => {
    resolveSqlite = before;
  };
}
