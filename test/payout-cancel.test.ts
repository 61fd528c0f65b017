/**
 * A payout cancel is a ledger operation (src/payout/cancel-operation.ts): its record is written
 * before it leaves, keyed by the payout's identifiers (MID, payout date, subId, seq); a repeat is
 * answered from the record without sending; an unknown outcome is settled to what the gateway
 * did, never reversed: before 10:30 KST of the payout day by sending it again (the gateway
 * cancels it, or answers 1104, no live payout under the seq: done), afterwards by the day's
 * result query from 16:00 KST (the seq listed 삭제: kept; otherwise it never happened). Its kept
 * record is what makes the payout read as cancelled. Over loopback against the sandbox's data
 * host, faults on its payout cancel, on the sandbox's frozen virtual clock (Monday 2026-11-23 KST).
 */
import { expect } from 'chai';
import { resolveConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { NicepayDataApiError, PAYOUT_REJECTIONS } from '../src/errors/index.js';
import { createNicepay, memoryStore, type Nicepay, type SettleReport } from '../src/index.js';
import { payoutCancelCall, payoutCancelKind } from '../src/payout/cancel-operation.js';
import { LEASE_MS } from '../src/pipeline/lease.js';
import { pipelineCodes } from '../src/pipeline/index.js';
import type { Fault } from '../src/sandbox/index.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, DATA_MID, rejection, startDataHost, type DataHostRig, seller } from './helpers/data-host.js';
import { withHeldTimers } from './helpers/fake-deadline.js';
import { settleNow, settlementRow, withSettlementPage } from './helpers/payout-settlement-page.js';

const DAY = '20261123';
type CancelFault = Omit<Fault, 'target'>;

describe('payout cancel: a ledger operation', () => {
  let rig: DataHostRig;
  let store: ReturnType<typeof memoryStore>;
  let seq: string;
  beforeEach(async () => {
    store = memoryStore();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    seq = (await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).seq;
  });
  afterEach(() => rig.close());
  const statuses = () => rig.sandbox.dataHost.payouts().map((p) => [p.amount, p.status]);

  it("names the seq it cancelled and the payout's amount; a repeat is answered from its record without sending, even after the cut-off", async () => {
    const done = await rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq });
    expect(done).to.include({ mid: DATA_MID, subId: 's1', settlmntDt: DAY, seq, amount: 700, duplicate: false });
    expect(statuses()).to.deep.equal([[700, '삭제']]);
    // Anything sent now would meet this fault: a repeat sends nothing.
    rig.sandbox.faults.inject({ target: 'payout-cancel', kind: 'decline', resultCode: '9999' });
    rig.at(2026, 11, 23, 10, 45);
    const again = await rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq });
    expect(again).to.deep.include({ seq, amount: 700, duplicate: true, raw: done.raw });
    expect(rig.sandbox.faults.pending()).to.have.length(1);
    // The record keeps the answer, never an encKey or the merchant key.
    const stored = (await store.get(`payout-cancel:${DATA_MID}:${DAY}:s1:${seq}`))!.value;
    expect(stored)
      .to.include(seq)
      .and.not.match(/encKey/i)
      .and.not.include(DATA_KEY);
  });

  it("a refusal is the caller's and keeps nothing: a cancel of a seq the gateway does not hold is 1104, and nothing is open", async () => {
    const err = await rejection(
      rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq: '99999999999999999999' }),
    );
    expect(err).to.be.instanceOf(NicepayDataApiError);
    expect(err).to.include({ resCode: '1104', reason: 'no-request-data', outcomeUnknown: false });
    expect(await store.get(`payout-cancel:${DATA_MID}:${DAY}:s1:99999999999999999999`)).to.equal(undefined);
    expect(await rig.nicepay.unsettled()).to.deep.equal([]);
    expect(statuses()).to.deep.equal([[700, '요청']]);
  });

  it('a new cancel after 10:30 KST meets the schedule before anything is recorded or sent', async () => {
    rig.at(2026, 11, 23, 10, 30);
    expect(await rejection(rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq }))).to.include({
      code: 'NICEPAY_SCHEDULE_VIOLATION',
    });
    expect(await store.get(`payout-cancel:${DATA_MID}:${DAY}:s1:${seq}`)).to.equal(undefined);
    expect(statuses()).to.deep.equal([[700, '요청']]);
  });

  it('bad input is refused naming the field, whatever the ledger holds', async () => {
    await rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq });
    expect(await rejection(rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: '2026-11-23', seq }))).to.include({
      code: 'NICEPAY_FIELD_INVALID',
      field: 'settlmntDt',
    });
    expect(
      await rejection(rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq: '1'.repeat(21) })),
    ).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'seq' });
  });

  it("without the duplicate check, a repeat of the cancelled payout's request reads it as cancelled", async () => {
    const paid = await rig.nicepay.payout.request({
      subId: 's1',
      amount: 300,
      dupCheck: false,
      idempotencyKey: 'inv-1',
    });
    expect(
      await rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'inv-1' }),
    ).to.include({ duplicate: true, cancelled: false });
    await rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq: paid.seq });
    expect(
      await rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'inv-1' }),
    ).to.include({ seq: paid.seq, duplicate: true, cancelled: true });
  });
});

