/**
 * A tally (src/pipeline/tally.ts) lists the cancels of a TID, or the payouts to a sub-merchant
 * on a day, in the order they were sent: settlement and cancel notices tell same-amount
 * operations apart by it. Each entry is added before its operation leaves, once, and stays in
 * reach of every reader. Over loopback against the sandbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mock } from 'node:test';
import { expect } from 'chai';
import { resolveConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { memoryStore } from '../src/index.js';
import { appendToTally, readTallyValues } from '../src/pipeline/index.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import type { LedgerStore } from '../src/store/types.js';
import { flush } from './helpers/settle-later.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, DATA_MID, type DataHostRig, rejection, seller, startDataHost } from './helpers/data-host.js';
import { type LifecycleShop, MID, startLifecycleShop } from './helpers/lifecycle-shop.js';

const DAY = '20261123';
const PAYOUTS = `payouts:${DATA_MID}:${DAY}:s1`;

/** A client on `store` that sends nothing: the tally is all it is used for. */
const contextOn = (store: LedgerStore) =>
  createContext(
    resolveConfig({ mid: DATA_MID, merchantKey: DATA_KEY, baseUrl: 'http://127.0.0.1:9', store, settle: false }),
  );

/**
 * A tally `T` with one entry, and its next 33 slots leased by appenders that have not written
 * yet: more than readers look past. `writeHeld` writes them.
 */
async function crowdedTally() {
  const store = memoryStore();
  const ctx = contextOn(store);
  expect((await appendToTally(ctx, 'T', 'first')).state).to.equal('added');
  const held: Array<[number, string]> = [];
  for (let n = 2; n <= 34; n++) {
    const got = await store.acquire(`T:${n}`, 60_000);
    if (got.state !== 'acquired') throw new Error(`slot ${n} was not free`);
    held.push([n, got.token]);
  }
  const writeHeld = async (): Promise<void> => {
    for (const [n, token] of held)
      await store.write(`T:${n}`, token, { value: `held-${n}`, open: false, keepMs: 60_000 }, true);
  };
  return { store, ctx, writeHeld };
}

