/**
 * Key-in's onApproved runs in the key-in client through the hook runner: `nicepay.keyin()`
 * without Express gets it, once per payment however slow it is, and a resubmission while it
 * runs is told it is in progress. Timers and Date are virtual (the store's expiry, the hook's
 * deadline and its lock's heartbeat follow the test's clock); the gateway is the sandbox over
 * real loopback HTTP.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { createNicepay, isNicepayError, memoryStore, NicepayError, type ApprovedKeyin, type KeyinInput, type Nicepay } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { kstParts } from '../src/wire/kst.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const FUTURE = (() => { const k = kstParts(new Date()); return `${String((k.year + 3) % 100).padStart(2, '0')}07`; })();

/** Lets pending I/O and promise reactions run (real turns of the event loop, no clock involved). */
async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** Moves the virtual clock on by `ms`, a second at a time, letting I/O run in between. */
async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 1_000) {
    mock.timers.tick(1_000);
    await flush();
  }
}

/** What a promise settled with, without letting a rejection go unhandled meanwhile. */
function settled<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return p.then((value) => ({ value }), (error: unknown) => ({ error }));
}

describe('key-in onApproved through the hook runner (virtual time)', () => {
  let sandbox: Sandbox;
  let url: string;
  let nicepay: Nicepay;
  let seq = 0;

  before(async () => {
    sandbox = createSandbox();
    ({ url } = await sandbox.listen(0));
  });
  after(() => sandbox.close());
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    // A store on the virtual clock; the client's own lock of a Moid was 2 x (1 s + 3 s + 10 s).
    nicepay = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: url, store: memoryStore({ now: () => Date.now() }), timeouts: { connectMs: 1_000, responseMs: 3_000 } });
  });
  afterEach(async () => {
    mock.timers.reset();
    await nicepay.close();
  });

  /** A hook that takes `runMs` of virtual time; `entered` resolves when it starts. */
  function slowHook(runMs: number) {
    const calls: ApprovedKeyin[] = [];
    let enter: () => void = () => undefined;
    const entered = new Promise<void>((r) => { enter = r; });
    const onApproved = (r: ApprovedKeyin): Promise<void> => {
      calls.push(r);
      enter();
      return new Promise<void>((resolve) => setTimeout(resolve, runMs));
    };
    return { calls, entered, onApproved };
  }

  const input = (onApproved: KeyinInput['onApproved'], moid: string): KeyinInput => ({
    moid, amount: 1004, goodsName: '테스트 상품', card: { number: '4111111111111111', expiry: FUTURE }, onApproved,
  });

  it('nicepay.keyin({ onApproved }) without Express: a 120 s hook runs once; a resubmission while it runs is NICEPAY_IN_PROGRESS', async () => {
    const hook = slowHook(120_000);
    const moid = `kh-${++seq}-${Date.now()}`;
    const first = settled(nicepay.keyin(input(hook.onApproved, moid)));
    await Promise.race([hook.entered, first]);
    expect(hook.calls, 'the client ran onApproved').to.have.length(1);
    // The hook's signal aborts at 30 s; still unsettled at 60 s, the call reports it.
    await advance(60_000);
    const firstOutcome = await first;
    expect(firstOutcome.error).to.include({ code: 'NICEPAY_HOOK_FAILED', tid: hook.calls[0]!.tid });
    // The buyer resubmits at 60 s, long after any fixed lock of the key-in: in progress.
    const second = settled(nicepay.keyin(input(hook.onApproved, moid)));
    await advance(32_000); // it waits up to hookTimeoutMs (30 s) for the running hook
    const secondOutcome = await second;
    expect(hook.calls, 'onApproved ran once').to.have.length(1);
    expect(secondOutcome.error).to.be.instanceOf(NicepayError);
    expect(secondOutcome.error).to.include({ code: 'NICEPAY_IN_PROGRESS', status: 409 });
    await advance(30_000); // 122 s: the hook resolved at 120 s
    const third = await nicepay.keyin(input(hook.onApproved, moid));
    expect(third).to.include({ status: 'approved', duplicate: true, tid: hook.calls[0]!.tid });
    expect(hook.calls).to.have.length(1);
    expect(sandbox.ledger.entries().filter((e) => e.moid === moid && e.status === 'approved')).to.have.length(1);
  });

  it('keyinRouter only adapts: a resubmitted form while the hook runs gets 409 NICEPAY_IN_PROGRESS, later 200 duplicate', async () => {
    const hook = slowHook(50_000);
    const app = express();
    app.use('/keyin', nicepay.keyinRouter({ expectedAmount: () => 1004, requireHttps: false, hookTimeoutMs: 10_000, onApproved: (r) => hook.onApproved(r) }));
    app.post('/keyin', (req, res) => void res.json({ status: req.keyin!.status, duplicate: req.keyin!.duplicate }));
    const onError: ErrorRequestHandler = (err, _req, res, _next) => void res.status((err as { status?: number }).status ?? 500).json(isNicepayError(err) ? err.toJSON() : {});
    app.use(onError);
    const moid = `kr-${++seq}-${Date.now()}`;
    const form = { moid, goodsName: 'goods', cardNumber: '4111111111111111', cardExpiry: FUTURE };
    const post = () => request(app).post('/keyin').type('json').send(form).then((r) => r);
    const first = post();
    await Promise.race([hook.entered, first]);
    await advance(20_000);
    expect((await first).body).to.include({ code: 'NICEPAY_HOOK_FAILED' });
    const resubmitted = post();
    await advance(12_000); // it waits up to hookTimeoutMs (10 s) for the running hook
    expect((await resubmitted).status).to.equal(409);
    expect((await resubmitted).body).to.include({ code: 'NICEPAY_IN_PROGRESS' });
    await advance(20_000); // the hook resolved at 50 s
    const later = await post();
    expect([later.status, later.body]).to.deep.equal([200, { status: 'approved', duplicate: true }]);
    expect(hook.calls).to.have.length(1);
  });
});
