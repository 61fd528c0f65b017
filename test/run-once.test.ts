/**
 * runOnce (src/store/run-once.ts) when the store misbehaves: refuse before any work when the
 * store cannot be read, report a result it could not write, release the key when the work
 * fails, give up waiting behind a stuck lock; and the typed codec round trip.
 */
import { expect } from 'chai';
import { memoryStore } from '../src/index.js';
import { runOnce } from '../src/store/run-once.js';
import type { IdempotencyStore } from '../src/store/types.js';

describe('runOnce when the store misbehaves', () => {
  const failing = (overrides: Partial<IdempotencyStore>): IdempotencyStore => ({ ...memoryStore(), ...overrides });

  it('a store that cannot be read refuses with 503 before any work', async () => {
    let ran = false;
    const store = failing({ acquire: () => Promise.reject(new Error('redis down')) });
    const err = await runOnce(store, 'k', { lockTtlMs: 100, resultTtlMs: 100 }, async () => { ran = true; return 'x'; }).catch((e) => e);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(ran).to.equal(false);
  });

  it('a result that cannot be written is still returned to the caller that did the work, and reported', async () => {
    const store = failing({ complete: () => Promise.reject(new Error('write lost')) });
    const out = await runOnce(store, 'k', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done');
    expect(out).to.include({ value: 'done', fresh: true, stored: false });
    expect((out!.storeError as Error).message).to.equal('write lost');
    // A store that rejects with nothing at all is still reported as not stored.
    const silent = failing({ complete: () => Promise.reject(undefined) });
    expect(await runOnce(silent, 'k2', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done')).to.deep.equal({ value: 'done', fresh: true, stored: false, storeError: undefined });
    expect(await runOnce(memoryStore(), 'k3', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done')).to.deep.equal({ value: 'done', fresh: true, stored: true });
  });

  it('a synchronous store that throws is handled like one that rejects: 503 before any work, a lost write reported', async () => {
    let ran = false;
    const unreadable = failing({ acquire: () => { throw new Error('disk gone'); } });
    const err = await runOnce(unreadable, 'k', { lockTtlMs: 100, resultTtlMs: 100 }, async () => { ran = true; return 'x'; }).catch((e) => e);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(ran).to.equal(false);
    const unwritable = failing({ complete: () => { throw new Error('write lost'); } });
    const out = await runOnce(unwritable, 'k', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done');
    expect(out).to.include({ value: 'done', fresh: true, stored: false });
    expect((out!.storeError as Error).message).to.equal('write lost');
  });

  it('a failed work releases the key even when release throws synchronously, and the error is the work\'s', async () => {
    const store = memoryStore();
    const releases: string[] = [];
    const wrapped: IdempotencyStore = { ...store, release: (key, token) => { releases.push(key); store.release(key, token); throw new Error('release hiccup'); } };
    const err = await runOnce(wrapped, 'k', { lockTtlMs: 60_000, resultTtlMs: 1_000 }, async () => { throw new Error('gateway down'); }).catch((e) => e);
    expect((err as Error).message).to.equal('gateway down');
    expect(releases).to.deep.equal(['k']);
    expect((await store.acquire('k', 1_000)).state).to.equal('acquired');
  });

  it('a waiter gives up with 409 IN_PROGRESS instead of hanging behind a stuck lock', async () => {
    const store = memoryStore();
    await store.acquire('k', 60_000);
    const err = await runOnce(store, 'k', { lockTtlMs: 60_000, resultTtlMs: 1_000, maxWaitMs: 50, pollMs: 5 }, async () => 'x').catch((e) => e);
    expect(err).to.include({ code: 'NICEPAY_IN_PROGRESS', status: 409 });
  });
});

describe('runOnce with a record codec', () => {
  it('the caller that did the work gets its own value; a duplicate gets the codec\'s parse of the stored text', async () => {
    const store = memoryStore();
    const codec = { serialize: (v: { n: number }) => `n=${v.n}`, parse: (t: string) => ({ n: Number(t.slice(2)) + 0.5 }) };
    const first = await runOnce(store, 'c', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => ({ n: 1 }), codec);
    expect(first).to.deep.equal({ value: { n: 1 }, fresh: true, stored: true });
    const again = await runOnce(store, 'c', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => ({ n: 2 }), codec);
    expect(again).to.deep.equal({ value: { n: 1.5 }, fresh: false, stored: true });
  });

  it('a parse that throws reaches the duplicate\'s caller as its own error', async () => {
    const store = memoryStore();
    const codec = { serialize: () => 'x', parse: (): never => { throw new Error('unreadable record'); } };
    await runOnce(store, 'p', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 1, codec);
    const err = await runOnce(store, 'p', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 2, codec).catch((e: unknown) => e);
    expect((err as Error).message).to.equal('unreadable record');
  });
});
