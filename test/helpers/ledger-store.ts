import { expect } from 'chai';
import { createNicepay, type Nicepay } from '../../src/index.js';
import type { LedgerRecord } from '../../src/pipeline/ledger-record.js';
import { LEASE_MS } from '../../src/pipeline/lease.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { LedgerStore } from '../../src/store/types.js';
import { MERCHANT_KEY, MID } from './shop.js';

/**
 * A memoryStore whose writes fail on demand, and whose lease clock the test moves: a store node
 * that goes down between two steps of a money operation (the record written before the
 * request, and the next state after the gateway answered), then comes back.
 */
export interface FlakyStore {
  /** The store to give createNicepay. */
  store: LedgerStore;
  /** The records as the store holds them, read without a lease. */
  record(key: string): Promise<LedgerRecord | undefined>;
  /** Moves the store's clock on: a lease its dead holder no longer renews expires after 30 s. */
  advance(ms: number): void;
  /** Makes writes succeed again. */
  recover(): void;
}

/**
 * Wraps a fresh memoryStore so that every write of a record for which `fails` is true rejects
 * (as a store that lost its connection), until {@link FlakyStore.recover}. The record written
 * with the first acquire of a key is not a write: it always succeeds.
 */
export function flakyStore(fails: (next: LedgerRecord) => boolean): FlakyStore {
  let skew = 0;
  let down = true;
  const inner = memoryStore({ now: () => Date.now() + skew });
  const store: LedgerStore = {
    acquire: (key, leaseMs, initial) => inner.acquire(key, leaseMs, initial),
    write(key, token, write, release) {
      if (down && fails(JSON.parse(write.value) as LedgerRecord)) return Promise.reject(new Error('write lost'));
      return inner.write(key, token, write, release);
    },
    release: (key, token) => inner.release(key, token),
    remove: (key, token) => inner.remove(key, token),
    extend: (key, token, leaseMs) => inner.extend(key, token, leaseMs),
    get: (key) => inner.get(key),
    due: (now, limit) => inner.due(now, limit),
    open: (limit) => inner.open(limit),
    close: () => inner.close!(),
  };
  return {
    store,
    async record(key) {
      const stored = await inner.get(key);
      return stored && (JSON.parse(stored.value) as LedgerRecord);
    },
    advance(ms) {
      skew += ms;
    },
    recover() {
      down = false;
    },
  };
}

/** Reads the ledger record under `key` (a test's own store); fails the test when there is none. */
export async function ledgerRecord(store: LedgerStore, key: string): Promise<LedgerRecord> {
  const stored = await store.get(key);
  expect(stored, `a ledger record under ${key}`).to.not.equal(undefined);
  return JSON.parse(stored!.value) as LedgerRecord;
}

/** A store whose first new record under a prefix has its holder paused past its lease. */
export interface PausingStore {
  store: LedgerStore;
  /** True once the holder paused. */
  paused(): boolean;
  /** The store's clock, which the pause moved on: give it to the clients that share the store. */
  clock(): Date;
}

/**
 * A memoryStore shared by the processes of a test: the holder of the first new record under
 * `prefix` "pauses" (the store's clock runs on past the lease), and `meanwhile` runs, the other
 * processes' work, before that holder goes on. It pauses right after writing the record; `at`
 * `'confirm'`, right after its last renewal before the request leaves (so it sends after the
 * pause); `at` `'commit'`, with the gateway's answer in hand, just before writing `committed`. `local: false` makes it a store other processes could reach (as sqliteStore or
 * redisStore is).
 */
export function pausingStore(
  prefix: string,
  meanwhile: () => Promise<unknown> = async () => undefined,
  local = true,
  at: 'write' | 'confirm' | 'commit' = 'write',
): PausingStore {
  let skew = 0;
  let paused = false;
  const inner = memoryStore({ now: () => Date.now() + skew });
  const pause = async (): Promise<void> => {
    paused = true;
    skew += LEASE_MS + 1_000;
    await meanwhile();
  };
  const store: LedgerStore = {
    ...inner,
    local,
    async acquire(key, leaseMs, initial) {
      const got = await inner.acquire(key, leaseMs, initial);
      if (at === 'write' && !paused && initial && key.startsWith(prefix) && got.state === 'acquired') await pause();
      return got;
    },
    async write(key, token, write, release) {
      if (at === 'commit' && !paused && key.startsWith(prefix) && write.value.includes('"state":"committed"'))
        await pause();
      return inner.write(key, token, write, release);
    },
    async extend(key, token, leaseMs) {
      const held = await inner.extend(key, token, leaseMs);
      if (at === 'confirm' && !paused && held && key.startsWith(prefix)) await pause();
      return held;
    },
  };
  return { store, paused: () => paused, clock: () => new Date(Date.now() + skew) };
}

/**
 * Another process of the shop on the same store, with no settler of its own (the test runs its
 * settle()): the one a paused holder's key is taken over by.
 */
export function otherProcess(baseUrl: string, store: LedgerStore, clock: () => Date): Nicepay {
  return createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl, store, settle: false, clock });
}
