import { NicepayConfigError } from '../errors/index.js';
import { ownCopy } from '../own-copy.js';
import {
  type ClosableLedgerStore,
  type LeaseResult,
  type RecordWrite,
  StoreFullError,
  type StoredRecord,
} from './types.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Clock for leases and closed records' expiry, injectable for tests. @default Date.now */
  now?: () => number;
  /**
   * Most keys kept. When a new key would pass it, expired records go first, then closed
   * records whose loss costs no money (declines), oldest first. Open records, leased keys and
   * closed records that guard money (an approval, a charged Moid) are never dropped: a store
   * full of them refuses the new key (503 NICEPAY_STORE_FULL) rather than forget one.
   * @default 100000
   */
  maxEntries?: number;
}

/** One key of the store. */
interface Entry {
  /** The key, as the store's own copy (ownCopy): never a view of a posted body. */
  key: string;
  /**
   * The record as written, or undefined while the key holds only a lease. Its `value` (the
   * text) is read only when the record is read back: a write's text may be made lazily.
   */
  write: RecordWrite | undefined;
  open: boolean;
  dueAt: number;
  /** A closed record's expiry (store clock). */
  expires: number;
  evictable: boolean;
  /** The lease's token, or '' when none. */
  lease: string;
  leaseExpires: number;
}

/**
 * The ledger in this process's memory: the zero-configuration default for development and
 * tests. A restart forgets everything it holds, every open record included; use sqliteStore
 * (one machine) or redisStore (a fleet) in production (docs/stores.md). Single-threaded
 * JavaScript makes each method atomic.
 */
export function memoryStore(options: MemoryStoreOptions = {}): ClosableLedgerStore {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0)
    throw new NicepayConfigError('memoryStore maxEntries', 'a positive integer');
  const entries = new Map<string, Entry>();
  /** The keys of open records, for due() and open(). */
  const openKeys = new Set<string>();
  let issued = 0;

  const leased = (e: Entry, t: number): boolean => e.lease !== '' && e.leaseExpires > t;
  const expired = (e: Entry, t: number): boolean => e.write !== undefined && !e.open && e.expires <= t;
  const holds = (e: Entry | undefined, token: string): e is Entry =>
    e !== undefined && e.lease !== '' && e.lease === token;

  /** The entry under `key`, after dropping it when it expired. */
  function live(key: string, t: number): Entry | undefined {
    const e = entries.get(key);
    if (e && expired(e, t)) {
      forget(key);
      return undefined;
    }
    return e;
  }

  function forget(key: string): void {
    entries.delete(key);
    openKeys.delete(key);
  }

  function stored(key: string, e: Entry): StoredRecord {
    return { key, value: e.write!.value, open: e.open, dueAt: e.open ? e.dueAt : 0 };
  }

  function apply(e: Entry, write: RecordWrite, t: number): void {
    e.write = write;
    e.open = write.open;
    if (write.open) {
      e.dueAt = write.dueAt;
      e.evictable = false;
      openKeys.add(e.key);
    } else {
      e.expires = t + write.keepMs;
      e.evictable = write.evictable === true;
      openKeys.delete(e.key);
    }
  }

  /** Makes room for one more key, or throws StoreFullError; drops only what costs no money. */
  function makeRoom(t: number): void {
    if (entries.size < maxEntries) return;
    for (const [key, e] of entries) if (expired(e, t) || (e.write === undefined && !leased(e, t))) forget(key);
    if (entries.size < maxEntries) return;
    for (const [key, e] of entries) {
      if (e.evictable && !leased(e, t)) forget(key);
      if (entries.size < maxEntries) return;
    }
    throw new StoreFullError(
      `memoryStore holds ${entries.size} live records (maxEntries ${maxEntries}); none can be dropped without losing money`,
    );
  }

  function listOpen(limit: number, pick: (e: Entry) => boolean): StoredRecord[] {
    const out: StoredRecord[] = [];
    for (const key of openKeys) {
      const e = entries.get(key)!;
      if (pick(e)) out.push(stored(key, e));
    }
    return out.sort((x, y) => x.dueAt - y.dueAt).slice(0, limit);
  }

  return {
    local: true,
    async acquire(key, leaseMs, initial) {
      const t = now();
      let e = live(key, t);
      if (e && e.write !== undefined && !e.open)
        return { state: 'closed', record: stored(key, e) } satisfies LeaseResult;
      if (e && leased(e, t)) return { state: 'busy', record: e.write === undefined ? undefined : stored(key, e) };
      const token = `m${++issued}`;
      if (!e) {
        makeRoom(t);
        e = {
          key: ownCopy(key),
          write: undefined,
          open: false,
          dueAt: 0,
          expires: 0,
          evictable: false,
          lease: token,
          leaseExpires: t + leaseMs,
        };
        entries.set(e.key, e);
        if (initial) apply(e, initial, t);
        return { state: 'acquired', token, record: undefined };
      }
      e.lease = token;
      e.leaseExpires = t + leaseMs;
      return { state: 'acquired', token, record: e.write === undefined ? undefined : stored(key, e) };
    },
    async write(key, token, write, release) {
      const t = now();
      const e = live(key, t);
      if (!holds(e, token)) return false;
      apply(e, write, t);
      if (release) e.lease = '';
      return true;
    },
    async release(key, token) {
      const e = entries.get(key);
      if (!holds(e, token)) return;
      if (e.write === undefined) forget(key);
      else e.lease = '';
    },
    async remove(key, token) {
      if (holds(entries.get(key), token)) forget(key);
    },
    async extend(key, token, leaseMs) {
      const t = now();
      const e = entries.get(key);
      if (!holds(e, token)) return false;
      e.leaseExpires = t + leaseMs;
      return true;
    },
    async get(key) {
      const e = live(key, now());
      return e && e.write !== undefined ? stored(key, e) : undefined;
    },
    async due(dueBy, limit) {
      const t = now();
      return listOpen(limit, (e) => e.dueAt <= dueBy && !leased(e, t));
    },
    async open(limit) {
      return listOpen(limit, () => true);
    },
    async close() {
      entries.clear();
      openKeys.clear();
    },
  };
}

export { StoreFullError };
