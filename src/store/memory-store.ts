import type { AcquireResult, IdempotencyStore } from './types.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for expiry, injectable for tests. @default Date.now */
  now?: () => number;
  /** Most entries kept; the oldest finished ones are dropped first. @default 100000 */
  maxEntries?: number;
}

/** One key's lock and result; every entry has all four fields, so they share one shape. */
interface Entry {
  token: string | undefined;
  lockExpires: number;
  value: string | undefined;
  valueExpires: number;
}

/**
 * An in-process {@link IdempotencyStore}: a Map with an in-flight lock and a result cache,
 * both with expiry. Single-threaded JavaScript makes each method atomic, and each answers
 * synchronously. For more than one instance use `redisStore` from `express-nicepay/redis`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new Map<string, Entry>();
  // A lock token only has to differ from every other token of this store: a counter will do.
  let issued = 0;

  function sweep(): void {
    if (entries.size <= maxEntries) return;
    const t = now();
    for (const [key, e] of entries) {
      if (entries.size <= maxEntries) break;
      const lockLive = e.token !== undefined && e.lockExpires > t;
      if (!lockLive && (e.value === undefined || e.valueExpires <= t || entries.size > maxEntries)) entries.delete(key);
    }
  }

  return {
    acquire(key: string, lockTtlMs: number): AcquireResult {
      const t = now();
      const e = entries.get(key);
      if (e?.value !== undefined && e.valueExpires > t) return { state: 'done', value: e.value };
      if (e?.token !== undefined && e.lockExpires > t) return { state: 'busy' };
      const token = `t${++issued}`;
      const entry: Entry = { token, lockExpires: t + lockTtlMs, value: undefined, valueExpires: 0 };
      entries.set(key, entry);
      sweep();
      return { state: 'acquired', token };
    },
    complete(key: string, token: string, value: string, resultTtlMs: number): void {
      const e = entries.get(key);
      if (e && e.token !== undefined && e.token !== token && e.lockExpires > now()) return;
      if (e === undefined) {
        entries.set(key, { token: undefined, lockExpires: 0, value, valueExpires: now() + resultTtlMs });
        return;
      }
      // The holder's own entry becomes the result: no second object per key.
      e.token = undefined;
      e.lockExpires = 0;
      e.value = value;
      e.valueExpires = now() + resultTtlMs;
    },
    release(key: string, token: string): void {
      const e = entries.get(key);
      if (e?.token === token) entries.delete(key);
    },
    close(): void {
      entries.clear();
    },
  };
}
