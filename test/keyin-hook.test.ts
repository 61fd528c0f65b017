/**
 * Key-in's onApproved runs in the key-in client under its ledger record's lease: `nicepay.keyin()`
 * without Express gets it, once per payment however slow it is. A hook that never settles leaves
 * the record committed with its hook hung, leased until it settles; a resubmission meanwhile is
 * answered at once with HOOK_FAILED (not reversed, settlement pending), without a gateway call.
 * Timers and Date are virtual (the store's expiry, the hook's deadline and its lease's heartbeat
 * follow the test's clock); the gateway is the sandbox over real loopback HTTP.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import {
  createNicepay,
  isNicepayError,
  memoryStore,
  NicepayError,
  type ApprovedKeyin,
  type KeyinInput,
  type Nicepay,
} from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { kstParts } from '../src/wire/kst.js';
import { captureLogger, type Captured } from './helpers/capture.js';
import { ledgerRecord } from './helpers/ledger-store.js';
import { flush } from './helpers/settle-later.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const FUTURE = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();

/** Lets pending I/O and promise reactions run (real turns of the event loop, no clock involved). */
/** Moves the virtual clock on by `ms`, a second at a time, letting I/O run in between. */
async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 1_000) {
    mock.timers.tick(1_000);
    await flush();
  }
}

/** What a promise settled with, without letting a rejection go unhandled meanwhile. */
function settled<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe('key-in onApproved through the hook runner (virtual time)', () => {
  let sandbox: Sandbox;
  let url: string;
  let nicepay: Nicepay;
  let store: ReturnType<typeof memoryStore>;
  let log: Captured;
  let seq = 0;
  /** Key-in requests this client sent to the gateway (one log line per call). */
  const keyinCalls = (): number => log.lines.filter((l) => JSON.parse(l).operation === 'keyin').length;

  before(async () => {
    sandbox = createSandbox();
    ({ url } = await sandbox.listen(0));
  });
  after(() => sandbox.close());
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    // A store on the virtual clock; no automatic settler (nothing but the requests moves a record).
    store = memoryStore({ now: () => Date.now() });
    log = captureLogger();
    nicepay = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: url,
      store,
      logger: log.logger,
      settle: false,
      timeouts: { connectMs: 1_000, responseMs: 3_000 },
    });
  });
  afterEach(async () => {
    mock.timers.reset();
    await nicepay.close();
  });

  /** A hook that takes `runMs` of virtual time; `entered` resolves when it starts. */
  function slowHook(runMs: number) {
    const calls: ApprovedKeyin[] = [];
    let enter: () => void = () => undefined;
    const entered = new Promise<void>((r) => {
      enter = r;
    });
    const onApproved = (r: ApprovedKeyin): Promise<void> => {
      calls.push(r);
      enter();
      return new Promise<void>((resolve) => setTimeout(resolve, runMs));
    };
    return { calls, entered, onApproved };
  }

  const input = (onApproved: KeyinInput['onApproved'], moid: string): KeyinInput => ({
    moid,
    amount: 1004,
    goodsName: '테스트 상품',
    card: { number: '4111111111111111', expiry: FUTURE },
    onApproved,
  });

  it('nicepay.keyin({ onApproved }) without Express: a 120 s hook runs once; a resubmission while it runs is answered at once with HOOK_FAILED, not reversed, without a gateway call', async () => {
    const hook = slowHook(120_000);
    const moid = `kh-${++seq}-${Date.now()}`;
    const first = settled(nicepay.keyin(input(hook.onApproved, moid)));
    await Promise.race([hook.entered, first]);
    expect(hook.calls, 'the client ran onApproved').to.have.length(1);
    // The hook's signal aborts at 30 s; still unsettled at 60 s, the call reports it.
    await advance(60_000);
    const firstOutcome = await first;
    expect(firstOutcome.error).to.include({
      code: 'NICEPAY_HOOK_FAILED',
      tid: hook.calls[0]!.tid,
      netCancel: 'not-attempted',
      settlement: 'pending',
    });
    const key = `keyin:${MID}:${moid}`;
    expect(await ledgerRecord(store, key)).to.include({ state: 'committed', hook: 'hung' });
    expect((await store.acquire(key, 1_000)).state, 'still leased by the running hook').to.equal('busy');
    // The buyer resubmits at 60 s: the record says the hook is running; no time passes for the answer.
    const calls = keyinCalls();
    expect(calls, 'the first key-in was logged as a gateway call').to.equal(1);
    const secondOutcome = await settled(nicepay.keyin(input(hook.onApproved, moid)));
    expect(secondOutcome.error).to.be.instanceOf(NicepayError);
    expect(secondOutcome.error).to.include({
      code: 'NICEPAY_HOOK_FAILED',
      netCancel: 'not-attempted',
      settlement: 'pending',
      outcomeUnknown: true,
      tid: hook.calls[0]!.tid,
    });
    expect(keyinCalls(), 'no gateway call for the resubmission').to.equal(calls);
    expect(hook.calls, 'onApproved ran once').to.have.length(1);
    await advance(62_000); // 122 s: the hook resolved at 120 s
    expect(await ledgerRecord(store, key)).to.include({ state: 'recorded', hook: 'resolved' });
    const third = await nicepay.keyin(input(hook.onApproved, moid));
    expect(third).to.include({ status: 'approved', duplicate: true, tid: hook.calls[0]!.tid });
    expect(hook.calls).to.have.length(1);
    expect(sandbox.ledger.entries().filter((e) => e.moid === moid && e.status === 'approved')).to.have.length(1);
  });

  it('keyinRouter only adapts: a resubmitted form while the hook runs gets 500 HOOK_FAILED at once, later 200 duplicate', async () => {
    const hook = slowHook(50_000);
    const app = express();
    app.use(
      '/keyin',
      nicepay.keyinRouter({
        expectedAmount: () => 1004,
        requireHttps: false,
        hookTimeoutMs: 10_000,
        onApproved: (r) => hook.onApproved(r),
      }),
    );
    app.post('/keyin', (req, res) => void res.json({ status: req.keyin!.status, duplicate: req.keyin!.duplicate }));
    const onError: ErrorRequestHandler = (err, _req, res, _next) =>
      void res.status((err as { status?: number }).status ?? 500).json(isNicepayError(err) ? err.toJSON() : {});
    app.use(onError);
    const moid = `kr-${++seq}-${Date.now()}`;
    const form = { moid, goodsName: 'goods', cardNumber: '4111111111111111', cardExpiry: FUTURE };
    const post = () =>
      request(app)
        .post('/keyin')
        .type('json')
        .send(form)
        .then((r) => r);
    const first = post();
    await Promise.race([hook.entered, first]);
    await advance(20_000);
    expect((await first).body).to.include({ code: 'NICEPAY_HOOK_FAILED' });
    const calls = keyinCalls();
    expect(calls).to.equal(1);
    const resubmitted = await post(); // no virtual time passes
    expect(resubmitted.status).to.equal(500);
    expect(resubmitted.body).to.include({
      code: 'NICEPAY_HOOK_FAILED',
      netCancel: 'not-attempted',
      settlement: 'pending',
    });
    expect(keyinCalls()).to.equal(calls);
    await advance(32_000); // the hook resolved at 50 s
    const later = await post();
    expect([later.status, later.body]).to.deep.equal([200, { status: 'approved', duplicate: true }]);
    expect(hook.calls).to.have.length(1);
  });
});
