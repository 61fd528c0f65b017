/**
 * A hook's `signal` (src/pipeline/hook-runner-verdict.ts, callHook) under virtual time: it
 * aborts at `timeoutMs` whenever the hook reads it, before the timeout or after; a hook that
 * settled in time never finds it aborted; the verdict is hung a second `timeoutMs` later.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { callHook, type HookContext } from '../src/pipeline/hook-runner-verdict.js';
import { deferred, flush } from './helpers/settle-later.js';

/** A hook the test settles, keeping the context it was called with. */
function heldHook() {
  const { promise, resolve, reject } = deferred();
  const held: { context?: HookContext } = {};
  const hook = (context: HookContext): Promise<void> => {
    held.context = context;
    return promise;
  };
  return { hook, held, resolve, reject };
}

describe("a hook's signal (virtual time)", () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() }));
  afterEach(() => mock.timers.reset());

  async function tick(ms: number): Promise<void> {
    await flush();
    mock.timers.tick(ms);
    await flush();
  }

  it('read before the timeout, it aborts at timeoutMs and not before, with a reason naming the timeout', async () => {
    const h = heldHook();
    const call = callHook(h.hook, 1_000);
    const signal = h.held.context!.signal;
    const heard: unknown[] = [];
    signal.addEventListener('abort', () => heard.push(signal.reason));
    await tick(999);
    expect(signal.aborted).to.equal(false);
    await tick(1);
    expect(signal.aborted).to.equal(true);
    expect(heard).to.have.length(1);
    expect((heard[0] as Error).message).to.equal('the hook took longer than 1000 ms');
    h.resolve();
    expect(await call.verdict).to.deep.equal({ kind: 'resolved', late: true });
  });

  it('read first after the timeout, it is already aborted with the same reason, and every read gives the same signal', async () => {
    const h = heldHook();
    const call = callHook(h.hook, 1_000);
    await tick(1_000);
    const signal = h.held.context!.signal;
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as Error).message).to.equal('the hook took longer than 1000 ms');
    expect(h.held.context!.signal).to.equal(signal);
    expect({ ...h.held.context }.signal, 'a copy of the context carries the signal').to.equal(signal);
    expect(Object.keys(h.held.context!), 'the context is a plain { signal }').to.deep.equal(['signal']);
    h.reject(new Error('gave up'));
    const verdict = await call.verdict;
    expect(verdict).to.deep.include({ kind: 'rejected', late: true });
  });

  it('a hook that settled in time never finds its signal aborted, read then or long after', async () => {
    const h = heldHook();
    const call = callHook(h.hook, 1_000);
    h.resolve();
    expect(await call.verdict).to.deep.equal({ kind: 'resolved', late: false });
    await tick(5_000);
    expect(h.held.context!.signal.aborted).to.equal(false);
    const early = heldHook();
    const read = callHook(early.hook, 1_000);
    const signal = early.held.context!.signal;
    early.resolve();
    await read.verdict;
    await tick(5_000);
    expect(signal.aborted).to.equal(false);
  });

  it('unsettled a second timeoutMs after the abort, the verdict is hung; the hook settling later is still reported', async () => {
    const h = heldHook();
    const call = callHook(h.hook, 1_000);
    let verdict: unknown;
    void call.verdict.then((v) => (verdict = v));
    await tick(1_000);
    await tick(999);
    expect(verdict, 'not hung before 2 x timeoutMs').to.equal(undefined);
    await tick(1);
    expect(verdict).to.deep.equal({ kind: 'hung' });
    h.resolve();
    expect(await call.settled).to.deep.equal({ kind: 'resolved', late: true });
  });
});
