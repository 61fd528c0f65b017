import { EntryTable } from './entry-table.js';
import type { AcquireResult, IdempotencyStore } from './types.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for expiry, injectable for tests. @default Date.now */
  now?: () => number;
  /**
   * Most entries kept: past it, the oldest entries that hold no live lock are dropped first
   * (when a result is dropped early, a late duplicate of that TID goes to the gateway again).
   * @default 100000
   */
  maxEntries?: number;
}

/**
 * An in-process {@link IdempotencyStore}: an in-flight lock and a result cache per key, both
 * with expiry. Single-threaded JavaScript makes each method atomic, and each answers
 * synchronously. Keys and results are kept as bytes in 1 MiB Buffers, outside the JavaScript
 * heap (see EntryTable), so a store holding 100,000 approvals adds no work to garbage
 * collection, and no call copies more than one Buffer's worth.
 * For more than one instance use `redisStore` from `express-nicepay/redis`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const table = new EntryTable();
  // A lock token only has to differ from every other token of this store: a counter will do.
  let issued = 0;

  /** The token text of lock number `n`, as acquire() hands it out. */
  const tokenText = (n: number): string => `t${n}`;

  /** True when `id` holds a lock that has not expired. */
  function locked(id: number, t: number): boolean {
    return table.token[id] !== 0 && table.lockExpires[id]! > t;
  }

  /** Drops the oldest entries that hold no live lock until at most maxEntries remain. */
  function sweep(): void {
    if (table.size <= maxEntries) return;
    const t = now();
    for (let id = table.head; id !== -1 && table.size > maxEntries; ) {
      const next = table.after(id);
      if (!locked(id, t)) table.remove(id);
      id = next;
    }
  }

  return {
    acquire(key: string, lockTtlMs: number): AcquireResult {
      const t = now();
      let id = table.find(key);
      if (id !== -1) {
        if (table.hasValue(id) && table.valueExpires[id]! > t) return { state: 'done', value: table.value(id) };
        if (locked(id, t)) return { state: 'busy' };
        table.clearValue(id);
      } else {
        id = table.insert(key);
      }
      const n = ++issued;
      table.token[id] = n;
      table.lockExpires[id] = t + lockTtlMs;
      sweep();
      return { state: 'acquired', token: tokenText(n) };
    },
    complete(key: string, token: string, value: string, resultTtlMs: number): void {
      let id = table.find(key);
      if (id !== -1 && locked(id, now()) && tokenText(table.token[id]!) !== token) return;
      if (id === -1) id = table.insert(key);
      // The holder's own entry becomes the result. The value goes in first: if it cannot be
      // kept (the store is full), this throws with the lock still held.
      table.setValue(id, value);
      table.token[id] = 0;
      table.lockExpires[id] = 0;
      table.valueExpires[id] = now() + resultTtlMs;
    },
    release(key: string, token: string): void {
      const id = table.find(key);
      if (id !== -1 && table.token[id] !== 0 && tokenText(table.token[id]!) === token) table.remove(id);
    },
    close(): void {
      table.clear();
    },
  };
}
