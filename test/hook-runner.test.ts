/**
 * The notice hook runner (src/pipeline/hook-runner.ts) on its own: a hook runs at most once at
 * a time per key however long it runs (its lease renewed through `store.extend`), a duplicate
 * is told "in progress" and never "done" before the hook resolved, a rejected hook frees its
 * key, a store failure is refused or reported. Timers and Date are virtual.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { memoryStore } from '../src/index.js';
import { resolveConfig } from '../src/config.js';
import { createContext, type ClientContext } from '../src/context.js';
import { LEASE_MS } from '../src/pipeline/lease.js';
import { runNoticeHook, type NoticeHookOptions } from '../src/pipeline/hook-runner.js';
import type { LedgerStore } from '../src/store/types.js';
import { captureLogger } from './helpers/capture.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';
import { deferred, flush } from './helpers/settle-later.js';

describe('notice hook runner (virtual time, memoryStore)', () => {
  const captured = captureLogger();
  const ctxOf = (store: LedgerStore): ClientContext =>
    createContext(
      resolveConfig({
        mid: MID,
        merchantKey: MERCHANT_KEY,
        baseUrl: 'http://127.0.0.1:9',
        store,
        logger: captured.logger,
        settle: false,
      }),
    );
  const opts = (over: Partial<NoticeHookOptions> = {}): NoticeHookOptions => ({
    key: 'k',
    timeoutMs: 1_000,
    keepMs: 60_000,
    hookName: 'onTest',
    log: { tid: 'T1' },
    ...over,
  });

  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() }));
  afterEach(() => mock.timers.reset());

  async function advance(ms: number, step = 1_000): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await flush(); // what was started arms its timers before the clock moves
      mock.timers.tick(step);
      await flush();
    }
  }

  it('renews the lease while the hook runs: ten lease lifetimes later a duplicate is still "in progress", then "done"', async () => {
    const store = memoryStore({ now: () => Date.now() });
    const extended: number[] = [];
    const extend = store.extend.bind(store);
    store.extend = (key, token, ttl) => {
      extended.push(Date.now());
      return extend(key, token, ttl);
    };
    const ctx = ctxOf(store);
    const hook = deferred();
    let runs = 0;
    const first = runNoticeHook(ctx, opts(), () => {
      runs++;
      return hook.promise;
    });
    await advance(10 * LEASE_MS, 1_000);
    expect(extended.length).to.be.at.least(29);
    expect((await first).state).to.equal('ran');
    const dup = runNoticeHook(ctx, opts(), () => {
      runs++;
    });
    await advance(1_500);
    expect(await dup).to.deep.equal({ state: 'in-progress' });
    hook.resolve();
    await flush();
    expect(
      await runNoticeHook(ctx, opts(), () => {
        runs++;
      }),
    ).to.deep.equal({ state: 'done' });
    expect(runs).to.equal(1);
  });

  it('the verdict follows the hook: resolved in time, resolved late, rejected (key freed), hung', async () => {
    const store = memoryStore({ now: () => Date.now() });
    const ctx = ctxOf(store);
    expect(await runNoticeHook(ctx, opts({ key: 'a' }), () => undefined)).to.deep.include({
      state: 'ran',
      verdict: { kind: 'resolved', late: false },
      stored: true,
    });
    const late = runNoticeHook(
      ctx,
      opts({ key: 'b' }),
      ({ signal }) => new Promise<void>((r) => signal.addEventListener('abort', () => r())),
    );
    await advance(1_000);
    expect(await late).to.deep.include({ verdict: { kind: 'resolved', late: true } });
    const failed = await runNoticeHook(ctx, opts({ key: 'c' }), () => {
      throw new Error('db down');
    });
    expect(failed).to.deep.include({ state: 'ran', stored: true });
    expect((await store.acquire('c', 1_000)).state, 'a rejected hook frees its key').to.equal('acquired');
    const hook = deferred();
    const hung = runNoticeHook(ctx, opts({ key: 'd' }), () => hook.promise);
    await advance(2_000);
    expect(await hung).to.deep.include({ state: 'ran', verdict: { kind: 'hung' } });
    expect((await store.acquire('d', 1_000)).state, 'a hung hook keeps its key').to.equal('busy');
    hook.reject(new Error('gave up at last'));
    await flush();
    expect((await store.acquire('d', 1_000)).state, 'it rejected after all: a retry runs it').to.equal('acquired');
    expect(captured.text()).to.include('onTest failed after it was reported hung');
  });

  it('a store that cannot be read refuses before the hook; one that cannot write reports it', async () => {
    const store = memoryStore({ now: () => Date.now() });
    let ran = false;
    const down: LedgerStore = { ...store, acquire: () => Promise.reject(new Error('redis down')) };
    const err = await runNoticeHook(ctxOf(down), opts(), () => {
      ran = true;
    }).catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(ran).to.equal(false);
    const lossy: LedgerStore = { ...store, write: () => Promise.reject(new Error('write lost')) };
    expect(await runNoticeHook(ctxOf(lossy), opts({ key: 'w' }), () => undefined)).to.deep.include({
      state: 'ran',
      stored: false,
    });
    expect(captured.text()).to.include('onTest resolved, but the store did not record it');
  });

  it('a lost lease is logged while the hook runs', async () => {
    const store = memoryStore({ now: () => Date.now() });
    store.extend = async () => false;
    const hook = deferred();
    const run = runNoticeHook(ctxOf(store), opts({ key: 'lost' }), () => hook.promise);
    await advance(LEASE_MS, 1_000);
    hook.resolve();
    await run;
    expect(captured.text()).to.include('onTest lost its lease while running');
  });
});
