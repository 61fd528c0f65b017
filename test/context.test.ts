/**
 * The client context: calls in flight are counted so close() can wait for them, and close()
 * closes what the client created (its transports, and the store only when it made it).
 */
import { expect } from 'chai';
import { createNicepay, memoryStore, type LedgerStore } from '../src/index.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';

const good = { mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' };

/** A memory store that counts close() calls. */
function countingStore(): LedgerStore & { closes: number } {
  const inner = memoryStore();
  const s = { ...inner, closes: 0, close: async () => { s.closes++; await inner.close?.(); } };
  return s;
}

describe('createContext', () => {
  it('counts tracked calls until they settle, rejected ones included', async () => {
    const ctx = createContext(resolveConfig(good));
    let fail!: (e: Error) => void;
    let pass!: () => void;
    const a = ctx.track(new Promise<void>((resolve) => (pass = resolve)));
    const b = ctx.track(new Promise<void>((_, reject) => (fail = reject)));
    b.catch(() => undefined);
    expect(ctx.inFlight()).to.equal(2);
    const idle = ctx.whenIdle();
    pass();
    await a;
    expect(ctx.inFlight()).to.equal(1);
    fail(new Error('x'));
    await idle;
    expect(ctx.inFlight()).to.equal(0);
    await closeContext(ctx);
  });

  it('whenIdle resolves at once when nothing is in flight; isClosing turns true at close()', async () => {
    const ctx = createContext(resolveConfig(good));
    await ctx.whenIdle();
    expect(ctx.isClosing()).to.equal(false);
    const closing = closeContext(ctx);
    expect(ctx.isClosing()).to.equal(true);
    await closing;
  });
});

describe('closeContext and the store', () => {
  it('closes the store it created', async () => {
    const store = countingStore();
    // As resolveConfig records a default store: one this client made and owns.
    const ctx = createContext({ ...resolveConfig({ ...good, store }), ownsStore: true });
    await closeContext(ctx);
    expect(store.closes).to.equal(1);
  });

  it('leaves a store the shop passed in open, however often close() is called: the shop closes its own', async () => {
    const store = countingStore();
    const nicepay = createNicepay({ ...good, store });
    const got = await store.acquire('k', 1_000);
    if (got.state !== 'acquired') throw new Error('narrowing');
    await store.write('k', got.token, { value: 'v', open: false, keepMs: 60_000 }, true);
    const a = nicepay.close();
    expect(nicepay.close()).to.equal(a);
    await a;
    expect(store.closes).to.equal(0);
    expect(await store.acquire('k', 1_000)).to.deep.equal({ state: 'closed', record: { key: 'k', value: 'v', open: false, dueAt: 0 } });
    await store.close?.();
  });

  it('refuses new work after close() with 503 NICEPAY_SHUTTING_DOWN, one class for every interface', async () => {
    const nicepay = createNicepay(good);
    await nicepay.close();
    const keyin = await nicepay.keyin({ moid: 'm', amount: 1, goodsName: 'g', card: { number: '4111111111111111', expiry: '9912' } }).catch((e: unknown) => e);
    const payout = await nicepay.payout.balance().catch((e: unknown) => e);
    for (const err of [keyin, payout]) {
      expect(err).to.include({ name: 'NicepayServiceError', code: 'NICEPAY_SHUTTING_DOWN', status: 503 });
    }
  });
});
