import { expect } from 'chai';
import { memoryStore, NicepayConfigError } from '../src/index.js';
import { StoreFullError } from '../src/store/types.js';
import { describeStoreContract } from './helpers/store-contract.js';

describe('memoryStore', () => {
  describe('against the store contract', () => {
    describeStoreContract(async () => {
      let now = 1_000_000;
      // Two handles on one storage: in one process they are the same object.
      const store = memoryStore({ now: () => now });
      return {
        a: store,
        b: store,
        // The suite's leases and closed records last at most 60 s: passing them expires both.
        expireLease: async () => {
          now += 60_001;
        },
        expireClosed: async () => {
          now += 60_001;
        },
        close: () => store.close!(),
      };
    });
  });

  it("reads a write's value only when the record is read back, and gives back that text", async () => {
    const store = memoryStore();
    let reads = 0;
    const write = (text: string) => ({
      get value() {
        reads++;
        return text;
      },
      open: true as const,
      dueAt: 0,
    });
    const got = await store.acquire('k', 1_000, write('first'));
    if (got.state !== 'acquired') throw new Error('not acquired');
    expect(await store.write('k', got.token, write('second'), false)).to.equal(true);
    expect(reads).to.equal(0);
    expect((await store.get('k'))?.value).to.equal('second');
    expect(reads).to.equal(1);
  });

  it('rejects a maxEntries that is not a positive integer, naming the option', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => memoryStore({ maxEntries })).to.throw(NicepayConfigError, /maxEntries/);
    }
  });

  describe('bounded: live records are never dropped', () => {
    it('makes room from expired records, then from evictable ones, and refuses a new key when only live records remain', async () => {
      let now = 0;
      const store = memoryStore({ now: () => now, maxEntries: 3 });
      const put = async (key: string, evictable: boolean, keepMs: number): Promise<void> => {
        const got = await store.acquire(key, 1_000);
        if (got.state !== 'acquired') throw new Error('not acquired');
        await store.write(key, got.token, { value: key, open: false, keepMs, evictable }, true);
      };
      await put('charged', false, 10_000);
      await put('declined', true, 10_000);
      await put('brief', false, 10);
      now = 100; // 'brief' has expired
      expect((await store.acquire('new-1', 1_000)).state).to.equal('acquired');
      // Full again: the decline goes, never the charge.
      expect((await store.acquire('new-2', 1_000)).state).to.equal('acquired');
      expect(await store.get('declined')).to.equal(undefined);
      expect((await store.get('charged'))?.value).to.equal('charged');
      // Only live records (a guarding close and two leases): the new key is refused.
      let refused: unknown;
      try {
        await store.acquire('new-3', 1_000);
      } catch (err) {
        refused = err;
      }
      expect(refused).to.be.instanceOf(StoreFullError);
      expect((await store.get('charged'))?.value).to.equal('charged');
    });

    it('an open record is never dropped, however many keys come after it', async () => {
      const store = memoryStore({ maxEntries: 2 });
      const got = await store.acquire('unsettled', 1_000, { value: 'reversing', open: true, dueAt: 0 });
      if (got.state !== 'acquired') throw new Error('not acquired');
      await store.release('unsettled', got.token);
      for (let i = 0; i < 1_000; i++) {
        const g = await store.acquire(`forged-${i}`, 1_000);
        if (g.state === 'acquired') await store.remove(`forged-${i}`, g.token);
      }
      expect((await store.get('unsettled'))?.value).to.equal('reversing');
    });
  });
});
