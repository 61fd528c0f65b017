/**
 * Fault matrix: every sandbox fault x the four window methods for approval, the net cancel
 * itself failing, and the same faults for card key-in (net-cancelled with the cancel form).
 * Each case asserts its defined outcome; the last test runs one settlement pass and checks the
 * invariant between the gateway's ledger and the shop's records, with no exception left: every
 * payment committed at the gateway is one the shop recorded (onApproved, an approved key-in),
 * and nothing the shop recorded is missing at the gateway.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createNicepay, type KeyinResult, type Nicepay, type PayMethod } from '../src/index.js';
import { kstParts } from '../src/wire/kst.js';
import { TEST_MERCHANTS, type Fault } from '../src/sandbox/index.js';
import { captureLogger } from './helpers/capture.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';
import { startShop, type TestShop } from './helpers/shop.js';

const METHODS: readonly PayMethod[] = ['CARD', 'BANK', 'VBANK', 'CELLPHONE'];
/**
 * Client timeouts generous enough for a loaded machine. The delay cases do not wait for them:
 * pastClientDeadline fakes the time past the deadline once the sandbox stalls, and the sandbox
 * answer (LATE_MS) never comes within that.
 */
const TIMEOUTS = { connectMs: 5_000, responseMs: 5_000 };
const LATE_MS = 600_000;
/** The key-in test merchant. */
const DATA_MID = 'nictest04m';
const DATA_KEY = TEST_MERCHANTS.find((m) => m.mid === DATA_MID)!.merchantKey;

interface GatewayErrorShape {
  code: string;
  tid?: string;
  netCancel?: string;
  settlement?: string;
  outcomeUnknown?: boolean;
  message: string;
}

/** What a case must end in. `ledger` is the gateway's status for the TID afterwards. */
interface Expect {
  code: string;
  netCancel: 'succeeded' | 'failed';
  outcomeUnknown: boolean;
  ledger: 'net-cancelled' | 'committed';
}

type FaultSpec = Omit<Fault, 'target'>;

/** Approval faults whose net cancel succeeds: the gateway keeps nothing. */
const APPROVAL_FAULTS: ReadonlyArray<{ name: string; fault: FaultSpec; code: string }> = [
  {
    name: 'timeout after commit (delay, commit)',
    fault: { kind: 'delay', delayMs: LATE_MS, commit: true },
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  {
    name: 'timeout before commit (delay, no commit)',
    fault: { kind: 'delay', delayMs: LATE_MS, commit: false },
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  { name: 'connection reset after commit (drop)', fault: { kind: 'drop' }, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  {
    name: 'connection reset before commit (drop, no commit)',
    fault: { kind: 'drop', commit: false },
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  { name: 'HTTP 500', fault: { kind: 'status-500' }, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  { name: 'HTML error page', fault: { kind: 'html' }, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  { name: 'truncated JSON', fault: { kind: 'truncate' }, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  { name: 'bad signature', fault: { kind: 'bad-signature' }, code: 'NICEPAY_ANSWER_UNVERIFIED' },
  {
    name: 'altered amount (consistently signed)',
    fault: { kind: 'alter-amount' },
    code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH',
  },
];

/**
 * The net cancel itself failing, after an approval whose answer was lost (drop, committed).
 * status-500 / html process nothing: the payment stands. delay / drop / truncate /
 * bad-signature cancel at the gateway but the client cannot confirm it; so does alter-amount
 * (a consistently signed 2001 for another CancelAmt is not a confirmation of this reversal).
 */
const NET_CANCEL_FAULTS: ReadonlyArray<{ fault: FaultSpec; expect: Omit<Expect, 'code'> }> = [
  { fault: { kind: 'status-500' }, expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'committed' } },
  { fault: { kind: 'html' }, expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'committed' } },
  {
    fault: { kind: 'delay', delayMs: LATE_MS },
    expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'net-cancelled' },
  },
  {
    fault: { kind: 'delay', delayMs: LATE_MS, commit: false },
    expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'committed' },
  },
  { fault: { kind: 'drop' }, expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'net-cancelled' } },
  { fault: { kind: 'truncate' }, expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'net-cancelled' } },
  { fault: { kind: 'bad-signature' }, expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'net-cancelled' } },
  { fault: { kind: 'alter-amount' }, expect: { netCancel: 'failed', outcomeUnknown: true, ledger: 'net-cancelled' } },
];

