/**
 * The ledger store of the commands that work on the shop's payment ledger (`settle`,
 * `unsettled`), from the environment: the shop's sqliteStore file or its Redis. There is no
 * default: a memory store of the CLI's own would be empty, so it would settle nothing and
 * report everything fine.
 */
import type { LedgerStore } from '../store/types.js';
import { renameConfigError } from './env.js';
import { CliConfigError } from './exit-codes.js';

/** The store variables, with what each holds (shown in --help). */
export const STORE_ENV_HELP = `Ledger store (exactly one; the store the shop runs on):
  NICEPAY_SQLITE_PATH   the shop's sqliteStore file (needs better-sqlite3)
  NICEPAY_SQLITE_TABLE  its table, when the shop names one (default nicepay_ledger)
  NICEPAY_REDIS_URL     the shop's Redis, redis:// or rediss:// (needs redis; never printed)
  NICEPAY_REDIS_PREFIX  its key prefix, when the shop sets one (default nicepay:)`;

/** Which store the environment names, before anything is opened. */
export type StoreChoice =
  | { kind: 'sqlite'; path: string; table?: string }
  | { kind: 'redis'; url: string; prefix?: string };

/** The environment variable behind each store option (a refusal names the variable). */
const STORE_OPTION_ENV: Readonly<Record<StoreChoice['kind'], Readonly<Record<string, string>>>> = {
  sqlite: { path: 'NICEPAY_SQLITE_PATH', database: 'NICEPAY_SQLITE_PATH', table: 'NICEPAY_SQLITE_TABLE' },
  redis: { url: 'NICEPAY_REDIS_URL', client: 'NICEPAY_REDIS_URL', prefix: 'NICEPAY_REDIS_PREFIX' },
};

/**
 * The store the environment names, or the problem with it as one phrase (none named, or both),
 * for the command's single configuration error.
 */
export function chooseStore(env: NodeJS.ProcessEnv): StoreChoice | { problem: string } {
  const path = env['NICEPAY_SQLITE_PATH'];
  const url = env['NICEPAY_REDIS_URL'];
  if (path && url)
    return { problem: 'both NICEPAY_SQLITE_PATH and NICEPAY_REDIS_URL are set: name the one store the shop runs on' };
  if (path)
    return { kind: 'sqlite', path, ...(env['NICEPAY_SQLITE_TABLE'] ? { table: env['NICEPAY_SQLITE_TABLE'] } : {}) };
  if (url)
    return { kind: 'redis', url, ...(env['NICEPAY_REDIS_PREFIX'] ? { prefix: env['NICEPAY_REDIS_PREFIX'] } : {}) };
  return {
    problem:
      "no ledger store: set NICEPAY_SQLITE_PATH (the shop's sqliteStore file) or NICEPAY_REDIS_URL (its redisStore); a memory store of the CLI's own would have nothing to settle",
  };
}

/** sqliteStore's documented default table (docs/stores.md), the one a shop that names none writes. */
const SQLITE_DEFAULT_TABLE = 'nicepay_ledger';

/** An open store and how to close everything opened for it. */
export interface OpenedStore {
  store: LedgerStore;
  close(): Promise<void>;
}

/**
 * Opens the chosen store through its public module (`express-nicepay/sqlite` or `/redis`, as a
 * shop imports it), loaded only here so the other commands load neither; a refused option
 * becomes a CliConfigError naming its variable (never the Redis URL itself, which may hold a
 * password).
 */
export async function openStore(choice: StoreChoice): Promise<OpenedStore> {
  try {
    if (choice.kind === 'sqlite') return await openSqlite(choice.path, choice.table ?? SQLITE_DEFAULT_TABLE);
    const { redisStore } = await import('../store/redis-store.js');
    const store = redisStore({ url: choice.url, ...(choice.prefix ? { prefix: choice.prefix } : {}) });
    return { store, close: () => store.close() };
  } catch (err) {
    throw renameConfigError(err, (field) => STORE_OPTION_ENV[choice.kind][field]);
  }
}

/**
 * The shop's ledger file, which must exist and hold the ledger's table: opened as sqliteStore
 * would create it, a mistyped path or table would be a new, empty ledger, and "nothing to
 * settle" would be reported for a shop whose open payments are elsewhere.
 */
async function openSqlite(path: string, table: string): Promise<OpenedStore> {
  let Database: typeof import('better-sqlite3');
  try {
    ({ default: Database } = await import('better-sqlite3'));
  } catch {
    throw new CliConfigError(
      'NICEPAY_SQLITE_PATH needs the optional peer dependency "better-sqlite3": npm install better-sqlite3',
    );
  }
  let db: import('better-sqlite3').Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch (err) {
    throw new CliConfigError(
      `NICEPAY_SQLITE_PATH is invalid: cannot open ${JSON.stringify(path)} (${(err as Error).message})`,
    );
  }
  try {
    const found = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (found === undefined) {
      throw new CliConfigError(
        `NICEPAY_SQLITE_PATH is invalid: ${JSON.stringify(path)} has no ledger table "${table}" (is it the file the shop's sqliteStore writes? set NICEPAY_SQLITE_TABLE when the shop names its table)`,
      );
    }
    const { sqliteStore } = await import('../store/sqlite-store.js');
    const store = sqliteStore({ database: db, table });
    return {
      store,
      close: async () => {
        await store.close();
        db.close();
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
