import { expect } from 'chai';
import fc from 'fast-check';
import { memoryStore } from '../src/index.js';
import type { AcquireResult, IdempotencyStore } from '../src/store/types.js';
import { runOnce } from '../src/store/run-once.js';

describe('memoryStore', () => {
  it('answers synchronously: nothing to await on the approval path', () => {
    const store = memoryStore();
    const got = store.acquire('k', 1_000);
    expect(got).to.not.be.instanceOf(Promise);
    if (!('state' in got) || got.state !== 'acquired') throw new Error('expected the lock');
    expect(store.complete('k', got.token, 'v', 1_000)).to.equal(undefined);
    expect(store.acquire('k', 1_000)).to.deep.equal({ state: 'done', value: 'v' });
  });

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

  it('answers every sequence of calls exactly as a plain Map-based store does', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'checkout:m:한글');
    const token = fc.oneof(fc.constant('held'), fc.constantFrom('t1', 't2', 't3', 'x'));
    // Few distinct durations, so that calls land exactly on an expiry instant now and then.
    const ttl = fc.constantFrom(10, 20, 30);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('acquire' as const), key, ttl }),
      fc.record({ kind: fc.constant('complete' as const), key, token, ttl, value: fc.string({ maxLength: 30, unit: 'binary' }) }),
      fc.record({ kind: fc.constant('release' as const), key, token }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(0, 5, 10, 20) }),
      fc.record({ kind: fc.constant('close' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), fc.integer({ min: 1, max: 6 }), (ops, maxEntries) => {
        let now = 1_000;
        const clock = { now: () => now, maxEntries };
        const store = memoryStore(clock);
        const model = mapStore(clock);
        const held = new Map<string, string>(); // the last token each key was acquired with
        for (const o of ops) {
          if (o.kind === 'wait') now += o.ms;
          else if (o.kind === 'close') {
            store.close?.();
            model.close?.();
          }
          else if (o.kind === 'acquire') {
            const got = store.acquire(o.key, o.ttl);
            expect(got).to.deep.equal(model.acquire(o.key, o.ttl));
            if ((got as AcquireResult).state === 'acquired') held.set(o.key, (got as { token: string }).token);
          } else {
            const t = o.token === 'held' ? (held.get(o.key) ?? 'none') : o.token;
            if (o.kind === 'complete') {
              store.complete(o.key, t, o.value, o.ttl);
              model.complete(o.key, t, o.value, o.ttl);
            } else {
              store.release(o.key, t);
              model.release(o.key, t);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** The reference: memoryStore as it was, a Map of entry objects (insertion order for eviction). */
function mapStore({ now, maxEntries }: { now: () => number; maxEntries: number }): IdempotencyStore & { acquire(key: string, ttl: number): AcquireResult } {
  type Entry = { token?: string; lockExpires: number; value?: string; valueExpires: number };
  const entries = new Map<string, Entry>();
  let issued = 0;
  const live = (e: Entry | undefined, t: number) => e?.token !== undefined && e.lockExpires > t;
  return {
    acquire(key, lockTtlMs) {
      const t = now();
      const e = entries.get(key);
      if (e?.value !== undefined && e.valueExpires > t) return { state: 'done', value: e.value };
      if (live(e, t)) return { state: 'busy' };
      const token = `t${++issued}`;
      entries.set(key, { token, lockExpires: t + lockTtlMs, valueExpires: 0 });
      for (const [k, x] of entries) {
        if (entries.size <= maxEntries) break;
        if (!live(x, t)) entries.delete(k);
      }
      return { state: 'acquired', token };
    },
    complete(key, token, value, resultTtlMs) {
      const e = entries.get(key);
      if (live(e, now()) && e!.token !== token) return;
      entries.set(key, { lockExpires: 0, value, valueExpires: now() + resultTtlMs });
    },
    release(key, token) {
      if (entries.get(key)?.token === token) entries.delete(key);
    },
    close() {
      entries.clear();
    },
  };
}