describe('tally: each entry once, in reach of every reader', () => {
  let shop: LifecycleShop | undefined;
  let rig: DataHostRig | undefined;
  afterEach(async () => {
    await shop?.close();
    await rig?.close();
    shop = undefined;
    rig = undefined;
  });

  it('repeats of a cancel the ledger forgot (refused, so no record is kept) take one tally slot, not one each', async () => {
    const store = memoryStore();
    shop = await startLifecycleShop({ store });
    const card = await shop.pay('CARD', 1004);
    for (let i = 0; i < 20; i++) {
      // A full cancel of the wrong amount: refused, and its record forgotten.
      const r = await shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: 'x' });
      expect(r.status).to.equal('refused');
    }
    expect(await store.get(`cancels:${MID}:${card.tid}:1`)).to.not.equal(undefined);
    expect(await store.get(`cancels:${MID}:${card.tid}:2`)).to.equal(undefined);
  });

  it('entries added past slots whose writes failed stay in reach: a lost payout the gateway never made is settled never-charged, not given another payout’s seq', async () => {
    const inner = memoryStore();
    const failing = new Set([11, 12, 13, 14].map((n) => `${PAYOUTS}:${n}`));
    let release!: () => void;
    const failNow = new Promise<void>((resolve) => (release = resolve));
    let allHeld!: () => void;
    const fourHeld = new Promise<void>((resolve) => (allHeld = resolve));
    let held = 0;
    const store: ReturnType<typeof memoryStore> = {
      ...inner,
      // A store hiccup: four concurrent appenders' slot writes hang, then fail.
      write: async (key, token, write, releaseLease) => {
        if (failing.delete(key)) {
          if (++held === 4) allHeld();
          await failNow;
          throw new Error('store write timed out');
        }
        return inner.write(key, token, write, releaseLease);
      },
    };
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    for (let i = 0; i < 10; i++) await rig.nicepay.payout.request({ subId: 's1', amount: 100, dupCheck: false });
    const hung = [0, 1, 2, 3].map((i) =>
      rejection(rig!.nicepay.payout.request({ subId: 's1', amount: 500, dupCheck: false, idempotencyKey: `h${i}` })),
    );
    await fourHeld;
    // Meanwhile two payouts of 300 are made, their entries past the four held slots.
    await rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'p1' });
    await rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'p2' });
    release();
    for (const err of await Promise.all(hung)) expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });

    // A third payout of 300, lost, which the gateway never made.
    rig.sandbox.faults.inject({ target: 'payout-request', kind: 'drop', commit: false });
    const lost = await rejection(
      rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'lost' }),
    );
    expect(lost).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    expect(rig.sandbox.dataHost.payouts()).to.have.length(12);

    rig.at(2026, 11, 23, 16, 0);
    const report = await rig.nicepay.settle();
    expect(report.settled.map((s) => s.outcome)).to.deep.equal(['never-charged']);
  });

  it('two instances appending 120 entries at once to one tally in one SQLite file: every entry once, all read back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nicepay-tally-'));
    const path = join(dir, 'ledger.db');
    const stores = [sqliteStore({ path }), sqliteStore({ path })];
    try {
      const [a, b] = stores.map(contextOn);
      const keys = Array.from({ length: 120 }, (_, i) => `op:${i}`);
      const added = await Promise.all(keys.map((key, i) => appendToTally(i % 2 ? a! : b!, 'T', key)));
      expect(added.map((r) => r.state)).to.deep.equal(keys.map(() => 'added'));
      expect([...(await readTallyValues(a!, 'T'))].sort()).to.deep.equal([...keys].sort());
      expect(await stores[0]!.get('T:120')).to.not.equal(undefined);
      expect(await stores[0]!.get('T:121')).to.equal(undefined);
    } finally {
      for (const store of stores) await store.close?.();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an appender never adds an entry past more than 32 slots others hold unwritten: it waits, and adds it once they are written', async () => {
    const { store, ctx, writeHeld } = await crowdedTally();
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
    try {
      let state: string | undefined;
      const late = appendToTally(ctx, 'T', 'late').then((r) => (state = r.state));
      await flush();
      expect(state, 'waiting').to.equal(undefined);
      expect(await store.get('T:35')).to.equal(undefined);
      await writeHeld();
      mock.timers.tick(10);
      await flush();
      await late;
      expect(state).to.equal('added');
      expect((await store.get('T:35'))?.value).to.equal('late');
      expect(await readTallyValues(ctx, 'T')).to.include('late');
    } finally {
      mock.timers.reset();
    }
  });

  it('a repeat of an operation waiting out a crowded tally finds the entry an earlier repeat added, and adds none', async () => {
    const { store, ctx, writeHeld } = await crowdedTally();
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
    try {
      const first = appendToTally(ctx, 'T', 'same');
      await flush();
      mock.timers.tick(5);
      const repeat = appendToTally(ctx, 'T', 'same');
      await flush();
      await writeHeld();
      mock.timers.tick(5); // the first wakes and adds its entry
      await flush();
      mock.timers.tick(5); // the repeat wakes
      await flush();
      expect((await first).state).to.equal('added');
      expect((await repeat).state).to.equal('added');
      expect((await store.get('T:35'))?.value).to.equal('same');
      expect(await store.get('T:36')).to.equal(undefined);
    } finally {
      mock.timers.reset();
    }
  });

  it('a bounded memoryStore drops tally marks (no money hangs on one) before it refuses a payment', async () => {
    const store = memoryStore({ maxEntries: 40 });
    const ctx = contextOn(store);
    for (let i = 0; i < 20; i++) expect((await appendToTally(ctx, 'T', `op${i}`)).state).to.equal('added');
    const got = await store.acquire('approval:new', 30_000, { value: 'x', open: true, dueAt: 0 });
    expect(got.state).to.equal('acquired');
    expect(await readTallyValues(ctx, 'T')).to.have.length(20);
  });

  it('a cancel that finds a bounded store full is 503 NICEPAY_STORE_FULL, as a payment is, and nothing is sent', async () => {
    const store = memoryStore({ maxEntries: 50 });
    shop = await startLifecycleShop({ store });
    const card = await shop.pay('CARD', 1004);
    for (let i = 0; ; i++) {
      const got = await store.acquire(`filler:${i}`, 1_000).catch(() => undefined);
      if (!got) break;
      if (got.state === 'acquired')
        await store.write(`filler:${i}`, got.token, { value: 'x', open: false, keepMs: 3_600_000 }, true);
    }
    const err = await rejection(shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1004, reason: 'x' }));
    expect(err).to.include({ code: 'NICEPAY_STORE_FULL', status: 503 });
    expect((await shop.nicepay.status(card.tid)).status).to.equal('approved');
  });
});
