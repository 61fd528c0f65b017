import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { memoryStore, type ClosableLedgerStore, type LedgerStore } from '../src/index.js';
import type { redisStore } from '../src/store/redis-store.js';
import { sqliteStore } from '../src/store/sqlite-store.js';

/** True when `K` is a required member of `T`, false when it is optional. */
type IsRequired<T, K extends keyof T> = Partial<Pick<T, K>> extends Pick<T, K> ? false : true;

// Type-level checks, run by `npx tsc --noEmit` (this file is in the project): each line stops
// compiling if the factories' close() turns optional again (the shop's `await store.close()`
// would be TS2722), or if LedgerStore starts demanding close() of every custom store.
const factoriesClose: [
  IsRequired<ReturnType<typeof memoryStore>, 'close'>,
  IsRequired<ReturnType<typeof sqliteStore>, 'close'>,
  IsRequired<ReturnType<typeof redisStore>, 'close'>,
] = [true, true, true];
const contractClose: IsRequired<LedgerStore, 'close'> = false;

/** A custom store with nothing to free: still a LedgerStore, with no close() to write. */
const customStore: LedgerStore = {
  acquire: async () => ({ state: 'busy', record: undefined }),
  write: async () => false,
  release: async () => {},
  remove: async () => {},
  extend: async () => false,
  get: async () => undefined,
  due: async () => [],
  open: async () => [],
};

describe('store factories give the shop a close() it can call without a check', () => {
  it('the factories return ClosableLedgerStore, while a LedgerStore may omit close()', () => {
    expect(factoriesClose).to.deep.equal([true, true, true]);
    expect(contractClose).to.equal(false);
    expect(customStore).to.not.have.property('close');
  });

  it('await store.close() on what sqliteStore() and memoryStore() return frees them: later calls are refused or empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nicepay-close-'));
    try {
      const sqlite: ClosableLedgerStore = sqliteStore({ path: join(dir, 'ledger.db') });
      const memory = memoryStore();
      await memory.acquire('k', 60_000, { value: 'v', open: true, dueAt: 0 });
      await sqlite.close();
      await memory.close();
      const refused = await sqlite.get('k').then(
        () => undefined,
        (err: Error) => err,
      );
      expect(refused?.message).to.match(/sqliteStore: get after close\(\)/);
      expect(await memory.open(10)).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
