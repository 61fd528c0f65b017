/**
 * Settlement of payout requests whose outcome is unknown (src/payout/operation.ts,
 * settle-results.ts): a payout is never reversed, it is settled to what the gateway did. Before
 * its day's 10:30 KST cut-off, with the duplicate check, it is sent again (the gateway pays it,
 * or refuses it as registered already, 1103: it was done); otherwise the record waits until
 * 16:00 KST of its day, when the result query finds it (kept, with its seq) or not (never
 * made). Over loopback against the sandbox's data host, faults on its payout request, on the
 * sandbox's frozen virtual clock (Monday 2026-11-23 KST).
 */
import { expect } from 'chai';
import { createNicepay, memoryStore, type Nicepay, type SettleReport } from '../src/index.js';
import { LEASE_MS } from '../src/pipeline/lease.js';
import type { Fault } from '../src/sandbox/index.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, DATA_MID, rejection, startDataHost, type DataHostRig, seller } from './helpers/data-host.js';
import { withHeldTimers } from './helpers/fake-deadline.js';
import { settleNow, settlementRow, withSettlementPage } from './helpers/payout-settlement-page.js';

const DAY = '20261123';
type PayoutFault = Omit<Fault, 'target'>;

describe('settle(): payout requests whose outcome is unknown', () => {
  let rig: DataHostRig;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store: memoryStore(), settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
  });
  afterEach(() => rig.close());
  const payouts = () => rig.sandbox.dataHost.payouts().map((p) => ({ amount: p.amount, seq: p.seq, status: p.status }));

  /** A payout of `amount` to s1 whose request meets `fault`: told its outcome is unknown, being settled. */
  async function lost(
    fault: PayoutFault,
    input: { amount: number; dupCheck?: boolean; idempotencyKey?: string },
  ): Promise<Error & Record<string, unknown>> {
    rig.sandbox.faults.inject({ target: 'payout-request', ...fault });
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', ...input }));
    expect(err, String(err)).to.include({
      code: 'NICEPAY_OUTCOME_UNKNOWN',
      settlement: 'pending',
      outcomeUnknown: true,
    });
    expect(rig.sandbox.faults.pending()).to.deep.equal([]);
    return err;
  }

  /** One pass, which must close the payout of `amount` as `outcome` and leave nothing open. */
  async function settledTo(amount: number, outcome: 'kept' | 'never-charged'): Promise<SettleReport> {
    const report = await rig.nicepay.settle();
    expect(report.settled, JSON.stringify(report)).to.deep.equal([
      { operation: 'payout', mid: DATA_MID, tid: DAY, moid: 's1', amount, outcome },
    ]);
    expect(report.unsettled).to.deep.equal([]);
    return report;
  }

  for (const { name, fault } of [
    { name: 'a dropped connection after the gateway registered it', fault: { kind: 'drop' } as PayoutFault },
    {
      name: 'a 9999 of the data host after it registered it',
      fault: { kind: 'decline', resultCode: '9999', commit: true } as PayoutFault,
    },
    { name: 'a 0000 without a seq', fault: { kind: 'decline', resultCode: '0000', commit: true } as PayoutFault },
  ]) {
    it(`before the cut-off, ${name}: sent again, the gateway's 1103 says it was done; kept once`, async () => {
      await lost(fault, { amount: 700 });
      expect((await rig.nicepay.unsettled()).map((u) => [u.operation, u.tid, u.moid, u.amount, u.state])).to.deep.equal(
        [['payout', DAY, 's1', 700, 'unknown']],
      );
      await settledTo(700, 'kept');
      expect(payouts().map((p) => p.amount)).to.deep.equal([700]);
      // Registered, but its seq was never heard: the result query lists it from 16:00.
      expect(await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).to.include({ seq: '', duplicate: true });
    });
  }

  it('before the cut-off, an 8001 before the gateway registered anything: sent again, it is registered once, with its seq', async () => {
    const err = await lost({ kind: 'decline', resultCode: '8001', commit: false }, { amount: 700 });
    expect(err).to.include({ resultCode: '8001' });
    expect(payouts()).to.deep.equal([]);
    await settledTo(700, 'kept');
    const [made] = payouts();
    expect(payouts()).to.have.length(1);
    expect(await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).to.include({
      seq: made!.seq,
      duplicate: true,
    });
  });

  it('a repeat of the request while its record is open and due settles it at once, and is answered with the payout', async () => {
    await lost({ kind: 'status-500', commit: false }, { amount: 700 });
    const repeat = await rig.nicepay.payout.request({ subId: 's1', amount: 700 });
    expect(repeat).to.include({ duplicate: true, amount: 700 });
    expect(repeat.seq).to.equal(payouts()[0]!.seq);
    expect(await rig.nicepay.unsettled()).to.deep.equal([]);
  });

  it('lost at 10:29 and settled after the cut-off: not sent again; it waits, due at 16:00 KST; the result query then keeps it with its seq', async () => {
    rig.sandbox.dataHost.deposit(DATA_MID, 1_000);
    rig.at(2026, 11, 23, 10, 29, 30);
    await lost({ kind: 'drop' }, { amount: 700 });
    rig.at(2026, 11, 23, 10, 31);
    const waiting = await rig.nicepay.settle();
    expect(waiting.settled).to.deep.equal([]);
    expect(waiting.unsettled).to.have.length(1);
    expect(waiting.unsettled[0]).to.include({
      operation: 'payout',
      state: 'unknown',
      attempts: 1,
      needsAttention: false,
    });
    expect(waiting.unsettled[0]!.nextAttemptAt.getTime()).to.equal(fromKst(2026, 11, 23, 16, 0).getTime());
    expect(waiting.unsettled[0]!.reason).to.include('16:00 KST');
    expect(payouts()).to.have.length(1);
    // A repeat meanwhile is told it is being settled, and sends nothing.
    const repeat = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700 }));
    expect(repeat).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'pending' });
    rig.at(2026, 11, 23, 15, 59, 59);
    expect((await rig.nicepay.settle()).settled).to.deep.equal([]);
    rig.at(2026, 11, 23, 16, 0);
    await settledTo(700, 'kept');
    const [made] = payouts();
    expect(made).to.include({ amount: 700, status: '성공' });
    expect(await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).to.include({
      seq: made!.seq,
      duplicate: true,
    });
  });

  it('lost at 10:29 before the gateway registered it: from 16:00 the result query lists none, never made', async () => {
    rig.at(2026, 11, 23, 10, 29, 30);
    await lost({ kind: 'drop', commit: false }, { amount: 700 });
    rig.at(2026, 11, 23, 16, 0);
    await settledTo(700, 'never-charged');
    expect(payouts()).to.deep.equal([]);
    const repeat = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700 }));
    expect(repeat).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'never-charged', outcomeUnknown: false });
  });

  it('without the duplicate check it is never sent again, even before the cut-off: it waits for 16:00 and is found by its seq', async () => {
    await lost({ kind: 'drop' }, { amount: 300, dupCheck: false, idempotencyKey: 'inv-1' });
    rig.at(2026, 11, 23, 9, 5);
    const waiting = await rig.nicepay.settle();
    expect(waiting.unsettled[0]!.nextAttemptAt.getTime()).to.equal(fromKst(2026, 11, 23, 16, 0).getTime());
    expect(waiting.unsettled[0]!.reason).to.include('never sent again');
    expect(payouts()).to.have.length(1);
    rig.at(2026, 11, 23, 16, 0);
    await settledTo(300, 'kept');
    expect(
      await rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'inv-1' }),
    ).to.include({ seq: payouts()[0]!.seq, duplicate: true });
  });

  it('without the duplicate check, a listed payout another record holds is not claimed again: of two lost payouts of one seller, day and amount, as many are kept as the results list unheld, the rest never made', async () => {
    const held = await rig.nicepay.payout.request({
      subId: 's1',
      amount: 300,
      dupCheck: false,
      idempotencyKey: 'inv-1',
    });
    await lost({ kind: 'drop', commit: false }, { amount: 300, dupCheck: false, idempotencyKey: 'inv-2' });
    await lost({ kind: 'drop' }, { amount: 300, dupCheck: false, idempotencyKey: 'inv-3' });
    rig.at(2026, 11, 23, 16, 0);
    const report = await rig.nicepay.settle();
    expect(report.settled.map((s) => s.outcome).sort()).to.deep.equal(['kept', 'never-charged']);
    expect(report.unsettled).to.deep.equal([]);
    // Two payouts exist: inv-1's, and one of the lost two (the results cannot tell which).
    expect(payouts()).to.have.length(2);
    const other = payouts().find((p) => p.seq !== held.seq)!;
    const repeats = await Promise.all(
      ['inv-2', 'inv-3'].map((idempotencyKey) =>
        rig.nicepay.payout
          .request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey })
          .catch((err: unknown) => err),
      ),
    );
    expect(repeats.filter((r) => (r as { seq?: string }).seq === other.seq)).to.have.length(1);
    expect(repeats.filter((r) => (r as { settlement?: string }).settlement === 'never-charged')).to.have.length(1);
  });

  for (const made of [1, 2]) {
    it(`without the duplicate check, two instances settling two lost payouts of one seller, day and amount at once keep as many as the gateway made (${made}), each with its own seq`, async () => {
      const store = memoryStore();
      const shared = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
      const other = createNicepay({
        mid: DATA_MID,
        merchantKey: DATA_KEY,
        baseUrl: shared.sandbox.url,
        dataUrl: shared.sandbox.url,
        clock: () => shared.sandbox.clock.now(),
        timeouts: { connectMs: 1_000, responseMs: 1_500 },
        store,
        settle: false,
      });
      try {
        await shared.nicepay.payout.registerSubMerchant(seller('s1'));
        for (const [i, commit] of [made === 2, true].entries()) {
          shared.sandbox.faults.inject({ target: 'payout-request', kind: 'drop', commit });
          const err = await rejection(
            shared.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: `inv-${i}` }),
          );
          expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
        }
        expect(shared.sandbox.dataHost.payouts()).to.have.length(made);
        shared.at(2026, 11, 23, 16, 0);
        const reports = await Promise.all([shared.nicepay.settle(), other.settle()]);
        const settled = reports.flatMap((r) => r.settled);
        expect(settled.map((s) => s.outcome).sort()).to.deep.equal(
          made === 2 ? ['kept', 'kept'] : ['kept', 'never-charged'],
        );
        // A pass may list the record the other instance is settling as open; after both, none is.
        expect(await shared.nicepay.settle()).to.deep.include({ settled: [], unsettled: [] });
        const answers = await Promise.all(
          ['inv-0', 'inv-1'].map((idempotencyKey) =>
            shared.nicepay.payout
              .request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey })
              .catch((err: unknown) => err),
          ),
        );
        const seqs = answers.map((a) => (a as { seq?: string }).seq).filter((seq) => seq !== undefined);
        expect(seqs.sort()).to.deep.equal(
          shared.sandbox.dataHost
            .payouts()
            .map((p) => p.seq)
            .sort(),
        );
      } finally {
        await other.close();
        await shared.close();
      }
    });
  }

  it("the settler's own calls failing leave the payout open, tried again after its back-off", async () => {
    await lost({ kind: 'drop' }, { amount: 700 });
    rig.sandbox.faults.inject({ target: 'payout-request', kind: 'status-500' });
    const first = await rig.nicepay.settle();
    expect(first.settled).to.deep.equal([]);
    expect(first.unsettled[0]).to.include({ state: 'unknown', attempts: 1 });
    expect(first.unsettled[0]!.nextAttemptAt.getTime()).to.equal(rig.sandbox.clock.now().getTime() + 30_000);
    rig.sandbox.clock.advance(30_000);
    await settledTo(700, 'kept');
    expect(payouts()).to.have.length(1);
  });
});