describe('settle(): payout cancels whose outcome is unknown', () => {
  let rig: DataHostRig;
  let store: ReturnType<typeof memoryStore>;
  let seq: string;
  beforeEach(async () => {
    store = memoryStore();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    rig.sandbox.dataHost.deposit(DATA_MID, 1_000);
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    seq = (await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).seq;
  });
  afterEach(() => rig.close());
  const statuses = () => rig.sandbox.dataHost.payouts().map((p) => [p.amount, p.status]);
  const cancel = () => rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq });

  /** The cancel of s1's payout meeting `fault`: told its outcome is unknown, being settled. */
  async function lost(fault: CancelFault): Promise<Error & Record<string, unknown>> {
    rig.sandbox.faults.inject({ target: 'payout-cancel', ...fault });
    const err = await rejection(cancel());
    expect(err, String(err)).to.include({ settlement: 'pending', outcomeUnknown: true });
    expect(rig.sandbox.faults.pending()).to.deep.equal([]);
    return err;
  }

  /** One pass, which must close the cancel as `outcome` and leave nothing open. */
  async function settledTo(outcome: 'kept' | 'never-charged'): Promise<SettleReport> {
    const report = await rig.nicepay.settle();
    expect(report.settled, JSON.stringify(report)).to.deep.equal([
      { operation: 'payout.cancel', mid: DATA_MID, tid: seq, moid: 's1', amount: 700, outcome },
    ]);
    expect(report.unsettled).to.deep.equal([]);
    return report;
  }

  for (const { name, fault } of [
    { name: 'a dropped connection after the gateway deleted it', fault: { kind: 'drop' } as CancelFault },
    {
      name: 'a 9999 of the data host after it deleted it',
      fault: { kind: 'decline', resultCode: '9999', commit: true } as CancelFault,
    },
    { name: 'a 0000 that names no seq', fault: { kind: 'decline', resultCode: '0000', commit: true } as CancelFault },
    { name: 'an answer naming another settlmntAmt', fault: { kind: 'alter-amount' } as CancelFault },
  ]) {
    it(`before the cut-off, ${name}: sent again, the gateway's 1104 says it was done; kept, and the payout reads as cancelled`, async () => {
      await lost(fault);
      expect((await rig.nicepay.unsettled()).map((u) => [u.operation, u.tid, u.moid, u.amount, u.state])).to.deep.equal(
        [['payout.cancel', seq, 's1', 700, 'unknown']],
      );
      await settledTo('kept');
      expect(statuses()).to.deep.equal([[700, '삭제']]);
      expect(await cancel()).to.include({ seq, amount: 700, duplicate: true });
      // With the duplicate check, the day is free again: the next request is a new payout.
      const next = await rig.nicepay.payout.request({ subId: 's1', amount: 650 });
      expect(next).to.include({ duplicate: false, amount: 650 });
      expect(statuses()).to.deep.equal([
        [700, '삭제'],
        [650, '요청'],
      ]);
    });
  }

  it('before the cut-off, an 8001 before the gateway deleted anything: sent again, the payout is cancelled then, with the seq named', async () => {
    const err = await lost({ kind: 'decline', resultCode: '8001', commit: false });
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', resultCode: '8001' });
    expect(statuses()).to.deep.equal([[700, '요청']]);
    await settledTo('kept');
    expect(statuses()).to.deep.equal([[700, '삭제']]);
    const repeat = await cancel();
    expect(repeat).to.include({ seq, duplicate: true });
    expect(repeat.raw).to.include({ seq });
  });

  it('a repeat of the cancel while its record is open and due settles it at once, and is answered with the cancel', async () => {
    await lost({ kind: 'status-500', commit: false });
    expect(await cancel()).to.include({ seq, amount: 700, duplicate: true });
    expect(statuses()).to.deep.equal([[700, '삭제']]);
    expect(await rig.nicepay.unsettled()).to.deep.equal([]);
  });

  it('lost at 10:29 after the gateway deleted it: not sent again after the cut-off; it waits, due at 16:00 KST, when the row listed 삭제 keeps it', async () => {
    rig.at(2026, 11, 23, 10, 29, 30);
    await lost({ kind: 'drop' });
    rig.at(2026, 11, 23, 10, 31);
    rig.sandbox.faults.inject({ target: 'payout-cancel', kind: 'decline', resultCode: '9999' });
    const waiting = await rig.nicepay.settle();
    expect(waiting.settled).to.deep.equal([]);
    expect(waiting.unsettled[0]).to.include({ operation: 'payout.cancel', state: 'unknown', attempts: 1 });
    expect(waiting.unsettled[0]!.nextAttemptAt.getTime()).to.equal(fromKst(2026, 11, 23, 16, 0).getTime());
    expect(waiting.unsettled[0]!.reason).to.include('16:00 KST');
    // A repeat meanwhile is told it is being settled, and sends nothing (the fault is still queued).
    expect(await rejection(cancel())).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'pending' });
    rig.at(2026, 11, 23, 15, 59, 59);
    expect((await rig.nicepay.settle()).settled).to.deep.equal([]);
    expect(rig.sandbox.faults.pending()).to.have.length(1);
    rig.sandbox.faults.clear();
    rig.at(2026, 11, 23, 16, 0);
    await settledTo('kept');
    expect(await cancel()).to.include({ seq, duplicate: true });
    // The payout's record agrees: the day names no payout of s1 now, so the same request is a new payout, refused past the cut-off.
    expect(await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700 }))).to.include({
      code: 'NICEPAY_SCHEDULE_VIOLATION',
      rule: 'request-cutoff',
    });
  });

  it('lost at 10:29 before the gateway deleted it: from 16:00 the row is listed paid, so the cancel never happened, and the payout stands', async () => {
    rig.at(2026, 11, 23, 10, 29, 30);
    await lost({ kind: 'drop', commit: false });
    rig.at(2026, 11, 23, 16, 0);
    await settledTo('never-charged');
    expect(statuses()).to.deep.equal([[700, '성공']]);
    const repeat = await rejection(cancel());
    expect(repeat).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'never-charged', outcomeUnknown: false });
    // The payout's record agrees: a repeat of its request is the payout, not cancelled.
    expect(await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).to.include({
      seq,
      duplicate: true,
      cancelled: false,
    });
  });

  it("sent again before the client's cut-off but past the gateway's, a 1107 is no word on the first sending: the record stays open until the 16:00 results settle it", async () => {
    rig.at(2026, 11, 23, 10, 29);
    await lost({ kind: 'drop', commit: false });
    // A settler whose clock runs a minute behind the gateway's: it still sees 10:29.
    const behind = createNicepay({
      mid: DATA_MID,
      merchantKey: DATA_KEY,
      baseUrl: rig.sandbox.url,
      dataUrl: rig.sandbox.url,
      store,
      settle: false,
      clock: () => new Date(rig.sandbox.clock.now().getTime() - 60_000),
    });
    try {
      rig.at(2026, 11, 23, 10, 30, 10);
      const pass = await behind.settle();
      expect(pass.settled).to.deep.equal([]);
      expect(pass.unsettled.map((u) => [u.operation, u.state, u.attempts])).to.deep.equal([
        ['payout.cancel', 'unknown', 1],
      ]);
    } finally {
      await behind.close();
    }
    rig.at(2026, 11, 23, 16, 0);
    await settledTo('never-charged');
    expect(statuses()).to.deep.equal([[700, '성공']]);
  });

  it("the settler's own calls failing leave the cancel open, tried again after its back-off", async () => {
    await lost({ kind: 'drop' });
    rig.sandbox.faults.inject({ target: 'payout-cancel', kind: 'status-500' });
    const first = await rig.nicepay.settle();
    expect(first.settled).to.deep.equal([]);
    expect(first.unsettled[0]).to.include({ operation: 'payout.cancel', state: 'unknown', attempts: 1 });
    expect(first.unsettled[0]!.nextAttemptAt.getTime()).to.equal(rig.sandbox.clock.now().getTime() + 30_000);
    rig.sandbox.clock.advance(30_000);
    await settledTo('kept');
  });
});

