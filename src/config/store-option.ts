import type { LedgerStore } from '../store/types.js';
import { memoryStore } from '../store/memory-store.js';
import { NicepayConfigError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';

/** What a ledger store must have (src/store/types.ts). */
const STORE_METHODS = ['acquire', 'write', 'release', 'remove', 'extend', 'get', 'due', 'open'] as const;

let warnedMemoryStore = false;

/**
 * Warns once per process, as a Node warning (filterable like any other), when a production
 * shop runs on the default memoryStore: a restart forgets every once-key and every record
 * settlement has not closed. express-session warns the same way about its MemoryStore.
 */
function warnMemoryStore(): void {
  if (warnedMemoryStore || process.env.NODE_ENV !== 'production') return;
  warnedMemoryStore = true;
  process.emitWarning(
    'express-nicepay is running on the default memoryStore under NODE_ENV=production: a restart forgets every payment it has not settled and every once-key (a Moid resubmitted after a restart is charged again). Pass store: sqliteStore() from express-nicepay/sqlite (one machine) or redisStore() from express-nicepay/redis (several instances).',
    { code: 'NICEPAY_MEMORY_STORE', detail: 'docs/stores.md' },
  );
}

/** The `store` option checked against the contract, or the default memoryStore (with its production warning). */
export function resolveStore(store: LedgerStore | undefined): LedgerStore {
  if (store === undefined) {
    warnMemoryStore();
    return memoryStore();
  }
  const missing = STORE_METHODS.find((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function');
  if (!isObject(store) || missing)
    throw new NicepayConfigError(
      'store',
      `a ledger store (memoryStore, sqliteStore or redisStore; ${missing ?? 'an object'} is missing)`,
    );
  return store;
}
