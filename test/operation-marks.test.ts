/**
 * A partial cancel whose outcome is unknown is never sent again, and the status inquiry does not
 * show it: settlement learns of it only from its marks. The gateway's notice that named it
 * (`noticed`) keeps it, and a request its holder never sent (`unsent`) closes it as never made,
 * whatever stood in the way when the word came: a store write that failed, a full store, a
 * store that cannot be read, a record in flight or held by another process.
 */
import { expect } from 'chai';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { type Nicepay, SETTLE_CHANNEL, type SettleEvent } from '../src/index.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import type { LedgerRecord } from '../src/pipeline/ledger-record.js';
import { markOf, markOperation } from '../src/pipeline/operation-marks.js';
import { memoryStore } from '../src/store/memory-store.js';
import type { LedgerStore } from '../src/store/types.js';
import { otherProcess, pausingStore } from './helpers/ledger-store.js';
import { startLifecycleShop, type LifecycleShop } from './helpers/lifecycle-shop.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';

/** A 300-won partial cancel of a 3,000-won card payment under `idempotencyKey`. */
const partOf = (paid: { tid: string; moid: string }, idempotencyKey: string) => ({
  tid: paid.tid,
  moid: paid.moid,
  amount: 300,
  reason: '부분 환불',
  partial: true,
  idempotencyKey,
});

