import { NicepayConfigError } from '../errors/index.js';
import { EntryTable } from './entry-table.js';
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
   * Most bytes kept, counted as 2 bytes per UTF-16 code unit of keys, tokens and results plus
   * {@link ENTRY_OVERHEAD_BYTES} per entry (an upper bound of what the entries hold: a result
   * that fits Latin-1, as a checkout record does, is kept at 1 byte per character). Evicts as
   * `maxEntries` does. A single result larger than this is not kept (`complete` throws).
   * @default 134217728 (128 MiB)
   */
  maxBytes?: number;
}

/** What an entry costs beside its strings, for the `maxBytes` count (its table slots). */
export const ENTRY_OVERHEAD_BYTES = 96;

/**
 * An in-process {@link IdempotencyStore}: per key an in-flight lock or a result, both with
 * expiry, bounded by entries and by bytes. Single-threaded JavaScript makes each method
 * atomic. When a bound is passed, expired entries are dropped before any live one, so a flood
 * of fresh keys cannot push other buyers' live results out while expired ones remain; then
 * the oldest entries without a live lock go.
 *
 * Keys and results live off the JavaScript heap, in an {@link EntryTable} (typed arrays and
 * 1 MiB Buffers): a Map of strings and entry objects made every kept approval a few objects
 * that each major GC marks, and a store holding a day of approvals cost ~4.5 % of checkout
 * throughput on the stub gateway (bench/RESULTS.md, "memoryStore off the heap").
 * For more than one instance use `redisStore` from `express-nicepay/redis`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const maxEntries = positiveInteger(options.maxEntries ?? 100_000, 'memoryStore maxEntries');
  const maxBytes = positiveInteger(options.maxBytes ?? 128 * 1024 * 1024, 'memoryStore maxBytes');
  const table = new EntryTable();
  /** Each entry's counted bytes, by entry id (see maxBytes). */
  const sizes: number[] = [];
  let bytes = 0;
  // No entry expires before this instant (a lower bound): until then a sweep for expired
  // entries would find none, so a flood at the bound does not rescan the whole table each call.
  let nextExpiry = Infinity;
  // A lock token only has to differ from every other token of this store: a counter will do.
  let issued = 0;
  const tokenText = (n: number): string => `t${n}`;

  /** When entry `id` (a lock or a result) expires. */
  const expiresOf = (id: number): number => (table.token[id] !== 0 ? table.lockExpires[id]! : table.valueExpires[id]!);

  /**
   * Makes `key` (whose entry id is `old`, or -1) the newest entry: a lock numbered `lock`, or
   * (lock 0) the result `value`.
   */
  function put(key: string, old: number, lock: number, value: string | undefined, expires: number): void {
    remove(old);
    const id = table.insert(key);
    if (value !== undefined) {
      try {
        table.setValue(id, value);
      } catch (err) {
        table.remove(id);
        throw err;
      }
    }
    table.token[id] = lock;
    if (lock !== 0) table.lockExpires[id] = expires;
    else table.valueExpires[id] = expires;
    const size = ENTRY_OVERHEAD_BYTES + 2 * (key.length + (lock !== 0 ? tokenText(lock).length : 0) + (value?.length ?? 0));
    sizes[id] = size;
    bytes += size;
    nextExpiry = Math.min(nextExpiry, expires);
  }

  function remove(id: number): void {
    if (id === -1) return;
    bytes -= sizes[id]!;
    table.remove(id);
  }

  const over = (): boolean => table.size > maxEntries || bytes > maxBytes;

  /** Brings the store back within its bounds, never dropping `keep` or a live lock. */
  function evict(t: number, keep: string): void {
    if (!over()) return;
    if (t >= nextExpiry) {
      nextExpiry = Infinity;
      for (let id = table.head; id !== -1; ) {
        const next = table.after(id);
        const expires = expiresOf(id);
        if (expires <= t) remove(id);
        else nextExpiry = Math.min(nextExpiry, expires);
        id = next;
      }
    }
    const keepId = table.find(keep);
    for (let id = table.head; id !== -1 && over(); ) {
      const next = table.after(id);
      if (id !== keepId && table.token[id] === 0) remove(id);
      id = next;
    }
  }

  return {
    async acquire(key: string, lockTtlMs: number): Promise<AcquireResult> {
      const t = now();
      const id = table.find(key);
      if (id !== -1 && expiresOf(id) > t) return table.token[id] === 0 ? { state: 'done', value: table.value(id) } : { state: 'busy' };
      const lock = ++issued;
      put(key, id, lock, undefined, t + lockTtlMs);
      evict(t, key);
      return { state: 'acquired', token: tokenText(lock) };
    },
    async complete(key: string, token: string, value: string, resultTtlMs: number): Promise<void> {
      const t = now();
      const id = table.find(key);
      // Another holder took over after this one's lock expired: its result is not ours to set.
      if (id !== -1 && table.token[id] !== 0 && tokenText(table.token[id]!) !== token && table.lockExpires[id]! > t) return;
      if (ENTRY_OVERHEAD_BYTES + 2 * (key.length + value.length) > maxBytes) {
        // Thrown with the lock still held: the caller learns the result was not kept.
        throw new RangeError('memoryStore: the result is larger than maxBytes');
      }
      if (id !== -1 && table.token[id] !== 0 && tokenText(table.token[id]!) === token) {
        // This holder's own lock becomes its result where it stands: no second key copy.
        table.setValue(id, value);
        table.token[id] = 0;
        table.valueExpires[id] = t + resultTtlMs;
        table.touch(id);
        const size = ENTRY_OVERHEAD_BYTES + 2 * (key.length + value.length);
        bytes += size - sizes[id]!;
        sizes[id] = size;
        nextExpiry = Math.min(nextExpiry, t + resultTtlMs);
      } else {
        put(key, id, 0, value, t + resultTtlMs);
      }
      evict(t, key);
    },
    async release(key: string, token: string): Promise<void> {
      const id = table.find(key);
      if (id !== -1 && table.token[id] !== 0 && tokenText(table.token[id]!) === token) remove(id);
    },
    async extend(key: string, token: string, lockTtlMs: number): Promise<boolean> {
      if (typeof lockTtlMs !== 'number' || !Number.isFinite(lockTtlMs) || lockTtlMs <= 0) {
        throw new RangeError('memoryStore: lockTtlMs must be a positive number of milliseconds');
      }
      const t = now();
      const id = table.find(key);
      // Only a live lock under this very token: an expired one may be taken by the next acquire.
      if (id === -1 || table.token[id] === 0 || tokenText(table.token[id]!) !== token || table.lockExpires[id]! <= t) return false;
      // A later expiry keeps nextExpiry a valid lower bound: no need to move it.
      table.lockExpires[id] = t + lockTtlMs;
      return true;
    },
    async close(): Promise<void> {
      table.clear();
      sizes.length = 0;
      bytes = 0;
      nextExpiry = Infinity;
    },
  };
}

function positiveInteger(n: number, name: string): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new NicepayConfigError(name, 'a positive integer');
  return n;
}
