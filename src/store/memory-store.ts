import { NicepayConfigError } from '../errors/index.js';
import type { AcquireResult, IdempotencyStore } from './types.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for expiry, injectable for tests. @default Date.now */
  now?: () => number;
  /**
   * Most entries kept. Past it (or past `maxBytes`), expired entries go first, then the oldest
   * entries that hold no live lock (when a result is dropped early, a late duplicate of that
   * TID goes to the gateway again).
   * @default 100000
   */
  maxEntries?: number;
  /**
   * Most bytes kept, counted as the strings' in-memory size (2 bytes per UTF-16 code unit of
   * keys, tokens and results) plus {@link ENTRY_OVERHEAD_BYTES} per entry. Evicts as
   * `maxEntries` does. A single result larger than this is not kept (`complete` throws).
   * @default 134217728 (128 MiB)
   */
  maxBytes?: number;
}

/** What an entry costs beside its strings, for the `maxBytes` count (Map slot and object). */
export const ENTRY_OVERHEAD_BYTES = 96;

/** One key: a lock (token set) or a result (value set), never both. */
interface Entry {
  token: string | undefined;
  value: string | undefined;
  /** When the lock (or, with a value, the result) expires. */
  expires: number;
  bytes: number;
}

/**
 * An in-process {@link IdempotencyStore}: a Map from key to an in-flight lock or a result,
 * both with expiry, bounded by entries and by bytes. Single-threaded JavaScript makes each
 * method atomic. When a bound is passed, expired entries are dropped before any live one, so
 * a flood of fresh keys cannot push other buyers' live results out while expired ones remain
 * (issue 18 item 2); then the oldest entries without a live lock go.
 * For more than one instance use `redisStore` from `express-nicepay/redis`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const maxEntries = positiveInteger(options.maxEntries ?? 100_000, 'memoryStore maxEntries');
  const maxBytes = positiveInteger(options.maxBytes ?? 128 * 1024 * 1024, 'memoryStore maxBytes');
  const entries = new Map<string, Entry>();
  let bytes = 0;
  // No entry expires before this instant (a lower bound): until then a sweep for expired
  // entries would find none, so a flood at the bound does not rescan the whole Map each call.
  let nextExpiry = Infinity;
  // A lock token only has to differ from every other token of this store: a counter will do.
  let issued = 0;

  function put(key: string, token: string | undefined, value: string | undefined, expires: number): void {
    remove(key);
    const size = ENTRY_OVERHEAD_BYTES + 2 * (key.length + (token?.length ?? 0) + (value?.length ?? 0));
    // One literal of one shape for locks and results alike (a spread made a new shape per call).
    entries.set(key, { token, value, expires, bytes: size });
    bytes += size;
    nextExpiry = Math.min(nextExpiry, expires);
  }

  function remove(key: string): void {
    const e = entries.get(key);
    if (e === undefined) return;
    entries.delete(key);
    bytes -= e.bytes;
  }

  const over = (): boolean => entries.size > maxEntries || bytes > maxBytes;

  /** Brings the store back within its bounds, never dropping `keep` or a live lock. */
  function evict(t: number, keep: string): void {
    if (!over()) return;
    if (t >= nextExpiry) {
      nextExpiry = Infinity;
      for (const [key, e] of entries) {
        if (e.expires <= t) remove(key);
        else nextExpiry = Math.min(nextExpiry, e.expires);
      }
    }
    for (const [key, e] of entries) {
      if (!over()) return;
      if (key !== keep && e.token === undefined) remove(key);
    }
  }

  return {
    async acquire(key: string, lockTtlMs: number): Promise<AcquireResult> {
      const t = now();
      const e = entries.get(key);
      if (e !== undefined && e.expires > t) return e.value !== undefined ? { state: 'done', value: e.value } : { state: 'busy' };
      const token = `t${++issued}`;
      put(key, token, undefined, t + lockTtlMs);
      evict(t, key);
      return { state: 'acquired', token };
    },
    async complete(key: string, token: string, value: string, resultTtlMs: number): Promise<void> {
      const t = now();
      const e = entries.get(key);
      // Another holder took over after this one's lock expired: its result is not ours to set.
      if (e !== undefined && e.token !== undefined && e.token !== token && e.expires > t) return;
      if (ENTRY_OVERHEAD_BYTES + 2 * (key.length + value.length) > maxBytes) {
        // Thrown with the lock still held: the caller learns the result was not kept.
        throw new RangeError('memoryStore: the result is larger than maxBytes');
      }
      put(key, undefined, value, t + resultTtlMs);
      evict(t, key);
    },
    async release(key: string, token: string): Promise<void> {
      if (entries.get(key)?.token === token) remove(key);
    },
    async close(): Promise<void> {
      entries.clear();
      bytes = 0;
      nextExpiry = Infinity;
    },
  };
}

function positiveInteger(n: number, name: string): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new NicepayConfigError(name, 'a positive integer');
  return n;
}
