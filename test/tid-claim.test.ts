/**
 * The TIDs the shop issues itself (key-in, billing charge, cash receipt) are unique within a
 * process by construction; across instances sharing a store, each new record's TID is claimed
 * in the store before its request leaves. Two "instances" here are two clients on one SQLite
 * file, against the sandbox over loopback HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import {
  createNicepay,
  memoryStore,
  NicepayError,
  type KeyinInput,
  type Nicepay,
  type NicepayOptions,
} from '../src/index.js';
import { keyinCall, keyinKind } from '../src/keyin/operation.js';
import { validateKeyinInput } from '../src/keyin/validate.js';
import { runOwnTidOperation } from '../src/pipeline/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import type { LedgerStore } from '../src/store/types.js';
import { fromKst } from '../src/wire/kst.js';
import { ledgerRecord } from './helpers/ledger-store.js';
import { rejectedWith } from './helpers/rejected.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const START = fromKst(2026, 11, 23, 10, 0, 0);

describe('a TID the shop issues is claimed in a shared store before it is sent', function () {
  this.timeout(20_000);
  let sandbox: Sandbox;
  let dir: string;
  const opened: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    sandbox = createSandbox({ clock: () => START });
    sandbox.clock.freeze();
    sandbox.clock.set(START);
    await sandbox.listen(0);
    dir = mkdtempSync(join(tmpdir(), 'tid-claim-'));
  });
  afterEach(async () => {
    for (const c of opened.splice(0).reverse()) await c.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One instance's store: the shared SQLite file, its lease clock the sandbox's. */
  function sharedStore(): LedgerStore {
    const store = sqliteStore({ path: join(dir, 'ledger.db'), now: () => sandbox.clock.now().getTime() });
    opened.push({ close: async () => store.close?.() });
    return store;
  }

  /** An instance's options: the sandbox, its clock, and no settler (a test settles when it says). */
  function options(store: LedgerStore): NicepayOptions {
    return { mid: MID, merchantKey: KEY, baseUrl: sandbox.url, clock: () => sandbox.clock.now(), settle: false, store };
  }

  function instance(store: LedgerStore): Nicepay {
    const nicepay = createNicepay(options(store));
    opened.unshift({ close: () => nicepay.close() });
    return nicepay;
  }

  /** The claim under a TID, as the store holds it. */
  async function claimOf(store: LedgerStore, tid: string): Promise<unknown> {
    const stored = await store.get(`tid:${tid}`);
    return stored && JSON.parse(stored.value);
  }

  /**
   * `moid`'s key-in is refused 503 NICEPAY_STORE_UNAVAILABLE with nothing sent and no record in
   * `inner`; once `recover()` mends the store, the same Moid is charged exactly once.
   */
  async function refusedThenChargedOnce(nicepay: Nicepay, inner: LedgerStore, moid: string, recover: () => void) {
    const charges = () => sandbox.ledger.entries().filter((e) => e.moid === moid);
    const err = await rejectedWith(nicepay.keyin(keyin(moid)), NicepayError);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(charges()).to.have.length(0);
    expect(await inner.get(`keyin:${MID}:${moid}`)).to.equal(undefined);
    recover();
    expect(await nicepay.keyin(keyin(moid))).to.include({ status: 'approved', duplicate: false });
    expect(charges()).to.have.length(1);
  }

  /**
   * A store that lists what it is asked, in order (`acquire <key>`, with `+record` when a record
   * comes with it, and `write <key>`), and the TID claims among the keys taken.
   */
  function counting(store: LedgerStore): { store: LedgerStore; asked: string[]; claims: string[] } {
    const asked: string[] = [];
    const claims: string[] = [];
    return {
      asked,
      claims,
      store: {
        ...store,
        acquire(key, leaseMs, initial) {
          asked.push(`acquire ${key}${initial ? ' +record' : ''}`);
          if (key.startsWith('tid:')) claims.push(key);
          return store.acquire(key, leaseMs, initial);
        },
        write(key, token, write, release) {
          asked.push(`write ${key}`);
          return store.write(key, token, write, release);
        },
      },
    };
  }

  const keyin = (moid: string): KeyinInput => ({
    moid,
    amount: 12_000,
    goodsName: '테스트 상품',
    card: { number: '4111111111111111', expiry: '2912' },
  });

  it('a key-in takes its key bare, claims its TID naming its record, and only then writes the record; a repeat of the Moid is answered from the record, claiming nothing', async () => {
    const { store, asked, claims } = counting(sharedStore());
    const nicepay = instance(store);
    const paid = await nicepay.keyin(keyin('claim-1'));
    expect(paid.status).to.equal('approved');
    expect(await claimOf(store, paid.tid)).to.deep.equal({ claimedBy: `keyin:${MID}:claim-1` });
    expect(asked.slice(0, 4)).to.deep.equal([
      `acquire keyin:${MID}:claim-1`,
      `acquire tid:${paid.tid}`,
      `write tid:${paid.tid}`,
      `write keyin:${MID}:claim-1`,
    ]);
    expect(await nicepay.keyin(keyin('claim-1'))).to.include({ duplicate: true, tid: paid.tid });
    expect(claims).to.have.length(1);
    expect(sandbox.ledger.entries().filter((e) => e.moid === 'claim-1')).to.have.length(1);
  });

  it('a billing charge and a cash receipt claim theirs too', async () => {
    const store = sharedStore();
    const nicepay = instance(store);
    const reg = await nicepay.billing.register({
      moid: 'claim-reg',
      card: { number: '4111111111111111', expYear: '2029', expMonth: '12' },
    });
    if (reg.status !== 'registered') throw new Error(`registration refused: ${reg.code}`);
    const charge = await nicepay.billing.charge({ bid: reg.bid, moid: 'claim-sub', amount: 9_900, goodsName: '구독' });
    if (charge.status !== 'approved') throw new Error(`charge declined: ${charge.code}`);
    expect(await claimOf(store, charge.tid)).to.deep.equal({ claimedBy: `billing:${MID}:claim-sub` });
    const receipt = await nicepay.cashReceipt.issue({
      moid: 'claim-bank',
      amount: 11_000,
      goodsName: '무통장 주문',
      type: 'income-deduction',
      identity: '010-9876-5432',
      supply: 10_000,
      vat: 1_000,
    });
    if (receipt.status !== 'issued') throw new Error(`receipt refused: ${receipt.code}`);
    expect(await claimOf(store, receipt.tid)).to.deep.equal({ claimedBy: `cash-receipt:${MID}:claim-bank` });
  });

  it("a TID another instance claimed is drawn again: the charge is sent and recorded under the new one, and the other's payment and claim are untouched", async () => {
    const first = instance(sharedStore());
    const taken = await first.keyin(keyin('claim-a'));
    expect(taken.status).to.equal('approved');

    // The second instance draws the first's TID (as another process may, in the same second).
    const store = sharedStore();
    const ctx = createContext(resolveConfig(options(store)));
    opened.unshift({ close: () => closeContext(ctx) });
    const n = validateKeyinInput(keyin('claim-b'), sandbox.clock.now());
    const operation = keyinCall(ctx, keyinKind(ctx), n, undefined);
    const draws = [taken.tid];
    const charged = await runOwnTidOperation(ctx, {
      ...operation,
      drawTid: () => draws.shift() ?? operation.drawTid(),
    });

    expect(charged.status).to.equal('approved');
    expect(charged.tid).to.not.equal(taken.tid);
    expect(sandbox.ledger.get(charged.tid)).to.include({ moid: 'claim-b', status: 'approved' });
    expect(sandbox.ledger.get(taken.tid)).to.include({ moid: 'claim-a', status: 'approved' });
    expect(await ledgerRecord(store, `keyin:${MID}:claim-b`)).to.include({ tid: charged.tid, state: 'recorded' });
    expect(await claimOf(store, taken.tid)).to.deep.equal({ claimedBy: `keyin:${MID}:claim-a` });
    expect(await claimOf(store, charged.tid)).to.deep.equal({ claimedBy: `keyin:${MID}:claim-b` });
  });

  it('a claim the store cannot take: 503 NICEPAY_STORE_UNAVAILABLE, no record written, nothing sent; the same Moid is charged once when it can', async () => {
    const inner = sharedStore();
    let down = true;
    const store: LedgerStore = {
      ...inner,
      acquire(key, leaseMs, initial) {
        if (down && key.startsWith('tid:')) return Promise.reject(new Error('connection lost'));
        return inner.acquire(key, leaseMs, initial);
      },
    };
    await refusedThenChargedOnce(instance(store), inner, 'claim-down', () => (down = false));
  });

  for (const lost of [false, true]) {
    it(`a first record whose write ${lost ? 'landed but whose answer was lost' : 'the store refused'}: 503, nothing sent, no record left; the same Moid is charged once when it can`, async () => {
      const inner = sharedStore();
      let down = true;
      const store: LedgerStore = {
        ...inner,
        async write(key, token, write, release) {
          if (!down || key !== `keyin:${MID}:claim-lost`) return inner.write(key, token, write, release);
          if (lost) await inner.write(key, token, write, release);
          throw new Error('connection reset');
        },
      };
      await refusedThenChargedOnce(instance(store), inner, 'claim-lost', () => (down = false));
    });
  }

  it('a claim slower than the lease: the instance that took the key over charges the order once, and the slow one sends nothing', async () => {
    const inner = sharedStore();
    let open!: () => void;
    let gate: Promise<void> | undefined = new Promise<void>((resolve) => (open = resolve));
    let reached!: () => void;
    const atClaim = new Promise<void>((resolve) => (reached = resolve));
    const slow: LedgerStore = {
      ...inner,
      async acquire(key, leaseMs, initial) {
        const held = key.startsWith('tid:') ? gate : undefined;
        if (held) {
          gate = undefined;
          reached();
          await held;
        }
        return inner.acquire(key, leaseMs, initial);
      },
    };
    const first = instance(slow)
      .keyin(keyin('claim-slow'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await atClaim;
    // The first instance's bare lease runs out while its claim waits on the store.
    sandbox.clock.set(new Date(START.getTime() + 31_000));
    const paid = await instance(sharedStore()).keyin(keyin('claim-slow'));
    expect(paid).to.include({ status: 'approved', duplicate: false });
    open();
    expect(await first)
      .to.be.instanceOf(NicepayError)
      .and.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });
    expect(sandbox.ledger.entries().filter((e) => e.moid === 'claim-slow')).to.have.length(1);
    expect(await ledgerRecord(inner, `keyin:${MID}:claim-slow`)).to.include({ tid: paid.tid, state: 'recorded' });
  });

  it('a TID drawn 16 times over that other instances hold: 503 NICEPAY_STORE_UNAVAILABLE, no record written, nothing sent', async () => {
    const first = instance(sharedStore());
    const taken = await first.keyin(keyin('claim-x'));
    const store = sharedStore();
    const ctx = createContext(resolveConfig(options(store)));
    opened.unshift({ close: () => closeContext(ctx) });
    const operation = keyinCall(
      ctx,
      keyinKind(ctx),
      validateKeyinInput(keyin('claim-y'), sandbox.clock.now()),
      undefined,
    );
    const err = await rejectedWith(runOwnTidOperation(ctx, { ...operation, drawTid: () => taken.tid }), NicepayError);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(await store.get(`keyin:${MID}:claim-y`)).to.equal(undefined);
    expect(sandbox.ledger.entries().filter((e) => e.moid === 'claim-y')).to.have.length(0);
  });

  it('memoryStore, which no other process shares, takes no claim', async () => {
    const { store, claims } = counting(memoryStore());
    const paid = await instance(store).keyin(keyin('claim-memory'));
    expect(paid.status).to.equal('approved');
    expect(claims).to.deep.equal([]);
    expect(await store.get(`tid:${paid.tid}`)).to.equal(undefined);
  });
});
