/**
 * Settlement (src/pipeline/settle.ts): every operation that ends with an unknown outcome, a
 * failed reversal, or a hook that never finished is driven to a final state by one settle()
 * pass, with nobody asked to reconcile. Each case injects the fault on the operation's own call
 * and makes its immediate reversal fail too, then settles and checks that shop and gateway agree
 * on the TID: the gateway holds money only where the shop recorded it.
 */
import { expect } from 'chai';
import request from 'supertest';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  createNicepay,
  memoryStore,
  type Nicepay,
  NicepayConfigError,
  type PayMethod,
  SETTLE_CHANNEL,
  type SettleReport,
} from '../src/index.js';
import { createSandbox, type Fault, type Sandbox } from '../src/sandbox/index.js';
import type { LedgerStore } from '../src/store/types.js';
import { captureLogger } from './helpers/capture.js';
import { MERCHANT_KEY, MID, startShop, type TestShop } from './helpers/shop.js';

type FaultSpec = Omit<Fault, 'target'>;

/** Faults after which the gateway committed and the answer cannot be used. */
const COMMITTED_FAULTS: ReadonlyArray<{ name: string; fault: FaultSpec }> = [
  { name: 'HTTP 500', fault: { kind: 'status-500' } },
  { name: 'HTML error page', fault: { kind: 'html' } },
  { name: 'connection dropped', fault: { kind: 'drop' } },
  { name: 'truncated answer', fault: { kind: 'truncate' } },
  { name: 'bad signature', fault: { kind: 'bad-signature' } },
  { name: 'altered amount', fault: { kind: 'alter-amount' } },
];

/** The immediate reversal failing so that nothing is reversed: the payment stands until settled. */
const REVERSAL_FAILS: FaultSpec = { kind: 'status-500' };

/** The gateway holds money for this TID (approved, or an issued virtual account). */
function holdsMoney(sandbox: Sandbox, tid: string): boolean {
  const status = sandbox.ledger.get(tid)?.status;
  return status === 'approved' || status === 'awaiting-deposit';
}

