/**
 * A payout request is a ledger operation (src/payout/operation.ts): its record is written
 * before it leaves, keyed by the gateway's identifiers (subId and date with the duplicate check,
 * the idempotencyKey without it), and a repeat is answered from the record without sending.
 * Over loopback against the sandbox's data host, on its frozen virtual clock (Monday
 * 2026-11-23 KST).
 */
import { expect } from 'chai';
import { resolveConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import {
  NicepayDataApiError,
  NicepayGatewayError,
  NicepayRequestError,
  NicepayScheduleError,
  NicepayServiceError,
  PAYOUT_REJECTIONS,
} from '../src/errors/index.js';
import { memoryStore } from '../src/index.js';
import { payoutCall, payoutKind } from '../src/payout/operation.js';
import { MAX_TALLY_ENTRIES, pipelineCodes } from '../src/pipeline/index.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, DATA_MID, rejection, startDataHost, type DataHostRig, seller } from './helpers/data-host.js';

const DAY = '20261123';

describe('payout request: a ledger operation', () => {
  let rig: DataHostRig;
  let store: ReturnType<typeof memoryStore>;
  beforeEach(async () => {
    store = memoryStore();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
  });
  afterEach(() => rig.close());
  const payouts = () =>
    rig.sandbox.dataHost.payouts().map((p) => ({ subId: p.subId, amount: p.amount, seq: p.seq, status: p.status }));

  it('with the duplicate check, a repeat for the same sub-merchant and day is answered from its record without sending; another amount is refused', async () => {
    const first = await rig.nicepay.payout.request({ subId: 's1', amount: 700 });
    expect(first).to.include({ subId: 's1', settlmntDt: DAY, amount: 700, dupCheck: true, duplicate: false });
    expect(first.seq).to.match(/^\d{20}$/);
    const again = await rig.nicepay.payout.request({ subId: 's1', amount: 700, settlmntDt: DAY });
    expect(again).to.deep.include({ seq: first.seq, amount: 700, duplicate: true });
    const other = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 701 }));
    expect(other).to.be.instanceOf(NicepayRequestError);
    expect(other).to.include({ code: 'NICEPAY_DUPLICATE_MISMATCH', field: 'amount' });
    expect(payouts()).to.deep.equal([{ subId: 's1', amount: 700, seq: first.seq, status: '요청' }]);
    // The record keeps the answer with its request echo, never the echoed encKey or the merchant key.
    const stored = (await store.get(`payout:${DATA_MID}:${DAY}:s1`))!.value;
    expect(stored)
      .to.include('reqInfo')
      .and.not.match(/encKey/i)
      .and.not.include(DATA_KEY);
    expect(again.raw).to.deep.include({ seq: first.seq }).and.to.have.property('reqInfo');
  });

  it('a repeat after the cut-off is answered from its record, not refused by the schedule', async () => {
    const first = await rig.nicepay.payout.request({ subId: 's1', amount: 700 });
    rig.at(2026, 11, 23, 10, 45);
    expect(await rig.nicepay.payout.request({ subId: 's1', amount: 700 })).to.include({
      seq: first.seq,
      duplicate: true,
    });
    // Anything else still meets the schedule rule first, before anything is recorded or sent.
    expect(await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 701 }))).to.include({
      code: 'NICEPAY_SCHEDULE_VIOLATION',
      rule: 'request-cutoff',
    });
    await rig.nicepay.payout.registerSubMerchant(seller('s2'));
    const late = await rejection(rig.nicepay.payout.request({ subId: 's2', amount: 5 }));
    expect(late).to.be.instanceOf(NicepayScheduleError);
    expect(late.rule).to.equal('request-cutoff');
    expect(await rig.nicepay.unsettled()).to.deep.equal([]);
    expect(payouts().map((p) => p.subId)).to.deep.equal(['s1']);
  });

  it("a refusal is the caller's and keeps nothing: once the cause is corrected, the same payout is sent", async () => {
    const refused = await rejection(rig.nicepay.payout.request({ subId: 'new-seller', amount: 900 }));
    expect(refused).to.be.instanceOf(NicepayDataApiError);
    expect(refused).to.include({ resCode: '1105', reason: 'unknown-sub-merchant', outcomeUnknown: false });
    await rig.nicepay.payout.registerSubMerchant(seller('new-seller'));
    const paid = await rig.nicepay.payout.request({ subId: 'new-seller', amount: 900 });
    expect(paid).to.include({ duplicate: false, amount: 900 });
    expect(payouts().map((p) => p.subId)).to.deep.equal(['new-seller']);
  });

  it('a payout the shop cancelled no longer names the day: the next request is sent, and is its own record', async () => {
    const first = await rig.nicepay.payout.request({ subId: 's1', amount: 700 });
    await rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: DAY, seq: first.seq });
    const second = await rig.nicepay.payout.request({ subId: 's1', amount: 650 });
    expect(second).to.include({ amount: 650, duplicate: false });
    expect(second.seq).to.not.equal(first.seq);
    expect(await rig.nicepay.payout.request({ subId: 's1', amount: 650 })).to.include({
      seq: second.seq,
      duplicate: true,
    });
    expect(payouts().map((p) => [p.amount, p.status])).to.deep.equal([
      [700, '삭제'],
      [650, '요청'],
    ]);
  });

  it('without the duplicate check, an idempotencyKey names the payout: its repeat is answered from the record, another key is another payout', async () => {
    const a = await rig.nicepay.payout.request({
      subId: 's1',
      amount: 300,
      dupCheck: false,
      idempotencyKey: 'invoice-17',
    });
    expect(a).to.include({ dupCheck: false, duplicate: false });
    expect(
      await rig.nicepay.payout.request({ subId: 's1', amount: 300, dupCheck: false, idempotencyKey: 'invoice-17' }),
    ).to.include({ seq: a.seq, duplicate: true });
    expect(
      await rejection(
        rig.nicepay.payout.request({ subId: 's1', amount: 301, dupCheck: false, idempotencyKey: 'invoice-17' }),
      ),
    ).to.include({ code: 'NICEPAY_DUPLICATE_MISMATCH' });
    const b = await rig.nicepay.payout.request({
      subId: 's1',
      amount: 300,
      dupCheck: false,
      idempotencyKey: 'invoice:18',
    });
    expect(b.seq).to.not.equal(a.seq);
    expect(payouts().map((p) => p.amount)).to.deep.equal([300, 300]);
  });

  it('without the duplicate check and without an idempotencyKey, every call is a new payout (no once-guarantee)', async () => {
    const a = await rig.nicepay.payout.request({ subId: 's1', amount: 200, dupCheck: false });
    const b = await rig.nicepay.payout.request({ subId: 's1', amount: 200, dupCheck: false });
    expect([a.duplicate, b.duplicate]).to.deep.equal([false, false]);
    expect(b.seq).to.not.equal(a.seq);
    expect(payouts().map((p) => p.amount)).to.deep.equal([200, 200]);
  });

  it('an idempotencyKey is refused with the duplicate check, or when it is not a non-empty string of at most 200 characters; nothing is sent', async () => {
    for (const input of [
      { subId: 's1', amount: 1, idempotencyKey: 'k' },
      { subId: 's1', amount: 1, dupCheck: false, idempotencyKey: '' },
      { subId: 's1', amount: 1, dupCheck: false, idempotencyKey: 'k'.repeat(201) },
      { subId: 's1', amount: 1, dupCheck: false, idempotencyKey: 7 as unknown as string },
    ]) {
      const err = await rejection(rig.nicepay.payout.request(input));
      expect(err, JSON.stringify(input)).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'idempotencyKey' });
    }
    expect(payouts()).to.deep.equal([]);
  });

  it('bad input is refused naming the field even when the payout is recorded', async () => {
    await rig.nicepay.payout.request({ subId: 's1', amount: 700 });
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700, accntDesc: '가'.repeat(11) }));
    expect(err).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'accntDesc' });
  });

  it('an answer naming another amount is NICEPAY_ANSWER_AMOUNT_MISMATCH, an outcome being settled, and every repeat is told the same', async () => {
    rig.sandbox.faults.inject({ target: 'payout-request', kind: 'alter-amount' });
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700 }));
    expect(err).to.be.instanceOf(NicepayGatewayError);
    expect(err).to.include({ code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH', settlement: 'pending', outcomeUnknown: true });
    expect((await rig.nicepay.unsettled()).map((u) => [u.operation, u.state])).to.deep.equal([['payout', 'unknown']]);
    rig.at(2026, 11, 23, 10, 45); // past the cut-off the repeat sends nothing: it waits for the 16:00 results
    expect(await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700 }))).to.include({
      code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH',
      settlement: 'pending',
    });
    expect(payouts()).to.have.length(1);
  });
});

