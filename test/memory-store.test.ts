import { expect } from 'chai';
import fc from 'fast-check';
import { memoryStore, NicepayConfigError } from '../src/index.js';
import { ENTRY_OVERHEAD_BYTES } from '../src/store/memory-store.js';
import type { AcquireResult, IdempotencyStore } from '../src/store/types.js';
import { runOnce } from '../src/store/run-once.js';

describe('memoryStore', () => {
  it('locks, caches, and lets a waiter take over after the lock expires', async () => {
    let now = 1_000;
    const store = memoryStore({ now: () => now });
    const a = await store.acquire('k', 100);
    expect(a.state).to.equal('acquired');
    expect((await store.acquire('k', 100)).state).to.equal('busy');
    now += 101; // the holder crashed; its lock expired
    const b = await store.acquire('k', 100);
    expect(b.state).to.equal('acquired');
    if (a.state !== 'acquired' || b.state !== 'acquired') throw new Error('narrowing');
    await store.complete('k', a.token, 'late', 1_000); // the old holder may not overwrite
    expect((await store.acquire('k', 100)).state).to.equal('busy');
    await store.complete('k', b.token, 'value', 1_000);
    expect(await store.acquire('k', 100)).to.deep.equal({ state: 'done', value: 'value' });
    now += 1_001;
    expect((await store.acquire('k', 100)).state).to.equal('acquired');
  });

  it('release frees the key only for the holder', async () => {
    const store = memoryStore();
    const a = await store.acquire('k', 10_000);
    if (a.state !== 'acquired') throw new Error('narrowing');
    await store.release('k', 'someone-else');
    expect((await store.acquire('k', 10_000)).state).to.equal('busy');
    await store.release('k', a.token);
    expect((await store.acquire('k', 10_000)).state).to.equal('acquired');
  });

  it('runOnce runs the work once for 100 concurrent callers', async () => {
    const store = memoryStore();
    let runs = 0;
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        runOnce(store, 'job', { lockTtlMs: 5_000, resultTtlMs: 5_000, pollMs: 1 }, async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 20));
          return 'done';
        }),
      ),
    );
    expect(runs).to.equal(1);
    expect(results.every((r) => r?.value === 'done')).to.equal(true);
    expect(results.filter((r) => r?.fresh)).to.have.length(1);
  });

  describe('extend (the heartbeat of a slow hook)', () => {
    it('keeps a held lock alive past its first TTL, for as long as the holder renews it', async () => {
      let now = 1_000;
      const store = memoryStore({ now: () => now });
      const a = await store.acquire('k', 100);
      if (a.state !== 'acquired') throw new Error('narrowing');
      for (let beat = 0; beat < 5; beat++) {
        now += 90; // each beat comes before the lock would have run out
        expect(await store.extend?.('k', a.token, 100)).to.equal(true);
      }
      // 450 ms after a 100 ms lock, a duplicate still finds it held.
      expect((await store.acquire('k', 100)).state).to.equal('busy');
      now += 99;
      expect((await store.acquire('k', 100)).state).to.equal('busy');
      now += 1; // the last renewal's TTL ran out: a waiter may take over
      expect((await store.acquire('k', 100)).state).to.equal('acquired');
    });

    it('answers false, changing nothing, once the token no longer holds a live lock', async () => {
      let now = 0;
      const store = memoryStore({ now: () => now });
      expect(await store.extend?.('never', 't1', 100)).to.equal(false);

      const a = await store.acquire('k', 100);
      if (a.state !== 'acquired') throw new Error('narrowing');
      expect(await store.extend?.('k', 'someone-else', 10_000)).to.equal(false);
      now += 100; // expired, nobody took it yet: renewing would hide a takeover race
      expect(await store.extend?.('k', a.token, 10_000)).to.equal(false);
      const b = await store.acquire('k', 100); // taken over
      if (b.state !== 'acquired') throw new Error('narrowing');
      expect(await store.extend?.('k', a.token, 10_000)).to.equal(false);
      now += 100; // a.token's failed renewal did not extend b's lock
      const c = await store.acquire('k', 100);
      if (c.state !== 'acquired') throw new Error('narrowing');

      await store.complete('k', c.token, 'v', 1_000);
      expect(await store.extend?.('k', c.token, 10_000)).to.equal(false);
      expect(await store.acquire('k', 100)).to.deep.equal({ state: 'done', value: 'v' });

      const d = await store.acquire('r', 100);
      if (d.state !== 'acquired') throw new Error('narrowing');
      await store.release('r', d.token);
      expect(await store.extend?.('r', d.token, 10_000)).to.equal(false);
    });

    it('rejects a TTL that is not a positive number of milliseconds', async () => {
      const store = memoryStore();
      const a = await store.acquire('k', 100);
      if (a.state !== 'acquired') throw new Error('narrowing');
      for (const ttl of [0, -1, Number.NaN, Infinity]) {
        const err = await store.extend?.('k', a.token, ttl).then(() => undefined, (e: unknown) => e);
        expect(err, String(ttl)).to.be.instanceOf(RangeError);
      }
    });
  });

  it('bounds its size', async () => {
    const store = memoryStore({ maxEntries: 10 });
    for (let i = 0; i < 50; i++) {
      const a = await store.acquire(`k${i}`, 1_000);
      if (a.state === 'acquired') await store.complete(`k${i}`, a.token, 'v', 60_000);
    }
    // The newest survive; the oldest were dropped.
    expect((await store.acquire('k49', 1_000)).state).to.equal('done');
    expect((await store.acquire('k0', 1_000)).state).to.equal('acquired');
  });

  it('bounds its bytes as well as its entries: big results push out the oldest', async () => {
    const value = 'x'.repeat(1_000); // 2,000 bytes in memory
    const store = memoryStore({ maxBytes: 3 * (ENTRY_OVERHEAD_BYTES + 2 * (3 + 1_000)) });
    for (let i = 10; i < 20; i++) await completeNow(store, `k${i}`, value, 60_000);
    // Newest first: asking for a missing key takes a lock, which is an entry of its own.
    for (const i of [19, 18, 17]) expect((await store.acquire(`k${i}`, 1_000)).state, `k${i}`).to.equal('done');
    expect((await store.acquire('k16', 1_000)).state).to.equal('acquired');
  });

  it('refuses a result larger than maxBytes, leaving the lock held', async () => {
    const store = memoryStore({ maxBytes: 1_000 });
    const a = await store.acquire('k', 1_000);
    if (a.state !== 'acquired') throw new Error('narrowing');
    let thrown: unknown;
    await store.complete('k', a.token, 'x'.repeat(1_000), 1_000).catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(RangeError);
    expect((await store.acquire('k', 1_000)).state).to.equal('busy');
  });

  it('never evicts a live lock to make room', async () => {
    const store = memoryStore({ maxEntries: 2 });
    const locks = [await store.acquire('a', 10_000), await store.acquire('b', 10_000), await store.acquire('c', 10_000)];
    expect(locks.map((l) => l.state)).to.deep.equal(['acquired', 'acquired', 'acquired']);
    for (const k of ['a', 'b', 'c']) expect((await store.acquire(k, 10_000)).state).to.equal('busy');
  });

  it('a flood of fresh keys evicts expired entries before any other buyer\'s live result (issue 18 item 2)', async () => {
    let now = 0;
    const store = memoryStore({ now: () => now, maxEntries: 100 });
    // 30 buyers' results that live a day, then 60 newer entries that have expired by the flood
    // (so "oldest first" alone would evict the buyers).
    for (let i = 0; i < 30; i++) await completeNow(store, `buyer${i}`, `paid ${i}`, 86_400_000);
    for (let i = 0; i < 60; i++) await completeNow(store, `short${i}`, 'stale', 1_000);
    now = 5_000;
    // The flood: 70 fresh keys, each a lock then a (declined) result, as forged TxTids would.
    for (let i = 0; i < 70; i++) await completeNow(store, `flood${i}`, 'declined', 86_400_000);
    for (let i = 0; i < 30; i++) expect(await store.acquire(`buyer${i}`, 1_000)).to.deep.equal({ state: 'done', value: `paid ${i}` });
    // Only once nothing expired is left does a live result go, the oldest first (docs/reliability.md).
    await completeNow(store, 'flood70', 'declined', 86_400_000);
    expect((await store.acquire('buyer1', 1_000)).state).to.equal('done');
    expect((await store.acquire('buyer0', 1_000)).state).to.equal('acquired');
  });

  it('refuses bounds that are not positive integers, naming the option', () => {
    expect(() => memoryStore({ maxEntries: 0 })).to.throw(NicepayConfigError, /maxEntries/);
    expect(() => memoryStore({ maxBytes: 1.5 })).to.throw(NicepayConfigError, /maxBytes/);
  });

  it('answers every sequence of calls as a store that sweeps everything at each bound does', async () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'checkout:m:한글');
    const token = fc.oneof(fc.constant('held'), fc.constantFrom('t1', 't2', 't3', 'x'));
    // Few distinct durations, so that calls land exactly on an expiry instant now and then.
    const ttl = fc.constantFrom(10, 20, 30);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('acquire' as const), key, ttl }),
      fc.record({ kind: fc.constant('complete' as const), key, token, ttl, value: fc.string({ maxLength: 30, unit: 'binary' }) }),
      fc.record({ kind: fc.constant('release' as const), key, token }),
      fc.record({ kind: fc.constant('extend' as const), key, token, ttl }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(0, 5, 10, 20) }),
      fc.record({ kind: fc.constant('close' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 120 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 200, max: 800 }), async (ops, maxEntries, maxBytes) => {
        let now = 1_000;
        const clock = { now: () => now, maxEntries, maxBytes };
        const store = memoryStore(clock);
        const model = sweepingStore(clock);
        const held = new Map<string, string>(); // the last token each key was acquired with
        for (const o of ops) {
          if (o.kind === 'wait') now += o.ms;
          else if (o.kind === 'close') {
            await store.close?.();
            model.close();
          } else if (o.kind === 'acquire') {
            const got = await store.acquire(o.key, o.ttl);
            expect(got).to.deep.equal(model.acquire(o.key, o.ttl));
            if (got.state === 'acquired') held.set(o.key, got.token);
          } else {
            const t = o.token === 'held' ? (held.get(o.key) ?? 'none') : o.token;
            if (o.kind === 'extend') {
              expect(await store.extend?.(o.key, t, o.ttl)).to.equal(model.extend(o.key, t, o.ttl));
            } else if (o.kind === 'complete') {
              const failed = await store.complete(o.key, t, o.value, o.ttl).then(() => false, () => true);
              expect(failed).to.equal(model.complete(o.key, t, o.value, o.ttl));
            } else {
              await store.release(o.key, t);
              model.release(o.key, t);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** Acquires `key` and stores `value` at once (the work took no time). */
async function completeNow(store: IdempotencyStore, key: string, value: string, ttl: number): Promise<void> {
  const a = await store.acquire(key, 1_000);
  if (a.state !== 'acquired') throw new Error(`${key}: ${a.state}`);
  await store.complete(key, a.token, value, ttl);
}

/**
 * The reference: the same rules written the slow, obvious way: every time a bound is passed,
 * drop every expired entry, then the oldest entries without a live lock.
 */
function sweepingStore({ now, maxEntries, maxBytes }: { now: () => number; maxEntries: number; maxBytes: number }) {
  type Entry = { token?: string; value?: string; expires: number };
  const entries = new Map<string, Entry>();
  let issued = 0;
  const size = (k: string, e: Entry) => ENTRY_OVERHEAD_BYTES + 2 * (k.length + (e.token?.length ?? 0) + (e.value?.length ?? 0));
  const total = () => [...entries].reduce((n, [k, e]) => n + size(k, e), 0);
  const over = () => entries.size > maxEntries || total() > maxBytes;
  const set = (k: string, e: Entry) => {
    entries.delete(k);
    entries.set(k, e);
  };
  function evict(t: number, keep: string): void {
    if (!over()) return;
    for (const [k, e] of [...entries]) if (e.expires <= t) entries.delete(k);
    for (const [k, e] of [...entries]) if (over() && k !== keep && e.token === undefined) entries.delete(k);
  }
  return {
    acquire(key: string, ttl: number): AcquireResult {
      const t = now();
      const e = entries.get(key);
      if (e && e.expires > t) return e.value !== undefined ? { state: 'done', value: e.value } : { state: 'busy' };
      const token = `t${++issued}`;
      set(key, { token, expires: t + ttl });
      evict(t, key);
      return { state: 'acquired', token };
    },
    /** True when the store refuses the result (too big). */
    complete(key: string, token: string, value: string, ttl: number): boolean {
      const t = now();
      const e = entries.get(key);
      if (e?.token !== undefined && e.token !== token && e.expires > t) return false;
      if (size(key, { value, expires: 0 }) > maxBytes) return true;
      set(key, { value, expires: t + ttl });
      evict(t, key);
      return false;
    },
    release(key: string, token: string): void {
      if (entries.get(key)?.token === token) entries.delete(key);
    },
    /** Renews a live lock of `token` in place (its age for eviction unchanged). */
    extend(key: string, token: string, ttl: number): boolean {
      const t = now();
      const e = entries.get(key);
      if (e?.token !== token || e.expires <= t) return false;
      e.expires = t + ttl;
      return true;
    },
    close(): void {
      entries.clear();
    },
  };
}