describe('settle(): every fault of the matrix with a failing reversal ends with shop and gateway agreeing', function () {
  this.timeout(60_000);
  let shop: TestShop;
  before(async () => {
    shop = await startShop({
      nicepay: { settle: { intervalMs: 3_600_000, reconciliation: { usrId: `${MID}admin` } } },
    });
  });
  after(() => shop.close());

  /** One settle pass must close exactly this TID as `outcome`, leaving nothing open. */
  async function settledTo(tid: string, outcome: 'reversed' | 'never-charged' | 'kept'): Promise<SettleReport> {
    const report = await shop.nicepay.settle();
    expect(
      report.settled.filter((s) => s.tid === tid),
      JSON.stringify(report),
    ).to.have.length(1);
    expect(report.settled.find((s) => s.tid === tid)).to.include({ outcome });
    expect(report.unsettled.filter((u) => u.tid === tid)).to.deep.equal([]);
    return report;
  }

  for (const method of ['CARD', 'BANK', 'VBANK', 'CELLPHONE'] as PayMethod[]) {
    for (const { name, fault } of COMMITTED_FAULTS) {
      it(`approval (${method}), ${name}, net cancel failing: the shop is told it is being settled; settle() reverses it`, async () => {
        const moid = `settle-${method}-${fault.kind}`;
        shop.orders.set(moid, 10_000);
        const auth = await shop.sandbox.authenticate({ moid, amount: 10_000, method });
        shop.sandbox.faults.inject({ target: 'approve', ...fault });
        shop.sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
        const res = await request(shop.app)
          .post('/pay/return')
          .set('content-type', auth.contentType)
          .send(auth.body.toString('latin1'));
        expect(res.status).to.equal(502);
        expect(res.body.message ?? '').to.not.match(/reconcile/i);
        const tid = auth.fields.TxTid!;
        expect(holdsMoney(shop.sandbox, tid)).to.equal(true);
        expect((await shop.nicepay.unsettled()).map((u) => u.tid)).to.include(tid);
        await settledTo(tid, 'reversed');
        expect(holdsMoney(shop.sandbox, tid)).to.equal(false);
        expect(shop.approved.map((a) => a.tid)).to.not.include(tid);
        // A repeat is answered from the closed record: reversed, nothing sent.
        const calls = shop.sandbox.ledger.get(tid)!.approvalCalls;
        const again = await request(shop.app)
          .post('/pay/return')
          .set('content-type', auth.contentType)
          .send(auth.body.toString('latin1'));
        expect(again.body.code).to.be.oneOf([
          'NICEPAY_OUTCOME_UNKNOWN',
          'NICEPAY_ANSWER_UNVERIFIED',
          'NICEPAY_ANSWER_AMOUNT_MISMATCH',
        ]);
        expect(shop.sandbox.ledger.get(tid)!.approvalCalls).to.equal(calls);
      });
    }
  }

  it('approval lost before the gateway committed, net cancel failing: settle() finds nothing charged (never-charged)', async () => {
    shop.orders.set('settle-before-commit', 7_000);
    const auth = await shop.sandbox.authenticate({ moid: 'settle-before-commit', amount: 7_000, method: 'CARD' });
    shop.sandbox.faults.inject({ target: 'approve', kind: 'drop', commit: false });
    shop.sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.status).to.equal(502);
    await settledTo(auth.fields.TxTid!, 'never-charged');
    expect(holdsMoney(shop.sandbox, auth.fields.TxTid!)).to.equal(false);
  });

  for (const { name, fault } of COMMITTED_FAULTS) {
    it(`key-in, ${name}, net cancel failing: settle() reverses it; the Moid is answered from the closed record`, async () => {
      const moid = `settle-keyin-${fault.kind}`;
      shop.sandbox.faults.inject({ target: 'keyin', ...fault });
      shop.sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
      const card = { number: '4111111111111111', expiry: '3012' };
      const err = await shop.nicepay
        .keyin({ moid, amount: 12_000, goodsName: '키인', card })
        .catch((e: unknown) => e as { tid?: string; settlement?: string; outcomeUnknown?: boolean });
      expect(err).to.include({ settlement: 'pending', outcomeUnknown: true });
      const tid = err.tid!;
      expect(holdsMoney(shop.sandbox, tid)).to.equal(true);
      await settledTo(tid, 'reversed');
      expect(holdsMoney(shop.sandbox, tid)).to.equal(false);
      const again = await shop.nicepay
        .keyin({ moid, amount: 12_000, goodsName: '키인', card })
        .catch((e: unknown) => e);
      expect(again).to.include({ tid, settlement: 'reversed', outcomeUnknown: false });
      expect(shop.sandbox.ledger.byMoid(MID, moid)).to.have.length(1);
    });

    it(`billing charge, ${name}, net cancel failing: settle() reverses it`, async () => {
      const reg = await shop.nicepay.billing.register({
        moid: `reg-${fault.kind}`,
        card: { number: '4111111111111111', expYear: '30', expMonth: '12' },
      });
      if (reg.status !== 'registered') throw new Error('registration refused');
      shop.sandbox.faults.inject({ target: 'billing-charge', ...fault });
      shop.sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
      const err = await shop.nicepay.billing
        .charge({ bid: reg.bid, moid: `settle-bill-${fault.kind}`, amount: 9_900, goodsName: '구독' })
        .catch((e: unknown) => e as { tid?: string; settlement?: string });
      expect(err).to.include({ settlement: 'pending' });
      expect(holdsMoney(shop.sandbox, err.tid!)).to.equal(true);
      await settledTo(err.tid!, 'reversed');
      expect(holdsMoney(shop.sandbox, err.tid!)).to.equal(false);
    });
  }

  // A receipt's answer is unsigned and names no amount the sandbox could alter.
  for (const { name, fault } of COMMITTED_FAULTS.filter(
    (f) => f.fault.kind !== 'bad-signature' && f.fault.kind !== 'alter-amount',
  )) {
    it(`cash receipt, ${name}, its cancel failing: reconciliation finds it issued and settle() cancels it`, async () => {
      shop.sandbox.faults.inject({ target: 'cash-receipt', ...fault });
      // A plain cancel's fault processes the cancel unless told not to: this one does nothing.
      shop.sandbox.faults.inject({ target: 'cancel', ...REVERSAL_FAILS, commit: false });
      const err = (await shop.nicepay.cashReceipt
        .issue({
          moid: `settle-rcpt-${fault.kind}`,
          amount: 11_000,
          goodsName: '계좌이체',
          type: 'income-deduction',
          identity: '01012345678',
          supply: 10_000,
          vat: 1_000,
        })
        .catch((e: unknown) => e)) as { tid?: string; settlement?: string; message: string };
      expect(err).to.include({ settlement: 'pending' });
      expect(err.message).to.not.include('01012345678');
      expect(holdsMoney(shop.sandbox, err.tid!)).to.equal(true);
      await settledTo(err.tid!, 'reversed');
      expect(holdsMoney(shop.sandbox, err.tid!)).to.equal(false);
    });
  }

  it('a full cancel whose answer was lost is completed by sending it again: kept, and the gateway cancelled once', async () => {
    shop.orders.set('settle-cancel', 6_000);
    const auth = await shop.sandbox.authenticate({ moid: 'settle-cancel', amount: 6_000, method: 'CARD' });
    await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    const tid = auth.fields.TxTid!;
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'drop' });
    const err = await shop.nicepay
      .cancel({ tid, moid: 'settle-cancel', amount: 6_000, reason: '전체 환불' })
      .catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'pending' });
    await settledTo(tid, 'kept');
    expect((shop.sandbox.ledger.get(tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([6_000]);
  });

  it('a lost full cancel the gateway never did is not kept when another full cancel of the TID went through since: that one is the gateway\'s "already cancelled"', async () => {
    shop.orders.set('settle-cancel-twice', 6_000);
    const auth = await shop.sandbox.authenticate({ moid: 'settle-cancel-twice', amount: 6_000, method: 'CARD' });
    await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    const tid = auth.fields.TxTid!;
    // Cancel A: a 500 before the gateway cancels anything.
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
    const lost = await shop.nicepay
      .cancel({ tid, moid: 'settle-cancel-twice', amount: 6_000, reason: '전체 환불', idempotencyKey: 'A' })
      .catch((e: unknown) => e);
    expect(lost).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    // Cancel B, under another key (an operator's second try): the gateway cancels.
    const b = await shop.nicepay.cancel({
      tid,
      moid: 'settle-cancel-twice',
      amount: 6_000,
      reason: '전체 환불',
      idempotencyKey: 'B',
    });
    expect(b.status).to.equal('cancelled');
    const report = await shop.nicepay.settle();
    expect(
      report.settled.filter((x) => x.tid === tid).map((x) => x.outcome),
      JSON.stringify(report),
    ).to.deep.equal(['never-charged']);
    expect((shop.sandbox.ledger.get(tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([6_000]);
    const repeatA = await shop.nicepay
      .cancel({ tid, moid: 'settle-cancel-twice', amount: 6_000, reason: '전체 환불', idempotencyKey: 'A' })
      .catch((e: unknown) => e);
    expect(repeatA).to.not.include({ status: 'cancelled' });
  });

  it('a partial cancel whose answer was lost is not sent again (a later repeat may refund twice): it stays open, needing attention', async () => {
    shop.orders.set('settle-partial', 6_000);
    const auth = await shop.sandbox.authenticate({ moid: 'settle-partial', amount: 6_000, method: 'CARD' });
    await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    const tid = auth.fields.TxTid!;
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'drop' });
    const err = await shop.nicepay
      .cancel({ tid, moid: 'settle-partial', amount: 2_000, reason: '부분 환불', partial: true })
      .catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'pending' });
    const events: unknown[] = [];
    const listen = (m: unknown): void => void events.push(m);
    subscribe(SETTLE_CHANNEL, listen);
    const report = await shop.nicepay.settle().finally(() => unsubscribe(SETTLE_CHANNEL, listen));
    expect(report.settled.filter((s) => s.tid === tid)).to.deep.equal([]);
    expect(report.unsettled.find((u) => u.tid === tid)).to.include({
      operation: 'cancel',
      state: 'unknown',
      needsAttention: true,
    });
    // A shop that pages on the channel hears of it at once.
    expect(events.filter((e) => (e as { tid: string }).tid === tid))
      .to.have.length(1)
      .and.to.satisfy((e: Array<{ needsAttention: boolean }>) => e[0]!.needsAttention);
    expect(shop.captured.text()).to.include('a partial cancel whose outcome is unknown is not sent again');
    expect((shop.sandbox.ledger.get(tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([2_000]);
  });

  it("the settler's own calls failing (its status inquiry, its cancel) leave the record open, with when it is tried next", async () => {
    const card = { number: '4111111111111111', expiry: '3012' };
    shop.sandbox.faults.inject({ target: 'keyin', kind: 'status-500' });
    shop.sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
    const err = await shop.nicepay
      .keyin({ moid: 'settle-retry', amount: 3_000, goodsName: '키인', card })
      .catch((e: unknown) => e as { tid: string });
    shop.sandbox.faults.inject({ target: 'status', kind: 'html' });
    const first = await shop.nicepay.settle();
    const open = first.unsettled.find((u) => u.tid === err.tid)!;
    expect(open).to.include({ operation: 'keyin', attempts: 1, needsAttention: false });
    expect(open.nextAttemptAt.getTime()).to.be.greaterThan(Date.now());
    expect(holdsMoney(shop.sandbox, err.tid)).to.equal(true);
    // Not due yet: a pass now leaves it alone.
    expect((await shop.nicepay.settle()).settled.filter((s) => s.tid === err.tid)).to.deep.equal([]);
    expect(holdsMoney(shop.sandbox, err.tid)).to.equal(true);
  });
});

describe('settle(): time, attention and hooks', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  before(async () => {
    // These tests move the clock by hours from real time: the 23:30 KST test auto-cancel would
    // cancel their payments when the suite runs in the evening (KST).
    sandbox = createSandbox({ testAutoCancel: false });
    await sandbox.listen(0);
    // Time moves only when a test moves it: back-offs are measured exactly.
    sandbox.clock.freeze(true);
  });
  after(() => sandbox.close());

  /** A client on `store` whose clock is the sandbox's virtual one. */
  function client(store: LedgerStore, extra: Partial<Parameters<typeof createNicepay>[0]> = {}): Nicepay {
    return createNicepay({
      mid: MID,
      merchantKey: MERCHANT_KEY,
      baseUrl: sandbox.url,
      store,
      clock: () => sandbox.clock.now(),
      timeouts: { connectMs: 1_000, responseMs: 2_000 },
      settle: false,
      logger: captureLogger().logger,
      ...extra,
    });
  }

  it('backs off between attempts on the virtual clock and flags a record open past attentionAfterMs as needing attention, on the log and the channel', async () => {
    const captured = captureLogger();
    const nicepay = client(memoryStore(), { settle: { attentionAfterMs: 60 * 60_000 }, logger: captured.logger });
    try {
      sandbox.faults.inject({ target: 'keyin', kind: 'status-500' });
      sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
      const err = await nicepay
        .keyin({
          moid: 'attention-1',
          amount: 1_000,
          goodsName: '키인',
          card: { number: '4111111111111111', expiry: '3012' },
        })
        .catch((e: unknown) => e as { tid: string });
      sandbox.faults.inject({ target: 'status', kind: 'status-500', times: 10 });
      const seen: unknown[] = [];
      const onEvent = (m: unknown): void => void seen.push(m);
      subscribe('express-nicepay:settle', onEvent);
      try {
        const waits: number[] = [];
        for (let pass = 0; pass < 4; pass++) {
          const report = await nicepay.settle();
          const item = report.unsettled.find((u) => u.tid === err.tid)!;
          waits.push(item.nextAttemptAt.getTime() - sandbox.clock.now().getTime());
          sandbox.clock.advance(item.nextAttemptAt.getTime() - sandbox.clock.now().getTime());
        }
        expect(waits).to.deep.equal([30_000, 60_000, 120_000, 240_000]);
        sandbox.clock.advance(60 * 60_000);
        const late = await nicepay.settle();
        expect(late.unsettled.find((u) => u.tid === err.tid)).to.include({ needsAttention: true });
        expect(
          seen.some(
            (m) =>
              (m as { tid?: string; needsAttention?: boolean }).tid === err.tid &&
              (m as { needsAttention?: boolean }).needsAttention === true,
          ),
        ).to.equal(true);
        expect(captured.text()).to.include('needs attention');
        // The inquiry answers again, but the settler's cancel fails once: still open, then reversed.
        sandbox.faults.clear();
        sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
        sandbox.clock.advance(60 * 60_000);
        expect((await nicepay.settle()).unsettled.find((u) => u.tid === err.tid)).to.include({ state: 'reversing' });
        sandbox.clock.advance(60 * 60_000);
        const done = await nicepay.settle();
        expect(done.settled.find((s) => s.tid === err.tid)).to.include({ outcome: 'reversed' });
      } finally {
        unsubscribe('express-nicepay:settle', onEvent);
      }
    } finally {
      await nicepay.close();
    }
  });

  /**
   * Two instances on one store: `dying` charges through a charger named `name` (a billing
   * charger, or a key-in one with `keyin`) whose hook never resolves, then dies; once its lease
   * has run out, `survivor` (given to `prepare` first, to create what it has at start-up)
   * settles. Returns the charge's TID and the settle report.
   */
  async function chargeDiesInHook(
    name: string,
    moid: string,
    prepare: (survivor: Nicepay) => void,
    { keyin = false } = {},
  ): Promise<{ tid: string; survivor: Nicepay; settled: Awaited<ReturnType<Nicepay['settle']>>['settled'] }> {
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    const dying = client(store);
    const survivor = client(store);
    prepare(survivor);
    const card = { number: '4111111111111111', expYear: '30', expMonth: '12' };
    const hook = { name, onApproved: () => new Promise<void>(() => undefined), hookTimeoutMs: 50 };
    let charged: Promise<unknown>;
    type Refusal = { code?: string; tid?: string };
    if (keyin) {
      charged = dying.keyinCharger(hook)({
        moid,
        amount: 9_900,
        goodsName: '키인',
        card: { number: card.number, expiry: '3012' },
      });
    } else {
      const reg = await dying.billing.register({ moid: `reg-${moid}`, card });
      if (reg.status !== 'registered') throw new Error('registration refused');
      charged = dying.billing.charger(hook)({ bid: reg.bid, moid, amount: 9_900, goodsName: '구독' });
    }
    const err = (await charged.catch((e: unknown) => e)) as Refusal;
    expect(err).to.include({ code: 'NICEPAY_HOOK_FAILED' });
    expect(holdsMoney(sandbox, err.tid!)).to.equal(true);
    await dying.close().catch(() => undefined);
    now += 31_000;
    return { tid: err.tid!, survivor, settled: (await survivor.settle()).settled };
  }

  const chargers = [
    {
      what: 'a billing charge',
      operation: 'billing.charge',
      keyin: false,
      create: (s: Nicepay, name: string, onApproved: (r: { tid: string }) => void) =>
        void s.billing.charger({ name, onApproved }),
    },
    {
      what: 'a key-in',
      operation: 'keyin',
      keyin: true,
      create: (s: Nicepay, name: string, onApproved: (r: { tid: string }) => void) =>
        void s.keyinCharger({ name, onApproved }),
    },
  ];
  for (const { what, operation, keyin, create } of chargers) {
    it(`${what} whose process died inside a charger's onApproved: once its lease expires, settle() on another instance runs that charger's hook again and keeps it`, async () => {
      const recorded: string[] = [];
      const moid = `${operation}-charger-died`;
      // The survivor creates the same charger at start-up; its hook is the one settlement runs.
      const { tid, survivor, settled } = await chargeDiesInHook(
        'by-name',
        moid,
        (s) => create(s, 'by-name', (r) => void recorded.push(r.tid)),
        { keyin },
      );
      try {
        expect(settled).to.deep.include({ operation, mid: MID, tid, moid, amount: 9_900, outcome: 'kept' });
        expect(recorded).to.deep.equal([tid]);
        expect(holdsMoney(sandbox, tid)).to.equal(true);
        expect(await survivor.unsettled()).to.deep.equal([]);
      } finally {
        await survivor.close();
      }
    });
  }

  it('a hook run again by settlement that rejects while an earlier run may still be under way is tried again, not reversed: kept once it resolves', async () => {
    // The rerun waited on what the paused earlier run held, and rejected; next time it resolves.
    let runs = 0;
    const { tid, survivor } = await chargeDiesInHook(
      'rerun-waits',
      'rerun-rejects-once',
      (s) =>
        void s.keyinCharger({
          name: 'rerun-waits',
          onApproved: () => {
            runs++;
            if (runs === 1) throw new Error('row locked by the earlier run');
          },
        }),
      { keyin: true },
    );
    try {
      expect(runs).to.equal(1);
      expect((await survivor.unsettled()).find((u) => u.tid === tid)).to.include({ state: 'committed' });
      expect(holdsMoney(sandbox, tid)).to.equal(true);
      sandbox.clock.advance(31_000);
      const again = await survivor.settle();
      expect(again.settled).to.deep.include({
        operation: 'keyin',
        mid: MID,
        tid,
        moid: 'rerun-rejects-once',
        amount: 9_900,
        outcome: 'kept',
      });
      expect(runs).to.equal(2);
      expect(holdsMoney(sandbox, tid)).to.equal(true);
    } finally {
      await survivor.close();
    }
  });

  it('a hook run again that still rejects once no earlier run can be under way (a lease and twice its timeout after it first did) is reversed', async () => {
    const { tid, survivor } = await chargeDiesInHook(
      'rerun-refuses',
      'rerun-rejects-always',
      (s) =>
        void s.keyinCharger({
          name: 'rerun-refuses',
          onApproved: () => Promise.reject(new Error('this order was paid by another TID')),
        }),
      { keyin: true },
    );
    try {
      expect(holdsMoney(sandbox, tid)).to.equal(true);
      // Settlement runs a hook with a 30 s timeout: a lease and twice that after it first rejected.
      sandbox.clock.advance(60_000);
      const early = await survivor.settle();
      expect(early.unsettled.find((u) => u.tid === tid)).to.include({ state: 'committed' });
      expect(holdsMoney(sandbox, tid)).to.equal(true);
      // Its next attempt, one back-off later: past the window, the rejection stands.
      sandbox.clock.advance(61_000);
      const again = await survivor.settle();
      expect(again.settled.find((i) => i.tid === tid)).to.include({ outcome: 'reversed' });
      expect(holdsMoney(sandbox, tid)).to.equal(false);
    } finally {
      await survivor.close();
    }
  });

  it("a charger's hook runs only for its own operation's records: a key-in route of the same name on the settling instance is not run for a charge", async () => {
    const wrong: string[] = [];
    // The settling instance has a key-in route under that name, and no such charger.
    const { tid, survivor } = await chargeDiesInHook('shared', 'same-name', (s) =>
      s.keyinRouter({ name: 'shared', expectedAmount: () => 1, onApproved: (r) => void wrong.push(r.moid) }),
    );
    try {
      expect(wrong).to.deep.equal([]);
      expect(holdsMoney(sandbox, tid), 'left, kept, for an instance with that charger').to.equal(true);
    } finally {
      await survivor.close();
    }
  });

  it('a charger refuses a bad option or a name already taken when it is created, and a hook of the call own when it is called', async () => {
    const nicepay = client(memoryStore());
    try {
      expect(() => nicepay.keyinCharger({ onApproved: () => undefined } as never)).to.throw(/keyinCharger name/);
      nicepay.keyinCharger({ name: 'phone', onApproved: () => undefined });
      expect(() => nicepay.keyinCharger({ name: 'phone', onApproved: () => undefined })).to.throw(/phone/);
      const keyin = nicepay.keyinCharger({ name: 'phone-2', onApproved: () => undefined });
      const own = await keyin({
        moid: 'own-keyin-hook',
        amount: 1_000,
        goodsName: 'x',
        card: { number: '4111111111111111', expiry: '3012' },
        hookTimeoutMs: 10,
      } as never).catch((e: unknown) => e);
      expect(own).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'onApproved' });
      expect(sandbox.ledger.byMoid(MID, 'own-keyin-hook')).to.deep.equal([]);
      expect(() => nicepay.billing.charger({} as never)).to.throw(/billing.charger onApproved/);
      expect(() => nicepay.billing.charger({ name: 'x', onApproved: () => undefined, hookTimeoutMs: 0 })).to.throw(
        /billing.charger hookTimeoutMs/,
      );
      expect(() => nicepay.billing.charger({ onApproved: () => undefined } as never)).to.throw(/billing.charger name/);
      nicepay.billing.charger({ name: 'taken', onApproved: () => undefined });
      expect(() => nicepay.billing.charger({ name: 'taken', onApproved: () => undefined })).to.throw(/taken/);
      const charge = nicepay.billing.charger({ name: 'own-hook', onApproved: () => undefined });
      const err = await charge({
        bid: 'x'.repeat(30),
        moid: 'own-hook',
        amount: 1_000,
        goodsName: 'x',
        onApproved: () => undefined,
      } as never).catch((e: unknown) => e);
      expect(err).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'onApproved' });
      expect(sandbox.ledger.byMoid(MID, 'own-hook')).to.deep.equal([]);
    } finally {
      await nicepay.close();
    }
  });

  it("a payment whose process died inside onApproved: once its lease expires, settle() on another instance runs the route's hook again and keeps it", async () => {
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    const dying = client(store);
    const survivor = client(store);
    const recorded: string[] = [];
    try {
      const express = (await import('express')).default;
      const app = express();
      app.post(
        '/pay/return',
        dying.checkoutReturn({
          expectedAmount: () => 4_000,
          onApproved: () => new Promise<void>(() => undefined),
          hookTimeoutMs: 50,
        }),
        (_req, res) => void res.end(),
      );
      app.use(
        ((err, _req, res, _next) =>
          void res.status((err as { status: number }).status).end()) as import('express').ErrorRequestHandler,
      );
      // The survivor mounts the same route; its onApproved is the one settlement runs again.
      survivor.checkoutReturn({
        expectedAmount: () => 4_000,
        onApproved: (r, req) => void recorded.push(`${r.tid}:${req === undefined ? 'settler' : 'request'}`),
      });
      const auth = await sandbox.authenticate({ moid: 'died-in-hook', amount: 4_000, method: 'CARD' });
      const res = await request(app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(res.status).to.equal(500);
      const tid = auth.fields.TxTid!;
      expect(holdsMoney(sandbox, tid)).to.equal(true);
      // The dying process stops renewing its lease; 30 s later it has run out.
      await (dying as unknown as { close(): Promise<void> }).close().catch(() => undefined);
      now += 31_000;
      const report = await survivor.settle();
      expect(report.settled).to.deep.include({
        operation: 'approval',
        mid: MID,
        tid,
        moid: 'died-in-hook',
        amount: 4_000,
        outcome: 'kept',
      });
      expect(recorded).to.deep.equal([`${tid}:settler`]);
      expect(holdsMoney(sandbox, tid)).to.equal(true);
    } finally {
      await survivor.close();
    }
  });

  it('settlement runs the hook of the route that made the payment, by the name its record carries; an instance without that route leaves it open for one that has it', async () => {
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    const dying = client(store);
    const other = client(store);
    const survivor = client(store);
    const ran: string[] = [];
    try {
      const express = (await import('express')).default;
      const app = express();
      app.post(
        '/shop/return',
        dying.checkoutReturn({
          name: 'shop',
          expectedAmount: () => 4_000,
          onApproved: () => new Promise<void>(() => undefined),
          hookTimeoutMs: 50,
        }),
        (_req, res) => void res.end(),
      );
      app.use(
        ((err, _req, res, _next) =>
          void res.status((err as { status: number }).status).end()) as import('express').ErrorRequestHandler,
      );
      // Another instance has only the subscription route; the survivor has both, the subscription one first.
      other.checkoutReturn({
        name: 'subscribe',
        expectedAmount: () => 4_000,
        onApproved: (r) => void ran.push(`subscribe:${r.tid}`),
      });
      survivor.checkoutReturn({
        name: 'subscribe',
        expectedAmount: () => 4_000,
        onApproved: (r) => void ran.push(`subscribe:${r.tid}`),
      });
      survivor.checkoutReturn({
        name: 'shop',
        expectedAmount: () => 4_000,
        onApproved: (r) => void ran.push(`shop:${r.tid}`),
      });
      const auth = await sandbox.authenticate({ moid: 'named-route', amount: 4_000, method: 'CARD' });
      expect(
        (
          await request(app)
            .post('/shop/return')
            .set('content-type', auth.contentType)
            .send(auth.body.toString('latin1'))
        ).status,
      ).to.equal(500);
      const tid = auth.fields.TxTid!;
      await dying.close().catch(() => undefined);
      now += 31_000;
      const elsewhere = await other.settle();
      expect(elsewhere.settled).to.deep.equal([]);
      expect(elsewhere.unsettled.find((u) => u.tid === tid)).to.include({ state: 'committed' });
      expect(ran).to.deep.equal([]);
      sandbox.clock.advance(60 * 60_000);
      now += 60 * 60_000;
      const report = await survivor.settle();
      expect(report.settled).to.deep.include({
        operation: 'approval',
        mid: MID,
        tid,
        moid: 'named-route',
        amount: 4_000,
        outcome: 'kept',
      });
      expect(ran).to.deep.equal([`shop:${tid}`]);
    } finally {
      await other.close();
      await survivor.close();
    }
  });

  it("a route hook name already registered, a second unnamed route with a hook, and a name with '#' are refused when the route is created", () => {
    const nicepay = client(memoryStore());
    const hook = (): void => undefined;
    nicepay.checkoutReturn({ expectedAmount: () => 1, onApproved: hook });
    // Numbered by creation order, a deploy that reorders routes would run one's hook for another's payments.
    expect(() => nicepay.checkoutReturn({ expectedAmount: () => 1, onApproved: hook })).to.throw(
      /another approval route with onApproved has no name/,
    );
    // An unnamed route of another operation, or without a hook, is its own.
    nicepay.keyinRouter({ expectedAmount: () => 1, onApproved: hook });
    nicepay.checkoutReturn({ expectedAmount: () => 1 });
    nicepay.checkoutReturn({ name: 'shop', expectedAmount: () => 1, onApproved: hook });
    expect(() => nicepay.checkoutReturn({ name: 'shop', expectedAmount: () => 1, onApproved: hook })).to.throw(
      /another route's hook is registered as 'shop'/,
    );
    expect(() => nicepay.keyinRouter({ name: 'shop', expectedAmount: () => 1, onApproved: hook })).to.throw(
      /another route's hook is registered as 'shop'/,
    );
    expect(() => nicepay.checkoutReturn({ name: 'approval#1', expectedAmount: () => 1, onApproved: hook })).to.throw(
      NicepayConfigError,
    );
    return nicepay.close();
  });

  it('a key-in record left in `sending` by a process that died before any answer: with no hook to record it, settle() reverses it', async () => {
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    const nicepay = client(store);
    try {
      // A key-in the gateway committed, made by a client whose process then died: its store
      // is gone, and the record it had written before sending is all the survivor has.
      const elsewhere = client(memoryStore());
      const made = await elsewhere.keyin({
        moid: 'died-sending',
        amount: 2_500,
        goodsName: '키인',
        card: { number: '4111111111111111', expiry: '3012' },
      });
      await elsewhere.close();
      expect(made.status).to.equal('approved');
      const got = await store.acquire(`keyin:${MID}:died-sending`, 30_000, {
        value: JSON.stringify({
          v: 1,
          op: 'keyin',
          state: 'sending',
          mid: MID,
          tid: made.tid,
          moid: 'died-sending',
          amount: 2_500,
          binding: 'x',
          hook: 'none',
          data: {},
          at: sandbox.clock.now().getTime(),
          attempts: 0,
        }),
        open: true,
        dueAt: 0,
      });
      expect(got.state).to.equal('acquired');
      now += 30_001; // the dead process's lease runs out
      const report = await nicepay.settle();
      expect(report.settled).to.deep.include({
        operation: 'keyin',
        mid: MID,
        tid: made.tid,
        moid: 'died-sending',
        amount: 2_500,
        outcome: 'reversed',
      });
      expect(holdsMoney(sandbox, made.tid)).to.equal(false);
    } finally {
      await nicepay.close();
    }
  });

  it('a cancel left `sending` by a process that died, whose resend cannot be sent, stays open: nothing says the first one did not take effect', async () => {
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    const made = await (async () => {
      const elsewhere = client(memoryStore());
      try {
        return await elsewhere.keyin({
          moid: 'cancel-died',
          amount: 3_000,
          goodsName: '키인',
          card: { number: '4111111111111111', expiry: '3012' },
        });
      } finally {
        await elsewhere.close();
      }
    })();
    if (made.status !== 'approved') throw new Error('not approved');
    const data = { reason: '환불', partial: '0', key: 'k1', cancelMoid: 'Ccanceldied' };
    const got = await store.acquire(`cancel:${MID}:${made.tid}:3000:k1`, 30_000, {
      value: JSON.stringify({
        v: 1,
        op: 'cancel',
        state: 'sending',
        mid: MID,
        tid: made.tid,
        moid: 'cancel-died',
        amount: 3_000,
        binding: 'x',
        hook: 'none',
        data,
        at: sandbox.clock.now().getTime(),
        attempts: 0,
      }),
      open: true,
      dueAt: 0,
    });
    expect(got.state).to.equal('acquired');
    now += 30_001;
    // The survivor cannot reach the gateway: its resend is never sent.
    const cut = createNicepay({
      mid: MID,
      merchantKey: MERCHANT_KEY,
      baseUrl: 'http://127.0.0.1:1',
      store,
      clock: () => sandbox.clock.now(),
      timeouts: { connectMs: 1_000, responseMs: 2_000 },
      settle: false,
      logger: captureLogger().logger,
    });
    try {
      const report = await cut.settle();
      expect(report.settled).to.deep.equal([]);
      expect(report.unsettled.map((u) => ({ tid: u.tid, operation: u.operation, state: u.state }))).to.deep.equal([
        { tid: made.tid, operation: 'cancel', state: 'unknown' },
      ]);
    } finally {
      await cut.close();
    }
    // Once it can be sent, it completes: kept, and the gateway cancelled once.
    sandbox.clock.advance(60 * 60_000);
    const nicepay = client(store);
    try {
      const report = await nicepay.settle();
      expect(report.settled).to.deep.equal([
        { operation: 'cancel', mid: MID, tid: made.tid, moid: 'cancel-died', amount: 3_000, outcome: 'kept' },
      ]);
      expect((sandbox.ledger.get(made.tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([3_000]);
    } finally {
      await nicepay.close();
    }
  });

  it('a hook that never settles keeps its record leased: settle() leaves it to the hook, lists it, and the late resolution records the payment', async () => {
    const store = memoryStore();
    const nicepay = client(store);
    let finish!: () => void;
    try {
      const result = await nicepay
        .keyin({
          moid: 'hung-hook',
          amount: 1_500,
          goodsName: '키인',
          card: { number: '4111111111111111', expiry: '3012' },
          hookTimeoutMs: 20,
          onApproved: () => new Promise<void>((r) => (finish = r)),
        })
        .catch((e: unknown) => e as { tid: string; code: string });
      expect(result).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted' });
      const report = await nicepay.settle();
      expect(report.settled.filter((s) => s.tid === result.tid)).to.deep.equal([]);
      expect(report.unsettled.find((u) => u.tid === result.tid)).to.include({ state: 'committed' });
      finish();
      for (let i = 0; i < 20 && (await nicepay.unsettled()).length > 0; i++) await new Promise((r) => setImmediate(r));
      expect(await nicepay.unsettled()).to.deep.equal([]);
      expect(JSON.parse((await store.get(`keyin:${MID}:hung-hook`))!.value)).to.include({
        state: 'recorded',
        hook: 'resolved',
      });
      expect(holdsMoney(sandbox, result.tid)).to.equal(true);
    } finally {
      await nicepay.close();
    }
  });
  it('a cash receipt lost before the gateway issued it, which reconciliation does not list: settlement cancels it, the gateway knows no such transaction, and it is never-charged', async () => {
    const nicepay = client(memoryStore(), { settle: { reconciliation: { usrId: `${MID}admin` } } });
    try {
      sandbox.faults.inject({ target: 'cash-receipt', kind: 'drop', commit: false });
      sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false });
      const err = (await nicepay.cashReceipt
        .issue({
          moid: 'rcpt-never',
          amount: 11_000,
          goodsName: '계좌이체',
          type: 'income-deduction',
          identity: '01012345678',
          supply: 10_000,
          vat: 1_000,
        })
        .catch((e: unknown) => e)) as { tid: string; settlement?: string };
      expect(err).to.include({ settlement: 'pending' });
      expect(sandbox.ledger.get(err.tid)).to.equal(undefined);
      const done = await nicepay.settle();
      expect(done).to.deep.equal({
        settled: [
          {
            operation: 'cash-receipt',
            mid: MID,
            tid: err.tid,
            moid: 'rcpt-never',
            amount: 11_000,
            outcome: 'never-charged',
          },
        ],
        unsettled: [],
      });
      expect(sandbox.ledger.get(err.tid)).to.equal(undefined);
    } finally {
      await nicepay.close();
    }
  });

  it('runs a pass on its interval and settles what is due, announcing it on the express-nicepay:settle channel', async () => {
    const sandbox = createSandbox();
    await sandbox.listen(0);
    const captured = captureLogger();
    const nicepay = createNicepay({
      mid: MID,
      merchantKey: MERCHANT_KEY,
      baseUrl: sandbox.url,
      settle: { intervalMs: 20 },
      logger: captured.logger,
      timeouts: { connectMs: 1_000, responseMs: 2_000 },
    });
    try {
      sandbox.faults.inject({ target: 'keyin', kind: 'drop' });
      sandbox.faults.inject({ target: 'net-cancel', ...REVERSAL_FAILS });
      const err = await nicepay
        .keyin({
          moid: 'auto-settle',
          amount: 1_000,
          goodsName: '키인',
          card: { number: '4111111111111111', expiry: '3012' },
        })
        .catch((e: unknown) => e as { tid: string });
      expect(holdsMoney(sandbox, err.tid)).to.equal(true);
      await new Promise<void>((resolve) => {
        const onEvent = (m: unknown): void => {
          if ((m as { tid?: string }).tid !== err.tid) return;
          unsubscribe(SETTLE_CHANNEL, onEvent);
          resolve();
        };
        subscribe(SETTLE_CHANNEL, onEvent);
      });
      expect(holdsMoney(sandbox, err.tid)).to.equal(false);
      expect(await nicepay.unsettled()).to.deep.equal([]);
    } finally {
      await nicepay.close();
      await sandbox.close();
    }
  });
});
