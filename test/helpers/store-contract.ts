/**
 * The one test suite of the ledger's store contract (src/store/types.ts): memoryStore,
 * sqliteStore and redisStore each run it through {@link describeStoreContract}, so the three
 * cannot drift apart. A set-up gives two handles on one storage (two connections, or two
 * processes' worth of state) and says how to make time pass for leases and closed records,
 * which run on the store's own clock.
 */
import { expect } from 'chai';
import type { LedgerStore, LeaseResult, RecordWrite } from '../../src/store/types.js';

/** What one store set-up gives the suite. */
export interface StoreSetup {
  /** Two handles on the same storage, as two instances of a shop would hold. */
  a: LedgerStore;
  b: LedgerStore;
  /** Makes the lease on `key` expire now (as if its holder died and its lease ran out). */
  expireLease(key: string): Promise<void>;
  /** Makes the closed record under `key` expire now (its keepMs passed). */
  expireClosed(key: string): Promise<void>;
  /** Closes both handles and frees the storage. */
  close(): Promise<void>;
}

const open = (value: string, dueAt = 1_000): RecordWrite => ({ value, open: true, dueAt });
const closed = (value: string, keepMs = 60_000, evictable = false): RecordWrite => ({
  value,
  open: false,
  keepMs,
  evictable,
});

function tokenOf(got: LeaseResult): string {
  if (got.state !== 'acquired') throw new Error(`expected the lease, got ${got.state}`);
  return got.token;
}

/**
 * Registers the contract's tests in a describe() of the caller. `setup` is called once per test
 * and must give a fresh, empty storage.
 */
