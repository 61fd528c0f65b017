import { expect } from 'chai';
import { memoryStore } from '../src/index.js';
import { runOnce } from '../src/store/wait-for-result.js';

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
});