describe('payout request: its tally entry is written before it is sent', () => {
  let rig: DataHostRig;
  afterEach(() => rig.close());

  it('a payout whose tally entry cannot be written is not sent (503 NICEPAY_STORE_UNAVAILABLE): settlement tells same-amount payouts apart by the tally, so none leaves without its entry', async () => {
    const inner = memoryStore();
    let failTally = true;
    // One store failure, on the day's tally only (its entries are keys under payouts:).
    const store: ReturnType<typeof memoryStore> = {
      ...inner,
      acquire: (key, ms, initial) => {
        if (failTally && key.startsWith('payouts:')) {
          failTally = false;
          return Promise.reject(new Error('store failure'));
        }
        return inner.acquire(key, ms, initial);
      },
    };
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    const refused = await rejection(
      rig.nicepay.payout.request({ subId: 's1', amount: 700, dupCheck: false, idempotencyKey: 'k1' }),
    );
    expect(refused).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE' });
    expect(refused.message).to.include('nothing was sent');
    expect(rig.sandbox.dataHost.payouts()).to.deep.equal([]);
    expect(await rig.nicepay.unsettled()).to.deep.equal([]);
    // Sent again once the store answers: made once, and settlement has nothing to do.
    const made = await rig.nicepay.payout.request({ subId: 's1', amount: 700, dupCheck: false, idempotencyKey: 'k1' });
    expect(made.seq).to.match(/^\d+$/);
    expect(rig.sandbox.dataHost.payouts()).to.have.length(1);
  });
});