describe('settle(): a payout cancel whose process died before its answer', () => {
  it('its record, left `sending`, is settled by the next pass of another instance once the lease ran out, and the late holder changes nothing', async () => {
    const rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { settle: false });
    let storeNow = 1_000_000;
    const store = memoryStore({ now: () => storeNow });
    const options = {
      mid: DATA_MID,
      merchantKey: DATA_KEY,
      baseUrl: rig.sandbox.url,
      dataUrl: rig.sandbox.url,
      clock: () => rig.sandbox.clock.now(),
      store,
      settle: false as const,
    };
    const dying: Nicepay = createNicepay({ ...options, timeouts: { connectMs: 1_000, responseMs: 20_000 } });
    const survivor: Nicepay = createNicepay(options);
    try {
      await rig.nicepay.payout.registerSubMerchant(seller('s1'));
      const { seq } = await survivor.payout.request({ subId: 's1', amount: 700 });
      await withHeldTimers(async (timers) => {
        // The gateway deletes the payout and its answer never comes: the process is gone.
        rig.sandbox.faults.inject({ target: 'payout-cancel', kind: 'delay', delayMs: 600_000 });
        const faults = rig.sandbox.faults;
        const take = faults.take;
        let arrived!: () => void;
        const inFlight = new Promise<void>((resolve) => (arrived = resolve));
        faults.take = (target) => {
          const fault = take.call(faults, target);
          if (fault) setImmediate(arrived);
          return fault;
        };
        const dead = dying.payout.cancel({ subId: 's1', settlmntDt: DAY, seq }).catch((err: unknown) => err);
        await inFlight;
        faults.take = take;
        expect((await survivor.unsettled()).map((u) => [u.operation, u.tid, u.state])).to.deep.equal([
          ['payout.cancel', seq, 'sending'],
        ]);
        // Held by a live lease, nobody else settles it.
        expect((await survivor.settle()).settled).to.deep.equal([]);
        storeNow += LEASE_MS + 1;
        const report = await survivor.settle();
        expect(report.settled).to.deep.equal([
          { operation: 'payout.cancel', mid: DATA_MID, tid: seq, moid: 's1', amount: 700, outcome: 'kept' },
        ]);
        // The dead process's request times out at last: its lease is gone, it writes nothing, and
        // its caller is told what the ledger holds now: the cancel kept.
        timers.jump(30_000);
        expect(await dead)
          .to.include({ seq, duplicate: false })
          .and.not.have.property('code');
      });
      expect(rig.sandbox.dataHost.payouts().map((p) => p.status)).to.deep.equal(['삭제']);
      expect(await survivor.payout.cancel({ subId: 's1', settlmntDt: DAY, seq })).to.include({ seq, duplicate: true });
      expect(await survivor.unsettled()).to.deep.equal([]);
    } finally {
      await dying.close();
      await survivor.close();
      await rig.close();
    }
  });
});