/**
 * Key-in faults. A charge the gateway booked is net-cancelled at once (the cancel form with
 * NetCancel=1): reversed. One it never booked cannot be net-cancelled (the sandbox refuses a
 * net cancel of a TID it does not know), so it stays pending until settlement.
 */
const KEYIN_FAULTS: ReadonlyArray<{ name: string; fault: FaultSpec; booked: boolean; code: string }> = [
  {
    name: 'timeout after commit (delay, commit)',
    fault: { kind: 'delay', delayMs: LATE_MS, commit: true },
    booked: true,
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  {
    name: 'timeout before commit (delay, no commit)',
    fault: { kind: 'delay', delayMs: LATE_MS, commit: false },
    booked: false,
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  { name: 'connection reset (drop)', fault: { kind: 'drop' }, booked: true, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  {
    name: 'connection reset before commit (drop, no commit)',
    fault: { kind: 'drop', commit: false },
    booked: false,
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  { name: 'HTTP 500', fault: { kind: 'status-500' }, booked: true, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  { name: 'HTML error page', fault: { kind: 'html' }, booked: true, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  { name: 'truncated JSON', fault: { kind: 'truncate' }, booked: true, code: 'NICEPAY_OUTCOME_UNKNOWN' },
  {
    name: 'bad signature (sandbox answers an error page)',
    fault: { kind: 'bad-signature' },
    booked: true,
    code: 'NICEPAY_OUTCOME_UNKNOWN',
  },
  { name: 'altered amount', fault: { kind: 'alter-amount' }, booked: true, code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH' },
];

const FUTURE_EXPIRY = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();

describe('fault matrix: sandbox faults x methods, approval and key-in, ledger agrees with the shop', function () {
  this.timeout(60_000);
  let shop: TestShop;
  let keyin: Nicepay;
  const keyinLog = captureLogger();
  /** TIDs the shop was told are being settled (outcome unknown, settlement pending). */
  const unknownTids = new Set<string>();
  /** TIDs the shop recorded as paid: onApproved (window) and approved key-in results. */
  const keyinApproved: string[] = [];
  const outcomes: string[] = [];
  let seq = 0;

  before(async () => {
    // No automatic settler: the last test settles, once every case has run.
    shop = await startShop({ nicepay: { timeouts: TIMEOUTS, settle: false } });
    keyin = createNicepay({
      mid: DATA_MID,
      merchantKey: DATA_KEY,
      baseUrl: shop.sandbox.url,
      logger: keyinLog.logger,
      timeouts: TIMEOUTS,
      settle: false,
    });
  });
  afterEach(() => {
    expect(shop.sandbox.faults.pending(), 'every injected fault was used').to.deep.equal([]);
    shop.sandbox.faults.clear();
  });
  after(async () => {
    await keyin?.close();
    await shop?.close();
  });

  async function pay(method: PayMethod, faults: Array<Fault>) {
    const moid = `fm-${method}-${++seq}`;
    const amount = 1_000 + seq;
    shop.orders.set(moid, amount);
    const auth = await shop.sandbox.authenticate({ moid, amount, method });
    for (const f of faults) shop.sandbox.faults.inject(f);
    const before = shop.errors.length;
    const post = async () =>
      request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    const res = faults.some((f) => f.kind === 'delay') ? await pastClientDeadline(shop.sandbox, post) : await post();
    const err = shop.errors.length > before ? (shop.errors.at(-1) as GatewayErrorShape) : undefined;
    if (err?.outcomeUnknown && err.tid) unknownTids.add(err.tid);
    return { res, tid: auth.fields.TxTid!, err };
  }

  function expectOutcome(r: Awaited<ReturnType<typeof pay>>, e: Expect): void {
    expect(r.res.status, JSON.stringify(r.res.body)).to.equal(502);
    expect(r.res.body.code).to.equal(e.code);
    expect(r.res.body.netCancel).to.equal(e.netCancel);
    expect(r.err).to.include({
      code: e.code,
      tid: r.tid,
      netCancel: e.netCancel,
      settlement: e.outcomeUnknown ? 'pending' : 'reversed',
      outcomeUnknown: e.outcomeUnknown,
    });
    if (e.outcomeUnknown) expect(r.err!.message).to.include(r.tid);
    const entry = shop.sandbox.ledger.get(r.tid)!;
    expect(entry.approvalCalls).to.equal(1);
    const committed = entry.status === 'approved' || entry.status === 'awaiting-deposit';
    expect(committed ? 'committed' : entry.status).to.equal(e.ledger);
    expect(shop.approved.some((a) => a.tid === r.tid)).to.equal(false);
    outcomes.push(`${e.code}/${e.netCancel}/${e.outcomeUnknown}/${e.ledger}`);
  }

  for (const method of METHODS) {
    describe(`approval, ${method}`, () => {
      it('no fault: approved (or awaiting deposit) and recorded once by onApproved', async () => {
        const r = await pay(method, []);
        expect(r.res.status).to.equal(200);
        expect(r.res.body.status).to.equal(method === 'VBANK' ? 'awaiting-deposit' : 'approved');
        expect(shop.approved.filter((a) => a.tid === r.tid)).to.have.length(1);
      });

      for (const c of APPROVAL_FAULTS) {
        it(`${c.name}: ${c.code}, net cancel succeeded, the gateway keeps nothing`, async () => {
          const r = await pay(method, [{ target: 'approve', ...c.fault }]);
          expectOutcome(r, { code: c.code, netCancel: 'succeeded', outcomeUnknown: false, ledger: 'net-cancelled' });
        });
      }

      for (const c of NET_CANCEL_FAULTS) {
        const label = `${c.fault.kind}${c.fault.commit === false ? ' (no commit)' : ''}`;
        it(`net cancel fails with ${label}: netCancel ${c.expect.netCancel}, outcomeUnknown ${c.expect.outcomeUnknown}, ledger ${c.expect.ledger}`, async () => {
          const r = await pay(method, [
            { target: 'approve', kind: 'drop' },
            { target: 'net-cancel', ...c.fault },
          ]);
          expectOutcome(r, { code: 'NICEPAY_OUTCOME_UNKNOWN', ...c.expect });
        });
      }

      it('net cancel fails after a bad signature: NICEPAY_ANSWER_UNVERIFIED, outcome unknown, being settled', async () => {
        const r = await pay(method, [
          { target: 'approve', kind: 'bad-signature' },
          { target: 'net-cancel', kind: 'status-500' },
        ]);
        expectOutcome(r, {
          code: 'NICEPAY_ANSWER_UNVERIFIED',
          netCancel: 'failed',
          outcomeUnknown: true,
          ledger: 'committed',
        });
      });

      it('net cancel fails after an altered amount: NICEPAY_ANSWER_AMOUNT_MISMATCH, outcome unknown', async () => {
        const r = await pay(method, [
          { target: 'approve', kind: 'alter-amount' },
          { target: 'net-cancel', kind: 'html' },
        ]);
        expectOutcome(r, {
          code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH',
          netCancel: 'failed',
          outcomeUnknown: true,
          ledger: 'committed',
        });
      });
    });
  }

  describe('key-in (CARD only; an unusable answer is net-cancelled with the cancel form)', () => {
    async function charge(faults: FaultSpec[]) {
      const moid = `fk-${++seq}`;
      for (const f of faults) shop.sandbox.faults.inject({ target: 'keyin', ...f });
      try {
        const call = () =>
          keyin.keyin({
            moid,
            amount: 1_004,
            goodsName: 'fault matrix',
            card: { number: '4111111111111111', expiry: FUTURE_EXPIRY },
          });
        const r: KeyinResult = faults.some((f) => f.kind === 'delay')
          ? await pastClientDeadline(shop.sandbox, call)
          : await call();
        if (r.status === 'approved') keyinApproved.push(r.tid);
        return { moid, result: r, err: undefined };
      } catch (err) {
        keyinLog.record(err);
        const e = err as GatewayErrorShape;
        if (e.outcomeUnknown && e.tid) unknownTids.add(e.tid);
        return { moid, result: undefined, err: e };
      }
    }

    it('no fault: approved and recorded', async () => {
      const r = await charge([]);
      expect(r.result?.status).to.equal('approved');
      expect(shop.sandbox.ledger.get(r.result!.tid)?.status).to.equal('approved');
    });

    for (const c of KEYIN_FAULTS) {
      const told = c.booked ? 'net-cancelled' : 'never charged (the net cancel finds no transaction)';
      it(`${c.name}: ${c.code} with its TID; ${told}`, async () => {
        const r = await charge([c.fault]);
        expect(r.err).to.include(
          c.booked
            ? { code: c.code, netCancel: 'succeeded', settlement: 'reversed', outcomeUnknown: false }
            : { code: c.code, settlement: 'never-charged', outcomeUnknown: false },
        );
        const tid = r.err!.tid!;
        expect(tid).to.match(/^nictest04m0101\d{12}[0-9A-Za-z]{4}$/);
        expect(r.err!.message).to.include(tid);
        const entry = shop.sandbox.ledger.get(tid);
        if (c.booked) expect(entry?.status).to.equal('net-cancelled');
        else expect(entry).to.equal(undefined);
        // A retry of the same Moid is not sent again.
        const again = await keyin
          .keyin({
            moid: r.moid,
            amount: 1_004,
            goodsName: 'fault matrix',
            card: { number: '4111111111111111', expiry: FUTURE_EXPIRY },
          })
          .catch((e: GatewayErrorShape) => e);
        expect(again).to.include({ code: c.code, tid });
        expect(shop.sandbox.ledger.entries().filter((e) => e.moid === r.moid)).to.have.length(c.booked ? 1 : 0);
        outcomes.push(`keyin:${c.code}/${c.booked}`);
      });
    }
  });

  // A suite of its own: mocha runs a suite's own tests before its child suites.
  describe('at the end', () =>
    it('invariant: after one settlement pass the gateway ledger and the shop agree, with no payment left unsettled', async () => {
      // Every case told "being settled" is closed by settlement: reversed, or never charged.
      const reports = [await shop.nicepay.settle(), await keyin.settle()];
      const settled = new Map(reports.flatMap((r) => r.settled).map((item) => [item.tid, item.outcome]));
      expect(
        reports.flatMap((r) => r.unsettled),
        'records left open',
      ).to.deep.equal([]);
      expect(unknownTids.size).to.be.greaterThan(0);
      for (const tid of unknownTids) expect(settled.get(tid), tid).to.be.oneOf(['reversed', 'never-charged']);
      const ledger = shop.sandbox.ledger;
      const recorded = [...shop.approved.map((a) => a.tid), ...keyinApproved];
      expect(new Set(recorded).size, 'no TID recorded twice').to.equal(recorded.length);
      const committed = ledger.committed();
      const known = new Set(recorded);
      const unknownToShop = committed
        .filter((e) => !known.has(e.tid))
        .map((e) => `${e.tid} ${e.method} ${e.source} ${e.status}`);
      expect(unknownToShop, 'committed at the gateway, not recorded by the shop').to.deep.equal([]);
      const committedTids = new Set(committed.map((e) => e.tid));
      const lacking = recorded.filter((tid) => !committedTids.has(tid));
      expect(lacking, 'recorded by the shop, not committed at the gateway').to.deep.equal([]);
      // Every window approval reached the gateway exactly once.
      for (const e of ledger.entries()) if (e.source === 'window') expect(e.approvalCalls, e.tid).to.equal(1);
      expect(recorded.length).to.equal(METHODS.length + 1);
      expect(outcomes.length).to.equal(
        METHODS.length * (APPROVAL_FAULTS.length + NET_CANCEL_FAULTS.length + 2) + KEYIN_FAULTS.length,
      );
    }));
});
