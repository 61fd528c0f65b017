import { expect } from 'chai';
import { inspect } from 'node:util';
import { createClient, type RedisClientType } from 'redis';
import { createNicepay, type Nicepay } from '../src/nicepay.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { redisStore } from '../src/store/redis-store.js';
import { memoryStore } from '../src/store/memory-store.js';
import type { LedgerStore } from '../src/store/types.js';
import { fromKst } from '../src/wire/kst.js';
import { captureLogger, type Captured } from './helpers/capture.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';
import { flakyStore } from './helpers/ledger-store.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';

/*
 * nicepay.billing against the sandbox over loopback: the pipeline's guarantees, born with it.
 * The sandbox's clock stands still (a Monday morning in KST) so every TID and EdiDate is exact.
 */
const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const START = fromKst(2026, 11, 23, 10, 0, 0);
const CARD = { number: '4111111111111111', expYear: '2029', expMonth: '12' };

describe('nicepay.billing over the sandbox', function () {
  this.timeout(20_000);
  let sandbox: Sandbox;
  let nicepay: Nicepay;
  let log: Captured;
  let seq = 0;
  /** Every BID any test saw: none may appear in a log line or an error. */
  const bids: string[] = [];

  function client(store?: LedgerStore): Nicepay {
    return createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dataUrl: sandbox.url,
      clock: () => sandbox.clock.now(),
      // No automatic settler: a test settles when it says so (nicepay.settle()).
      timeouts: { connectMs: 1_000, responseMs: 1_500 },
      logger: log.logger,
      settle: false,
      ...(store ? { store } : {}),
    });
  }

  beforeEach(async () => {
    sandbox = createSandbox({ clock: () => START });
    sandbox.clock.freeze();
    sandbox.clock.set(START);
    await sandbox.listen(0);
    log = captureLogger();
    nicepay = client();
  });
  afterEach(async () => {
    await nicepay.close();
    await sandbox.close();
  });

  async function newBid(card = CARD): Promise<string> {
    const r = await nicepay.billing.register({ moid: `reg-${++seq}`, card });
    if (r.status !== 'registered') throw new Error(`registration refused: ${r.code}`);
    bids.push(r.bid);
    return r.bid;
  }
  const chargeCalls = (): number =>
    sandbox.ledger
      .entries()
      .filter((e) => e.extra.service === 'billing')
      .reduce((n, e) => n + e.approvalCalls, 0);

  it('registers a card, charges it with a new TID each time (MID + 01 + 16 + KST time), removes it', async () => {
    const reg = await nicepay.billing.register({ moid: 'reg-a', card: { ...CARD, idNo: '800101', password2: '12' } });
    expect(reg.status).to.equal('registered');
    if (reg.status !== 'registered') return;
    bids.push(reg.bid);
    expect(reg.bid).to.match(/^BIKY[0-9A-Za-z]{26}$/);
    expect(reg.card).to.deep.include({ code: '06', kind: 'credit' });
    expect(JSON.stringify(reg)).to.not.include(reg.bid);
    expect(JSON.parse(JSON.stringify(reg)).bid).to.equal(reg.bidMasked);
    expect(inspect(reg)).to.not.include(reg.bid);
    expect(inspect(reg)).to.include(reg.bidMasked);

    const a = await nicepay.billing.charge({
      bid: reg.bid,
      moid: 'sub-2026-11',
      amount: 9900,
      goodsName: '정기구독 11월',
    });
    const b = await nicepay.billing.charge({
      bid: reg.bid,
      moid: 'sub-2026-12',
      amount: 9900,
      goodsName: '정기구독 12월',
    });
    expect(a.status).to.equal('approved');
    expect(a.tid).to.match(/^nictest04m0116261123100000[0-9A-Za-z]{4}$/);
    expect(b.tid).to.not.equal(a.tid);
    expect(a.tid).to.not.equal(reg.tid);
    if (a.status === 'approved') expect(a.payment).to.include({ amount: 9900, moid: 'sub-2026-11', mid: MID });
    expect(JSON.stringify(a)).to.not.include(reg.bid);

    const rm = await nicepay.billing.remove({ bid: reg.bid, moid: 'rm-a' });
    expect(rm.status).to.equal('removed');
    const after = await nicepay.billing.charge({
      bid: reg.bid,
      moid: 'sub-2027-01',
      amount: 9900,
      goodsName: '정기구독',
    });
    expect(after).to.include({ status: 'declined', code: 'F112' });
  });

  it('a decline (limit exceeded) is a result, and the BID stays usable', async () => {
    const bid = await newBid({ number: '4000000000009995', expYear: '29', expMonth: '12' });
    const r = await nicepay.billing.charge({ bid, moid: 'sub-x', amount: 50_000, goodsName: '구독' });
    expect(r).to.include({ status: 'declined', code: 'F104' });
    if (r.status === 'declined') expect(r.raw).to.not.have.property('BID');
  });

  it('concurrent duplicate charges of one Moid make one gateway call and share its result', async () => {
    const bid = await newBid();
    const input = { bid, moid: 'sub-dup', amount: 9900, goodsName: '구독' };
    const results = await Promise.all(Array.from({ length: 8 }, () => nicepay.billing.charge(input)));
    expect(chargeCalls()).to.equal(1);
    expect(new Set(results.map((r) => r.tid)).size).to.equal(1);
    expect(results.filter((r) => !r.duplicate)).to.have.length(1);
    expect(results.every((r) => r.status === 'approved')).to.equal(true);
  });

  it('two clients sharing one memoryStore (two instances in one process) charge a Moid once', async () => {
    const bid = await newBid();
    const store = memoryStore();
    const [a, b] = [client(store), client(store)];
    try {
      const input = { bid, moid: 'sub-shared', amount: 9900, goodsName: '구독' };
      const results = await Promise.all([a.billing.charge(input), b.billing.charge(input), a.billing.charge(input)]);
      expect(chargeCalls()).to.equal(1);
      expect(new Set(results.map((r) => r.tid)).size).to.equal(1);
    } finally {
      await a.close();
      await b.close();
      await store.close?.();
    }
  });

  it('a repeat with another BID or amount is refused without a gateway call', async () => {
    const bid = await newBid();
    const other = await newBid();
    await nicepay.billing.charge({ bid, moid: 'sub-m', amount: 9900, goodsName: '구독' });
    for (const input of [
      { bid: other, amount: 9900 },
      { bid, amount: 9901 },
    ]) {
      const err = await nicepay.billing.charge({ ...input, moid: 'sub-m', goodsName: '구독' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.have.property('code', 'NICEPAY_DUPLICATE_MISMATCH');
      log.record(err);
      expect(String((err as Error).message)).to.not.include(other);
    }
    expect(chargeCalls()).to.equal(1);
  });

  it('a lost answer (reset after the charge committed) is net-cancelled once; repeats are not sent again', async () => {
    const bid = await newBid();
    sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
    const input = { bid, moid: 'sub-lost', amount: 9900, goodsName: '구독' };
    const err = await nicepay.billing.charge(input).then(
      () => undefined,
      (e: unknown) => e,
    );
    log.record(err);
    expect(err).to.include({
      code: 'NICEPAY_OUTCOME_UNKNOWN',
      netCancel: 'succeeded',
      settlement: 'reversed',
      outcomeUnknown: false,
    });
    const entries = sandbox.ledger.entries().filter((e) => e.extra.service === 'billing');
    expect(entries.map((e) => e.status)).to.deep.equal(['net-cancelled']);
    const again = await nicepay.billing.charge(input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(again).to.have.property('code', 'NICEPAY_OUTCOME_UNKNOWN');
    expect(chargeCalls()).to.equal(1);
  });

  it('a timeout, a 5xx, an HTML page, a cut answer and one reporting another amount are each net-cancelled, the error saying why the outcome was unknown', async () => {
    const bid = await newBid();
    const faults = [
      { kind: 'delay' as const, commit: true, code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'status-500' as const, code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'alter-amount' as const, code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH' },
      { kind: 'html' as const, code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'truncate' as const, code: 'NICEPAY_OUTCOME_UNKNOWN' },
    ];
    for (const [i, { code, ...f }] of faults.entries()) {
      sandbox.faults.inject({ target: 'billing-charge', ...f });
      const moid = `sub-f${i}`;
      const err = await pastClientDeadline(sandbox, () =>
        nicepay.billing.charge({ bid, moid, amount: 9900, goodsName: '구독' }),
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      log.record(err);
      expect(err, f.kind).to.include({ code, netCancel: 'succeeded', settlement: 'reversed', outcomeUnknown: false });
      const entry = sandbox.ledger.entries().find((e) => e.moid === moid)!;
      expect(entry.status, f.kind).to.equal('net-cancelled');
    }
  });

  it('a failing onApproved net-cancels the charge; the hook runs once per TID', async () => {
    const bid = await newBid();
    let runs = 0;
    const err = await nicepay.billing
      .charge({
        bid,
        moid: 'sub-hook',
        amount: 9900,
        goodsName: '구독',
        onApproved: () => {
          runs++;
          throw new Error('orders table is down');
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    log.record(err);
    expect(err).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'succeeded' });
    expect(sandbox.ledger.entries().find((e) => e.moid === 'sub-hook')!.status).to.equal('net-cancelled');
    const again = await nicepay.billing
      .charge({
        bid,
        moid: 'sub-hook',
        amount: 9900,
        goodsName: '구독',
        onApproved: () => {
          runs++;
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(again).to.have.property('code', 'NICEPAY_HOOK_FAILED');
    expect(runs).to.equal(1);

    let seen: string | undefined;
    const ok = await nicepay.billing.charge({
      bid,
      moid: 'sub-hook-ok',
      amount: 9900,
      goodsName: '구독',
      onApproved: (r) => {
        seen = r.tid;
      },
    });
    expect(seen).to.equal(ok.tid);
    expect(sandbox.ledger.get(ok.tid)!.status).to.equal('approved');
  });

  it('a hook that never settles is reported, not reversed under it: netCancel not-attempted, outcome unknown', async () => {
    const bid = await newBid();
    let release!: () => void;
    const err = await nicepay.billing
      .charge({
        bid,
        moid: 'sub-hung',
        amount: 9900,
        goodsName: '구독',
        hookTimeoutMs: 20,
        onApproved: () =>
          new Promise<void>((resolve) => {
            release = resolve;
          }),
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    log.record(err);
    expect(err).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted', outcomeUnknown: true });
    expect(sandbox.ledger.entries().find((e) => e.moid === 'sub-hung')!.status).to.equal('approved');
    release();
  });

  it('a store that cannot record the charge before onApproved: the hook does not run, nothing is reversed, the caller is told the last recorded state; settlement and a repeat finish it', async () => {
    const bid = await newBid();
    const flaky = flakyStore((next) => next.state === 'committed');
    const np = client(flaky.store);
    try {
      let runs = 0;
      const input = {
        bid,
        moid: 'sub-store',
        amount: 9900,
        goodsName: '구독',
        onApproved: () => {
          runs++;
        },
      };
      const err = await np.billing.charge(input).then(
        () => undefined,
        (e: unknown) => e,
      );
      log.record(err);
      expect(err).to.include({
        code: 'NICEPAY_OUTCOME_UNKNOWN',
        netCancel: 'not-attempted',
        settlement: 'pending',
        outcomeUnknown: true,
      });
      expect(runs).to.equal(0);
      const key = `billing:${MID}:sub-store`;
      expect(await flaky.record(key)).to.include({ state: 'sending' });
      expect(sandbox.ledger.entries().find((e) => e.moid === 'sub-store')!.status).to.equal('approved');
      // The store answers again and the dead request's lease has expired: settlement learns
      // from the gateway that it holds the charge and records it; the hook waits for a caller.
      flaky.recover();
      flaky.advance(31_000);
      const report = await np.settle();
      expect(report.unsettled.map((u) => [u.operation, u.moid, u.state])).to.deep.equal([
        ['billing.charge', 'sub-store', 'committed'],
      ]);
      expect(runs).to.equal(0);
      // The caller's repeat brings its hook: it runs once and the charge is the caller's.
      const again = await np.billing.charge(input);
      expect(again).to.include({ status: 'approved', duplicate: true });
      expect(runs).to.equal(1);
      expect(await flaky.record(key)).to.include({ state: 'recorded', hook: 'resolved' });
      expect(chargeCalls()).to.equal(1);
      expect(sandbox.ledger.entries().find((e) => e.moid === 'sub-store')!.status).to.equal('approved');
    } finally {
      await np.close();
      await flaky.store.close?.();
    }
  });

  it("bad per-call hook options are the call's bad input (400 NICEPAY_FIELD_INVALID naming the option), and nothing is sent", async () => {
    const bid = await newBid();
    const base = { bid, moid: 'sub-opt', amount: 9900, goodsName: '구독' };
    for (const [field, bad] of [
      ['onApproved', { onApproved: 'record it' }],
      ['hookTimeoutMs', { hookTimeoutMs: -1 }],
      ['hookTimeoutMs', { hookTimeoutMs: 1.5 }],
    ] as const) {
      const err = await nicepay.billing.charge({ ...base, ...bad } as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, field).to.include({ code: 'NICEPAY_FIELD_INVALID', status: 400, field });
    }
    expect(chargeCalls()).to.equal(0);
    // Nothing was recorded either: the corrected call charges.
    expect(await nicepay.billing.charge({ ...base, hookTimeoutMs: 1_000 })).to.include({
      status: 'approved',
      duplicate: false,
    });
  });

  it('a charge is cancelled later with the ordinary cancel on its TID', async () => {
    const bid = await newBid();
    const ch = await nicepay.billing.charge({ bid, moid: 'sub-c', amount: 9900, goodsName: '구독' });
    const c = await nicepay.cancel({ tid: ch.tid, moid: 'sub-c', amount: 9900, reason: '구독 해지' });
    expect(c.status).to.equal('cancelled');
    expect(sandbox.ledger.get(ch.tid)!.status).to.equal('cancelled');
  });

  it('reads a KV answer in UTF-8 as it reads the default JSON in EUC-KR', async () => {
    const bid = await newBid();
    const r = await nicepay.billing.charge({
      bid,
      moid: 'sub-kv',
      amount: 9900,
      goodsName: '정기구독',
      ediType: 'KV',
      charset: 'utf-8',
      mallReserved: '구독 7번',
    });
    expect(r.status).to.equal('approved');
    if (r.status === 'approved') expect(r.payment.raw.MallReserved).to.equal('구독 7번');
  });

  it('bad input is refused before anything is sent, naming the field, never the BID', async () => {
    const err = await nicepay.billing.charge({ bid: 'BIKY-not-a-key', moid: 'm', amount: 100, goodsName: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'bid' });
    expect(String((err as Error).message)).to.not.include('BIKY-not-a-key');
    expect(sandbox.ledger.entries()).to.have.length(0);
  });

  it('never writes a BID, card data or the merchant key to a log line or an error', async () => {
    const bid = await newBid();
    sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
    log.record(
      await nicepay.billing.charge({ bid, moid: 'sub-s', amount: 9900, goodsName: '구독' }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    await nicepay.billing.remove({ bid, moid: 'rm-s' });
    const text = log.text();
    expect(log.lines.length).to.be.greaterThan(0);
    for (const b of bids) expect(text).to.not.include(b);
    expect(text).to.not.include(KEY);
    expect(text).to.not.include('4111111111111111');
  });

  describe('across instances sharing Redis', () => {
    let server: RedisServer;
    let clients: RedisClientType[] = [];
    before(async function () {
      this.timeout(20_000);
      server = await startRedisServer();
    });
    after(() => server?.stop());
    afterEach(async () => {
      await Promise.all(clients.map((c) => c.close()));
      clients = [];
    });

    it('two instances charging one Moid at once make one gateway call', async () => {
      const bid = await newBid();
      const instances = [0, 1].map(() => {
        const c = createClient({ url: server.url }) as RedisClientType;
        c.on('error', () => {});
        clients.push(c);
        return c;
      });
      await Promise.all(instances.map((c) => c.connect()));
      const [a, b] = instances.map((c) => client(redisStore({ client: c })));
      try {
        const input = { bid, moid: 'sub-redis', amount: 9900, goodsName: '구독' };
        const results = await Promise.all([
          a!.billing.charge(input),
          b!.billing.charge(input),
          a!.billing.charge(input),
          b!.billing.charge(input),
        ]);
        expect(chargeCalls()).to.equal(1);
        expect(new Set(results.map((r) => r.tid)).size).to.equal(1);
      } finally {
        await a!.close();
        await b!.close();
      }
    });
  });
});