export function describeStoreContract(setup: () => Promise<StoreSetup>): void {
  let s: StoreSetup;
  beforeEach(async () => {
    s = await setup();
  });
  afterEach(async () => {
    await s.close();
  });

  describe('the ledger store contract', () => {
    it('acquire on a new key takes the lease and writes the initial record; a second acquirer is busy and sees it', async () => {
      const got = await s.a.acquire('k', 60_000, open('sending'));
      expect(got.state).to.equal('acquired');
      if (got.state !== 'acquired') return;
      expect(got.record).to.equal(undefined);
      const other = await s.b.acquire('k', 60_000, open('other'));
      expect(other.state).to.equal('busy');
      expect(other.record).to.deep.include({ key: 'k', value: 'sending', open: true, dueAt: 1_000 });
      expect(await s.b.get('k')).to.deep.include({ value: 'sending', open: true });
    });

    it('acquire without an initial record holds only the lease; releasing it forgets the key', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000));
      expect(await s.b.get('k')).to.equal(undefined);
      const busy = await s.b.acquire('k', 60_000);
      expect(busy).to.deep.equal({ state: 'busy', record: undefined });
      await s.a.release('k', t);
      expect((await s.b.acquire('k', 60_000)).state).to.equal('acquired');
    });

    it('write replaces the record only under the lease; a stranger token changes nothing', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      expect(await s.b.write('k', 'not-the-token', open('forged'), true)).to.equal(false);
      expect((await s.a.get('k'))?.value).to.equal('sending');
      expect(await s.a.write('k', t, open('committed', 2_000), false)).to.equal(true);
      expect(await s.b.get('k')).to.deep.include({ value: 'committed', open: true, dueAt: 2_000 });
      // The lease was kept: another acquirer is still busy.
      expect((await s.b.acquire('k', 60_000)).state).to.equal('busy');
    });

    it('a closed record answers every acquire with itself and takes no lease', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      expect(await s.a.write('k', t, closed('recorded'), true)).to.equal(true);
      for (const store of [s.a, s.b]) {
        const got = await store.acquire('k', 60_000, open('again'));
        expect(got.state).to.equal('closed');
        expect(got.record).to.deep.include({ key: 'k', value: 'recorded', open: false });
      }
      // The old token cannot reopen it.
      expect(await s.a.write('k', t, open('reopened'), true)).to.equal(false);
      expect((await s.b.get('k'))?.value).to.equal('recorded');
    });

    it('an open record released by its holder is acquired again with what it holds (the settler resumes it)', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      expect(await s.a.write('k', t, open('reversing', 5_000), true)).to.equal(true);
      const next = await s.b.acquire('k', 60_000, open('ignored'));
      expect(next.state).to.equal('acquired');
      expect(next.record).to.deep.include({ value: 'reversing', open: true, dueAt: 5_000 });
    });

    it("a dead holder's lease expires: another acquirer resumes the record, and the old token can no longer write or release", async () => {
      const dead = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      await s.expireLease('k');
      const next = await s.b.acquire('k', 60_000);
      expect(next.state).to.equal('acquired');
      if (next.state !== 'acquired') return;
      expect(next.token).to.not.equal(dead);
      expect(next.record?.value).to.equal('sending');
      expect(await s.a.write('k', dead, closed('late'), true)).to.equal(false);
      await s.a.release('k', dead);
      await s.a.remove('k', dead);
      expect((await s.a.acquire('k', 60_000)).state).to.equal('busy');
      expect(await s.b.write('k', next.token, closed('settled'), true)).to.equal(true);
      expect((await s.a.get('k'))?.value).to.equal('settled');
    });

    it('a holder whose lease expired while nobody took over may still write its result', async () => {
      const slow = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      await s.expireLease('k');
      expect(await s.a.write('k', slow, closed('recorded'), true)).to.equal(true);
      expect((await s.b.acquire('k', 60_000)).state).to.equal('closed');
    });

    it('remove forgets the key only for the holder of the lease', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      await s.b.remove('k', 'not-the-token');
      expect((await s.b.get('k'))?.value).to.equal('sending');
      await s.a.remove('k', t);
      expect(await s.b.get('k')).to.equal(undefined);
      expect((await s.b.acquire('k', 60_000, open('fresh'))).state).to.equal('acquired');
    });

    it('extend renews the lease for its holder only, live or run out with nobody taking the key, and answers false once another took it or it was released', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      expect(await s.a.extend('k', t, 60_000)).to.equal(true);
      expect(await s.b.extend('k', 'not-the-token', 60_000)).to.equal(false);
      // Run out, nobody took it: still its holder's, and renewed live (another acquire waits).
      await s.expireLease('k');
      expect(await s.a.extend('k', t, 60_000)).to.equal(true);
      expect((await s.b.acquire('k', 60_000)).state).to.equal('busy');
      // Run out and taken over: the old holder's token renews nothing.
      await s.expireLease('k');
      const u = tokenOf(await s.b.acquire('k', 60_000));
      expect(await s.a.extend('k', t, 60_000)).to.equal(false);
      expect(await s.b.extend('k', u, 60_000)).to.equal(true);
      await s.b.release('k', u);
      expect(await s.b.extend('k', u, 60_000)).to.equal(false);
      // A key that holds only a lease, run out and not taken: renewed like a record's.
      const v = tokenOf(await s.a.acquire('bare', 60_000));
      await s.expireLease('bare');
      expect(await s.a.extend('bare', v, 60_000)).to.equal(true);
    });

    it('a closed record is forgotten once its keepMs has passed', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000, open('sending')));
      await s.a.write('k', t, closed('recorded', 5_000), true);
      await s.expireClosed('k');
      expect(await s.b.get('k')).to.equal(undefined);
      expect((await s.b.acquire('k', 60_000, open('fresh'))).state).to.equal('acquired');
    });

    it('due lists open records whose time has come and whose lease is free, earliest first, never closed or leased ones', async () => {
      const put = async (key: string, write: RecordWrite, release: boolean): Promise<void> => {
        const t = tokenOf(await s.a.acquire(key, 60_000, open('sending')));
        await s.a.write(key, t, write, release);
      };
      await put('late', open('late', 3_000), true);
      await put('early', open('early', 1_000), true);
      await put('future', open('future', 9_000), true);
      await put('held', open('held', 500), false);
      await put('done', closed('done'), true);
      const due = await s.b.due(5_000, 10);
      expect(due.map((r) => r.key)).to.deep.equal(['early', 'late']);
      expect(due[0]).to.deep.include({ value: 'early', open: true, dueAt: 1_000 });
      expect((await s.b.due(5_000, 1)).map((r) => r.key)).to.deep.equal(['early']);
      // A lease that expired (its holder died) makes the record due again.
      await s.expireLease('held');
      expect((await s.b.due(5_000, 10)).map((r) => r.key)).to.deep.equal(['held', 'early', 'late']);
    });

    it('open lists every open record, leased or not, and nothing closed', async () => {
      const t1 = tokenOf(await s.a.acquire('one', 60_000, open('sending', 7_000)));
      const t2 = tokenOf(await s.a.acquire('two', 60_000, open('sending', 2_000)));
      await s.a.write('two', t2, open('reversing', 2_000), true);
      const t3 = tokenOf(await s.a.acquire('three', 60_000, open('sending')));
      await s.a.write('three', t3, closed('recorded'), true);
      expect((await s.b.open(10)).map((r) => r.key)).to.deep.equal(['two', 'one']);
      expect(t1).to.be.a('string');
    });

    it('a record first written under a bare lease is listed by open() and due(); removed, it is listed no more', async () => {
      const t = tokenOf(await s.a.acquire('k', 60_000));
      expect(await s.b.open(10)).to.deep.equal([]);
      expect(await s.a.write('k', t, open('sending', 2_000), true)).to.equal(true);
      expect(await s.b.open(10)).to.deep.equal([{ key: 'k', value: 'sending', open: true, dueAt: 2_000 }]);
      expect((await s.b.due(2_000, 10)).map((r) => r.key)).to.deep.equal(['k']);
      const u = tokenOf(await s.b.acquire('k', 60_000));
      await s.b.remove('k', u);
      expect(await s.a.open(10)).to.deep.equal([]);
      expect(await s.a.due(9_000, 10)).to.deep.equal([]);
    });

    it('rescheduling an open record moves it in due(): a later dueAt takes it out, an earlier one puts it first', async () => {
      for (const [key, dueAt] of [
        ['x', 1_000],
        ['y', 2_000],
        ['z', 3_000],
      ] as const) {
        const t = tokenOf(await s.a.acquire(key, 60_000, open(key, dueAt)));
        await s.a.release(key, t);
      }
      const tx = tokenOf(await s.b.acquire('x', 60_000));
      await s.b.write('x', tx, open('x', 8_000), true);
      expect((await s.a.due(5_000, 10)).map((r) => r.key)).to.deep.equal(['y', 'z']);
      const tz = tokenOf(await s.b.acquire('z', 60_000));
      await s.b.write('z', tz, open('z', 500), true);
      expect((await s.a.due(5_000, 1)).map((r) => r.key)).to.deep.equal(['z']);
      expect((await s.a.open(10)).map((r) => [r.key, r.dueAt])).to.deep.equal([
        ['z', 500],
        ['y', 2_000],
        ['x', 8_000],
      ]);
      expect((await s.a.due(9_000, 10)).map((r) => r.key)).to.deep.equal(['z', 'y', 'x']);
    });

    it('keeps values byte for byte: Hangul, astral characters, JSON and newlines', async () => {
      const value = JSON.stringify({ goods: '똠얌꿍 햏 €', emoji: '😀', text: 'a\nb\r\n"c"', lua: "'end' --" });
      const t = tokenOf(await s.a.acquire('한글:키', 60_000, open(value)));
      expect((await s.b.get('한글:키'))?.value).to.equal(value);
      await s.a.write('한글:키', t, closed(value), true);
      expect((await s.b.acquire('한글:키', 60_000)).record?.value).to.equal(value);
    });

    it('100 concurrent acquirers of one key over two handles: exactly one gets the lease', async () => {
      const all = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? s.a : s.b).acquire('hot', 60_000, open(`sending-${i}`))),
      );
      expect(all.filter((g) => g.state === 'acquired')).to.have.length(1);
      expect(all.filter((g) => g.state === 'busy')).to.have.length(99);
    });
  });
}