describe('settle(): a payout whose process died before its answer', () => {
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
      await withHeldTimers(async (timers) => {
        // The gateway registers the payout and its answer never comes: the process is gone.
        rig.sandbox.faults.inject({ target: 'payout-request', kind: 'delay', delayMs: 600_000 });
        const faults = rig.sandbox.faults;
        const take = faults.take;
        let arrived!: () => void;
        const inFlight = new Promise<void>((resolve) => (arrived = resolve));
        faults.take = (target) => {
          const fault = take.call(faults, target);
          if (fault) setImmediate(arrived);
          return fault;
        };
        const dead = dying.payout.request({ subId: 's1', amount: 700 }).catch((err: unknown) => err);
        await inFlight;
        faults.take = take;
        expect((await survivor.unsettled()).map((u) => [u.operation, u.state])).to.deep.equal([['payout', 'sending']]);
        // Held by a live lease, nobody else settles it.
        expect((await survivor.settle()).settled).to.deep.equal([]);
        storeNow += LEASE_MS + 1;
        const report = await survivor.settle();
        expect(report.settled).to.deep.equal([
          { operation: 'payout', mid: DATA_MID, tid: DAY, moid: 's1', amount: 700, outcome: 'kept' },
        ]);
        // The dead process's request times out at last: its lease is gone, it writes nothing, and
        // its caller is told what the ledger holds now: the payout kept.
        timers.jump(30_000);
        expect(await dead)
          .to.include({ subId: 's1', amount: 700 })
          .and.not.have.property('code');
      });
      expect(rig.sandbox.dataHost.payouts().map((p) => p.amount)).to.deep.equal([700]);
      expect(await survivor.payout.request({ subId: 's1', amount: 700 })).to.include({ duplicate: true, amount: 700 });
      expect(await survivor.unsettled()).to.deep.equal([]);
    } finally {
      await dying.close();
      await survivor.close();
      await rig.close();
    }
  });
});

describe('example-app: the settlement page lists a payout like any other operation', () => {
  it("an open payout is listed as '하위몰 지급' with why it is open, and '지금 정산' settles it", async () => {
    const rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { settle: false });
    await withSettlementPage(rig, async (shop, admin) => {
      await shop.nicepay.payout.registerSubMerchant(seller('s1'));
      rig.sandbox.faults.inject({ target: 'payout-request', kind: 'drop' });
      await shop.nicepay.payout.request({ subId: 's1', amount: 700 }).catch(() => undefined);
      const page = (await admin.get('/admin/settlement')).text;
      expect(settlementRow(page, 'unsettled', DAY), page)
        .to.include('하위몰 지급')
        .and.include('s1')
        .and.include('700원')
        .and.include('결과 모름');
      const after = await settleNow(admin, page);
      expect(after).to.include('id="no-unsettled"');
      expect(settlementRow(after, 'settled', DAY))
        .to.include('하위몰 지급')
        .and.include('결제 유지');
    });
  });
});