describe('payout cancel: what it rejects with', () => {
  it('every code its declaration lets the pipeline produce is in the payout rejection list, and it never claims another binding', () => {
    const ctx = createContext(
      resolveConfig({ mid: DATA_MID, merchantKey: DATA_KEY, baseUrl: 'http://127.0.0.1:9', settle: false }),
    );
    const produced = pipelineCodes(
      payoutCancelCall(ctx, payoutCancelKind(ctx), { subId: 's', settlmntDt: DAY, seq: '1' }, 700),
    );
    expect([...produced].filter((code) => !(PAYOUT_REJECTIONS as readonly string[]).includes(code))).to.deep.equal([]);
    expect(produced.has('NICEPAY_ANSWER_AMOUNT_MISMATCH')).to.equal(true);
    expect(produced.has('NICEPAY_DUPLICATE_MISMATCH')).to.equal(false);
  });
});

describe('example-app: the settlement page lists a payout cancel like any other operation', () => {
  it("an open payout cancel is listed as '하위몰 지급 취소' with why it is open, and '지금 정산' settles it", async () => {
    const rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { settle: false });
    await withSettlementPage(rig, async (shop, admin) => {
      await shop.nicepay.payout.registerSubMerchant(seller('s1'));
      const { seq } = await shop.nicepay.payout.request({ subId: 's1', amount: 700 });
      rig.sandbox.faults.inject({ target: 'payout-cancel', kind: 'drop' });
      await shop.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq }).catch(() => undefined);
      const page = (await admin.get('/admin/settlement')).text;
      expect(settlementRow(page, 'unsettled', seq), page)
        .to.include('하위몰 지급 취소')
        .and.include('s1')
        .and.include('700원')
        .and.include('결과 모름');
      const after = await settleNow(admin, page);
      expect(after).to.include('id="no-unsettled"');
      expect(settlementRow(after, 'settled', seq)).to.include('하위몰 지급 취소');
    });
  });
});