describe('payout request: a day of many payouts to one sub-merchant', () => {
  let rig: DataHostRig;
  afterEach(() => rig.close());
  const slot = (n: number) => `payouts:${DATA_MID}:${DAY}:s1:${n}`;

  it('every payout of the day is sent however many there are, and the n-th finds its tally slot in about 2·log2(n) reads and one lease (and one more of each for its mark)', async () => {
    const inner = memoryStore();
    const calls = { get: 0, acquire: 0 };
    const store: ReturnType<typeof memoryStore> = {
      ...inner,
      get: (key) => {
        if (key.startsWith('payouts:')) calls.get++;
        return inner.get(key);
      },
      acquire: (key, ms, initial) => {
        if (key.startsWith('payouts:')) calls.acquire++;
        return inner.acquire(key, ms, initial);
      },
    };
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    for (let n = 1; n < 150; n++) await rig.nicepay.payout.request({ subId: 's1', amount: 100, dupCheck: false });
    calls.get = 0;
    calls.acquire = 0;
    const last = await rig.nicepay.payout.request({ subId: 's1', amount: 100, dupCheck: false });
    expect(last.seq).to.match(/^\d+$/);
    expect(rig.sandbox.dataHost.payouts()).to.have.length(150);
    expect(calls.acquire).to.equal(1 + 1);
    expect(calls.get).to.be.at.most(2 * Math.ceil(Math.log2(150)) + 1 + 1);
    expect((await store.get(slot(150)))?.value).to.be.a('string');
  });

  it('a repeat the ledger holds a record of adds no second tally entry', async () => {
    const store = memoryStore();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    const first = await rig.nicepay.payout.request({ subId: 's1', amount: 700, dupCheck: false, idempotencyKey: 'k1' });
    const again = await rig.nicepay.payout.request({ subId: 's1', amount: 700, dupCheck: false, idempotencyKey: 'k1' });
    expect(again).to.include({ seq: first.seq, duplicate: true });
    expect(await store.get(slot(1))).to.not.equal(undefined);
    expect(await store.get(slot(2))).to.equal(undefined);
  });

  it('a tally holding its most entries refuses the next payout with 503 NICEPAY_STORE_FULL, and nothing is sent or left open', async () => {
    const store = memoryStore();
    for (let n = 1; n <= MAX_TALLY_ENTRIES; n++) {
      const got = await store.acquire(slot(n), 1000);
      if (got.state !== 'acquired') throw new Error(`slot ${n} was not free`);
      await store.write(slot(n), got.token, { value: `payout:earlier:${n}`, open: false, keepMs: 60_000 }, true);
    }
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { store, settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
    const refused = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700, dupCheck: false }));
    expect(refused).to.be.instanceOf(NicepayServiceError);
    expect(refused).to.include({ code: 'NICEPAY_STORE_FULL', status: 503 });
    expect(refused.message).to.include('was not sent');
    expect(rig.sandbox.dataHost.payouts()).to.deep.equal([]);
    expect(await rig.nicepay.unsettled()).to.deep.equal([]);
  });
});

describe('payout request: what it rejects with', () => {
  it("its rejection list is what its declaration lets the pipeline produce, plus the schedule, the data host's refusal and the queries' gateway error", () => {
    const ctx = createContext(
      resolveConfig({ mid: DATA_MID, merchantKey: DATA_KEY, baseUrl: 'http://127.0.0.1:9', settle: false }),
    );
    const call = payoutCall(ctx, payoutKind(ctx), {
      subId: 's',
      amount: 1,
      settlmntDt: DAY,
      dupCheck: true,
      accntDesc: undefined,
      crossBorder: false,
      once: '',
      generation: 0,
    });
    const produced = [
      ...pipelineCodes(call),
      'NICEPAY_SCHEDULE_VIOLATION',
      'NICEPAY_DATA_HOST_REFUSED',
      'NICEPAY_GATEWAY_ERROR',
    ];
    expect([...PAYOUT_REJECTIONS].sort()).to.deep.equal([...new Set(produced)].sort());
  });
});
