/**
 * The hook runner (src/pipeline/hook-runner.ts) on its own: a hook runs at most once at a
 * time per key however long it runs (its lock renewed through `store.extend`, or taken long
 * with a store without it), a duplicate is told "in progress" and never "done" before the hook
 * resolved, a rejected hook frees its key, a store failure is refused or reported. Timers and
 * Date are virtual for memoryStore; on Redis the lock's expiry is the server's, so that case
 * uses a short lock and a hook that outlives it several times over.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { memoryStore } from '../src/index.js';
import { HOOK_LOCK_TTL_MS, HOOK_LOCK_WITHOUT_EXTEND_MS, runHookOnce, type HookRunOptions } from '../src/pipeline/hook-runner.js';
import { redisStore } from '../src/store/redis-store.js';
import type { IdempotencyStore } from '../src/store/types.js';
import { captureLogger } from './helpers/capture.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';

async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** A promise the test settles: the hook under test. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

describe('hook runner (virtual time, memoryStore)', () => {
  const captured = captureLogger();
  const opts = (store: IdempotencyStore, over: Partial<HookRunOptions> = {}): HookRunOptions =>
    ({ store, key: 'k', timeoutMs: 1_000, resultTtlMs: 60_000, logger: captured.logger, hookName: 'onTest', log: { tid: 'T1' }, ...over });

  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() }));
  afterEach(() => mock.timers.reset());

  async function advance(ms: number, step = 1_000): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await flush(); // what was started arms its timers before the clock moves
      mock.timers.tick(step);
      await flush();
    }
  }

  it('renews the lock while the hook runs: ten lock lifetimes later a duplicate is still "in progress", then "done"', async () => {
    const store = memoryStore({ now: () => Date.now() });
    const extended: number[] = [];
    const extend = store.extend!.bind(store);
    store.extend = (key, token, ttl) => { extended.push(Date.now()); return extend(key, token, ttl); };
    const hook = deferred();
    let runs = 0;
    const first = runHookOnce(opts(store), () => { runs++; return hook.promise; });
    await advance(10 * HOOK_LOCK_TTL_MS, 1_000);
    expect(extended.length).to.be.at.least(29);
    expect((await first).state).to.equal('ran');
    const dup = runHookOnce(opts(store), () => { runs++; });
    await advance(1_500);
    expect(await dup).to.deep.equal({ state: 'in-progress' });
    hook.resolve();
    await flush();
    expect(await runHookOnce(opts(store), () => { runs++; })).to.deep.equal({ state: 'done' });
    expect(runs).to.equal(1);
  });

  it('the verdict follows the hook: resolved in time, resolved late, rejected (key freed), hung', async () => {
    const store = memoryStore({ now: () => Date.now() });
    expect(await runHookOnce(opts(store, { key: 'a' }), () => undefined)).to.deep.include({ state: 'ran', verdict: { kind: 'resolved', late: false }, stored: true });
    const late = runHookOnce(opts(store, { key: 'b' }), ({ signal }) => new Promise<void>((r) => signal.addEventListener('abort', () => r())));
    await advance(1_000);
    expect(await late).to.deep.include({ verdict: { kind: 'resolved', late: true } });
    const failed = await runHookOnce(opts(store, { key: 'c' }), () => { throw new Error('db down'); });
    expect(failed).to.deep.include({ state: 'ran', stored: true });
    expect((await store.acquire('c', 1_000)).state, 'a rejected hook frees its key').to.equal('acquired');
    const hook = deferred();
    const hung = runHookOnce(opts(store, { key: 'd' }), () => hook.promise);
    await advance(2_000);
    const out = await hung;
    expect(out).to.deep.include({ state: 'ran', verdict: { kind: 'hung' } });
    hook.reject(new Error('gave up at last'));
    if (out.state === 'ran') await out.settled;
    expect((await store.acquire('d', 1_000)).state, 'it rejected after all: a retry runs it').to.equal('acquired');
    expect(captured.text()).to.include('onTest failed after it was reported hung');
  });

  it('a store without extend: the lock is taken once for 2 x timeout + 10 min', async () => {
    const store = memoryStore({ now: () => Date.now() });
    const ttls: number[] = [];
    const plain: IdempotencyStore = {
      acquire: (key, ttl) => { ttls.push(ttl); return store.acquire(key, ttl); },
      complete: (...a) => store.complete(...a),
      release: (...a) => store.release(...a),
    };
    const hook = deferred();
    const run = runHookOnce(opts(plain), () => hook.promise);
    await advance(2_000);
    expect(ttls).to.deep.equal([2 * 1_000 + HOOK_LOCK_WITHOUT_EXTEND_MS]);
    expect((await run).state).to.equal('ran');
    hook.resolve();
    await flush();
    expect(await runHookOnce(opts(plain), () => undefined)).to.deep.equal({ state: 'done' });
  });

  it('a store that cannot be read refuses before the hook; one that cannot write reports it', async () => {
    const store = memoryStore({ now: () => Date.now() });
    let ran = false;
    const down: IdempotencyStore = { ...store, acquire: () => Promise.reject(new Error('redis down')) };
    const err = await runHookOnce(opts(down), () => { ran = true; }).catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(ran).to.equal(false);
    const lossy: IdempotencyStore = { acquire: (k, t) => store.acquire(k, t), release: (k, t) => store.release(k, t), complete: () => Promise.reject(new Error('write lost')) };
    expect(await runHookOnce(opts(lossy, { key: 'w' }), () => undefined)).to.deep.include({ state: 'ran', stored: false });
    expect(captured.text()).to.include('onTest resolved, but the store did not record it');
  });

  it('a lost lock is logged while the hook runs', async () => {
    const store = memoryStore({ now: () => Date.now() });
    store.extend = async () => false;
    const hook = deferred();
    const run = runHookOnce(opts(store, { key: 'lost' }), () => hook.promise);
    await advance(HOOK_LOCK_TTL_MS, 1_000);
    hook.resolve();
    await run;
    expect(captured.text()).to.include('onTest lost its lock while running');
  });
});

describe('hook runner on Redis: a hook outlives its lock several times over and runs once', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  before(async () => {
    redis = await startRedisServer();
  });
  after(() => redis.stop());

  it('two stores (two instances) on one Redis: the duplicate is "in progress" while the hook runs, "done" after', async () => {
    const [a, b] = [redisStore({ url: redis.url }), redisStore({ url: redis.url })];
    const captured = captureLogger();
    // A 300 ms lock renewed every 100 ms; the hook ends only after the duplicate gave up.
    const opts = (store: IdempotencyStore): HookRunOptions => ({ store, key: 'hook:redis', timeoutMs: 1_200, resultTtlMs: 60_000, lockTtlMs: 300, logger: captured.logger, hookName: 'onTest', log: {} });
    const hook = deferred();
    let runs = 0;
    try {
      const first = runHookOnce(opts(a), () => { runs++; return hook.promise; });
      while (runs === 0) await flush();
      // Waits up to 1.2 s (four lock lifetimes) for the running hook, polling the other instance's store.
      expect(await runHookOnce(opts(b), () => { runs++; })).to.deep.equal({ state: 'in-progress' });
      hook.resolve();
      expect(await first).to.deep.include({ state: 'ran', stored: true });
      expect(await runHookOnce(opts(b), () => { runs++; })).to.deep.equal({ state: 'done' });
      expect(runs).to.equal(1);
      expect(captured.text()).to.not.include('lost its lock');
    } finally {
      await a.close?.();
      await b.close?.();
    }
  });
});