describe('the marks settlement reads for a partial cancel it cannot ask the gateway about', () => {
  let shop: LifecycleShop | undefined;
  afterEach(async () => {
    await shop?.close();
    shop = undefined;
  });

  /** The cancel notices the gateway delivered for `tid`, by the answer each got. */
  const answers = (tid: string) =>
    shop!.sandbox.ledger
      .get(tid)!
      .notices!.filter((n) => n.kind === 'cancel')
      .map((n) => n.answer);
  /** The partial cancel's record as unsettled() lists it, if it is still open. */
  const open = async (tid: string) =>
    (await shop!.nicepay.unsettled())
      .filter((u) => u.tid === tid)
      .map((u) => ({ state: u.state, attention: u.needsAttention }));

  it('a notice whose move to kept cannot be written leaves its mark before it is answered OK: settlement keeps the cancel', async () => {
    const inner = memoryStore();
    let failKept = true;
    const store: LedgerStore = {
      ...inner,
      write(key, token, w, release) {
        if (failKept && key.startsWith('cancel:') && w.value.includes('"state":"recorded"')) {
          failKept = false;
          return Promise.reject(new Error('connection lost'));
        }
        return inner.write(key, token, w, release);
      },
    };
    shop = await startLifecycleShop({ merchant: { notifyCancels: true }, store });
    const paid = await shop.pay('CARD', 3_000);
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'drop' });
    const err = await shop.nicepay.cancel(partOf(paid, 'blip')).catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    await shop.sandbox.notices.idle();
    expect(failKept, 'the move to kept was refused once').to.equal(false);
    expect(answers(paid.tid)).to.deep.equal(['OK']);
    const report = await shop.nicepay.settle();
    expect(report.settled.filter((s) => s.tid === paid.tid).map((s) => s.outcome)).to.deep.equal(['kept']);
    expect(await open(paid.tid)).to.deep.equal([]);
  });

  it("a full memoryStore keeps a notice's mark while dropping what it may: settlement still keeps the cancel", async () => {
    const inner = memoryStore({ maxEntries: 40 });
    shop = await startLifecycleShop({ merchant: { notifyCancels: true }, store: inner });
    const paid = await shop.pay('CARD', 3_000);
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'delay', delayMs: 2_500 });
    await shop.nicepay.cancel(partOf(paid, 'full-store')).catch(() => undefined);
    await shop.sandbox.notices.idle();
    // A busy shop: declines fill the store, which drops what guards no money to make room.
    for (let i = 0; i < 60; i++) await shop.pay('CARD', 1_000).catch(() => undefined);
    const report = await shop.nicepay.settle();
    expect(report.settled.filter((s) => s.tid === paid.tid).map((s) => s.outcome)).to.deep.equal(['kept']);
    expect(await open(paid.tid)).to.deep.equal([]);
  });

  it('a store that cannot read the marks leaves the partial cancel as it is, without calling for a person', async () => {
    const inner = memoryStore();
    let failMarkRead = false;
    const store: LedgerStore = {
      ...inner,
      get: (key) =>
        failMarkRead && key.startsWith('noticed:') ? Promise.reject(new Error('timeout')) : inner.get(key),
    };
    shop = await startLifecycleShop({ merchant: { notifyCancels: true }, store });
    const paid = await shop.pay('CARD', 3_000);
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'delay', delayMs: 2_500 });
    await shop.nicepay.cancel(partOf(paid, 'unreadable')).catch(() => undefined);
    await shop.sandbox.notices.idle();
    failMarkRead = true;
    await shop.nicepay.settle();
    failMarkRead = false;
    expect(await open(paid.tid)).to.deep.equal([{ state: 'unknown', attention: false }]);
  });

  it('a notice whose mark cannot be written is answered FAIL, so the gateway sends it again', async () => {
    const inner = memoryStore();
    const store: LedgerStore = {
      ...inner,
      acquire: (key, ms, init) =>
        key.startsWith('noticed:') ? Promise.reject(new Error('connection lost')) : inner.acquire(key, ms, init),
    };
    shop = await startLifecycleShop({ merchant: { notifyCancels: true }, store });
    const paid = await shop.pay('CARD', 3_000);
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'delay', delayMs: 2_500 });
    await shop.nicepay.cancel(partOf(paid, 'mark-fails')).catch(() => undefined);
    await shop.sandbox.notices.idle();
    expect(answers(paid.tid)[0]).to.not.equal('OK');
  });

  it('a partial cancel whose holder lost its lease before sending is settled as never made, with nobody needed', async () => {
    let other: Nicepay | undefined;
    // Two processes on one store: the cancel's holder pauses past its lease right after writing
    // its record, and the other process's settler takes the record over meanwhile.
    const { store } = pausingStore('cancel:', () => other!.settle(), false);
    const attention: SettleEvent[] = [];
    const listen = (m: unknown): void => {
      if ((m as SettleEvent).needsAttention) attention.push(m as SettleEvent);
    };
    subscribe(SETTLE_CHANNEL, listen);
    shop = await startLifecycleShop({ merchant: { notifyCancels: true }, store });
    other = otherProcess(shop.sandbox.url, store, () => shop!.sandbox.clock.now());
    try {
      const paid = await shop.pay('CARD', 3_000);
      const err = await shop.nicepay.cancel(partOf(paid, 'fenced')).catch((e: unknown) => e);
      expect(err).to.include({ code: 'NICEPAY_IN_PROGRESS' });
      expect(shop.sandbox.ledger.get(paid.tid)?.cancels ?? [], 'nothing was sent').to.deep.equal([]);
      shop.sandbox.clock.advance(3_600_000); // past the settler's back-off
      await shop.nicepay.settle();
      expect(await open(paid.tid)).to.deep.equal([]);
      // Nobody was called on at any point: not by the settler that took it over first either.
      expect(attention.filter((e) => e.tid === paid.tid)).to.deep.equal([]);
      const again = await shop.nicepay.cancel(partOf(paid, 'fenced')).catch((e: unknown) => e);
      expect(again).to.include({ settlement: 'never-charged' });
    } finally {
      unsubscribe(SETTLE_CHANNEL, listen);
      await other.close();
    }
  });

  it('a mark settles only the record it was made for: a later record under the same key is another operation', async () => {
    const ctx = createContext(
      resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', store: memoryStore() }),
    );
    try {
      const record = (at: number): LedgerRecord => ({
        v: 1,
        op: 'cancel',
        state: 'sending',
        mid: MID,
        tid: 'nicepay00m01012611271200001234',
        moid: 'order-1',
        amount: 300,
        binding: '',
        hook: 'none',
        data: { partial: '1' },
        at,
        attempts: 0,
      });
      const key = `cancel:${MID}:nicepay00m01012611271200001234:300:k`;
      await markOperation(ctx, 'unsent', key, record(1_000), 60_000);
      expect(await markOf(ctx, key, record(1_000))).to.equal('unsent');
      expect(await markOf(ctx, key, record(2_000))).to.equal(undefined);
    } finally {
      await closeContext(ctx);
    }
  });
});
