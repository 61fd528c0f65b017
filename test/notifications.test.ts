import { expect } from 'chai';
import fc from 'fast-check';
import express from 'express';
import request from 'supertest';
import { createNicepay, type DepositNotice } from '../src/index.js';
import { redisStore } from '../src/store/redis-store.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { startLifecycleShop, MERCHANT_KEY, MID, type LifecycleShop } from './helpers/lifecycle-shop.js';
import { withHeldTimers } from './helpers/fake-deadline.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';

const FORM = 'application/x-www-form-urlencoded';

/** A deposit notice as the gateway posts it (EUC-KR, no charset parameter). */
function depositBody(tid: string, moid: string, amount: number, extra: Record<string, string> = {}): Buffer {
  return encodeForm({
    PayMethod: 'VBANK', ResultCode: '4110', ResultMsg: '입금 통보', TID: tid, MID, MOID: moid, Amt: String(amount),
    AuthDate: '261124093000', VbankNum: '91234567890123', VbankName: '우리은행', VbankInputName: '홍길동', FnCd: '020', FnName: '우리은행',
    StateCd: '0', MerchantKey: MERCHANT_KEY, ...extra,
  }, 'euc-kr');
}

describe('notifications: deposit and cancel notices', () => {
  let shop: LifecycleShop;
  before(async () => {
    shop = await startLifecycleShop({ merchant: { notifyCancels: true } });
  });
  after(async () => {
    await shop.close();
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY);
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY.slice(0, 16));
  });

  it('a deposit through the sandbox: OK once the hook resolved, EUC-KR depositor decoded, the ledger shows the delivery', async () => {
    const issued = await shop.pay('VBANK', 25_000);
    await shop.sandbox.deposit(issued.tid, { depositor: '똠햏김' }); // CP949-only syllables
    const n = shop.deposits.find((d) => d.tid === issued.tid)!;
    expect(n).to.include({ moid: issued.moid, amount: 25_000, depositorName: '똠햏김', bankCode: '020' });
    expect(n.depositedAt).to.be.instanceOf(Date);
    expect(Object.keys(n.raw).map((k) => k.toLowerCase())).to.not.include('merchantkey');
    const entry = shop.sandbox.ledger.get(issued.tid)!;
    expect(entry.status).to.equal('approved');
    expect(entry.notices).to.have.length(1);
    expect(entry.notices![0]).to.include({ kind: 'deposit', attempt: 1, status: 200, answer: 'OK', ok: true });
    expect(shop.sandbox.notices.pending()).to.equal(0);
  });

  it('a hook that throws answers FAIL; the retry on the virtual clock answers OK and records once', async () => {
    const issued = await shop.pay('VBANK', 12_000);
    shop.failDeposits = 1;
    await shop.sandbox.deposit(issued.tid);
    const entry = shop.sandbox.ledger.get(issued.tid)!;
    expect(entry.notices!.map((d) => [d.status, d.answer])).to.deep.equal([[500, 'FAIL']]);
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(0);
    expect(await shop.sandbox.notices.runDue()).to.equal(0); // not due yet: the retry interval is 1 minute
    shop.sandbox.clock.advance(60_000);
    expect(await shop.sandbox.notices.runDue()).to.equal(1);
    expect(entry.notices!.map((d) => [d.attempt, d.answer])).to.deep.equal([[1, 'FAIL'], [2, 'OK']]);
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(1);
    expect(shop.captured.text()).to.match(/onDeposit failed/);
  });

  it('a duplicated delivery and a replay run the hook once, and every copy is answered OK', async () => {
    const issued = await shop.pay('VBANK', 7_000);
    await shop.sandbox.deposit(issued.tid, { duplicate: true });
    const entry = shop.sandbox.ledger.get(issued.tid)!;
    expect(entry.notices!.map((d) => d.answer)).to.deep.equal(['OK', 'OK']);
    const replay = await request(shop.app).post('/pay/notify').set('content-type', FORM).send(depositBody(issued.tid, issued.moid, 7_000).toString('latin1'));
    expect(replay.status).to.equal(200);
    expect(replay.text).to.equal('OK');
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(1);
  });

  it('a late delivery arrives when the virtual clock reaches it', async () => {
    const issued = await shop.pay('VBANK', 8_000);
    await shop.sandbox.deposit(issued.tid, { lateMinutes: 5 });
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(0);
    shop.sandbox.clock.advance(4 * 60_000);
    expect(await shop.sandbox.notices.runDue()).to.equal(0);
    shop.sandbox.clock.advance(60_000);
    expect(await shop.sandbox.notices.runDue()).to.equal(1);
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(1);
  });

  it('a wrong amount is refused (409 FAIL, logged), retried up to the count, and never recorded', async () => {
    const issued = await shop.pay('VBANK', 9_000);
    await shop.sandbox.deposit(issued.tid, { amount: 8_000 });
    for (let i = 0; i < 3; i++) {
      shop.sandbox.clock.advance(60_000);
      await shop.sandbox.notices.runDue();
    }
    const entry = shop.sandbox.ledger.get(issued.tid)!;
    expect(entry.notices!.map((d) => [d.attempt, d.status, d.answer])).to.deep.equal([[1, 409, 'FAIL'], [2, 409, 'FAIL'], [3, 409, 'FAIL'], [4, 409, 'FAIL']]);
    shop.sandbox.clock.advance(60_000);
    expect(await shop.sandbox.notices.runDue()).to.equal(0); // the retry count (3) is spent
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(0);
    expect(shop.captured.text()).to.include("notice refused: Amt differs from the order's amount");
  });

  it('refuses an unknown MOID (404), another TID (409), another MID and a malformed body, all FAIL', async () => {
    const issued = await shop.pay('VBANK', 5_000);
    const post = (body: Buffer) => request(shop.app).post('/pay/notify').set('content-type', FORM).send(body.toString('latin1'));
    const unknown = await post(depositBody(issued.tid, 'NO-SUCH-ORDER', 5_000));
    expect([unknown.status, unknown.text]).to.deep.equal([404, 'FAIL']);
    const forged = await post(depositBody(`${MID}03012611240930ABCD`, issued.moid, 5_000));
    expect([forged.status, forged.text]).to.deep.equal([409, 'FAIL']);
    const otherMid = await post(depositBody(issued.tid, issued.moid, 5_000, { MID: 'nictest04m' }));
    expect([otherMid.status, otherMid.text]).to.deep.equal([409, 'FAIL']);
    const broken = await request(shop.app).post('/pay/notify').set('content-type', FORM).send('TID=%ZZ');
    expect([broken.status, broken.text]).to.deep.equal([400, 'FAIL']);
    const json = await request(shop.app).post('/pay/notify').set('content-type', 'application/json').send('{}');
    expect([json.status, json.text]).to.deep.equal([415, 'FAIL']);
    const notDeposit = await post(depositBody(issued.tid, issued.moid, 5_000, { ResultCode: '9999', StateCd: '' }));
    expect([notDeposit.status, notDeposit.text]).to.deep.equal([400, 'FAIL']);
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(0);
    expect(shop.captured.text()).to.include('notice refused: no order with this MOID');
  });

  it('a cancel in the sandbox notifies onCancel (StateCd 1 on the approval day)', async () => {
    const paid = await shop.pay('CARD', 3_000);
    const r = await shop.nicepay.cancel({ tid: paid.tid, moid: paid.moid, amount: 1_000, reason: '부분 취소', partial: true });
    expect(r.status).to.equal('cancelled');
    await shop.sandbox.notices.idle();
    const c = shop.cancels.find((x) => x.tid === paid.tid)!;
    expect(c).to.include({ moid: paid.moid, amount: 1_000, stateCd: '1', payMethod: 'CARD' });
    expect(shop.sandbox.ledger.get(paid.tid)!.notices!.map((d) => [d.kind, d.answer])).to.deep.equal([['cancel', 'OK']]);
  });
});

describe('notifications: source address', () => {
  const makeApp = (opts: { allowedIps?: string[]; trustProxy?: boolean | number; expectedAmount?: (moid: string) => { amount: number; tid: string } | undefined }, seen: DepositNotice[]) => {
    const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    const app = express();
    app.post('/n', np.notifications({ expectedAmount: () => 1000, onDeposit: (n) => void seen.push(n), ...opts }));
    return { app, np };
  };
  const body = depositBody(`${MID}03012611240930ABCD`, 'ORDER-1', 1000).toString('latin1');

  it('by default accepts only the gateway addresses, from the socket: loopback and a forged X-Forwarded-For are refused', async () => {
    const seen: DepositNotice[] = [];
    const { app, np } = makeApp({}, seen);
    const res = await request(app).post('/n').set('content-type', FORM).set('x-forwarded-for', '121.133.126.10').send(body);
    expect([res.status, res.text]).to.deep.equal([403, 'FAIL']);
    // The source is checked before the body is read: a huge body from elsewhere is not a 413.
    const huge = await request(app).post('/n').set('content-type', FORM).send('x='.padEnd(100_000, 'a'));
    expect([huge.status, huge.text]).to.deep.equal([403, 'FAIL']);
    expect(seen).to.have.length(0);
    await np.close();
  });

  it('with trustProxy, takes the address the shop\'s proxy appended (the last), not one the client wrote', async () => {
    const seen: DepositNotice[] = [];
    const { app, np } = makeApp({ trustProxy: true }, seen);
    const spoofed = await request(app).post('/n').set('content-type', FORM).set('x-forwarded-for', '121.133.126.10, 203.0.113.9').send(body);
    expect(spoofed.status).to.equal(403);
    const real = await request(app).post('/n').set('content-type', FORM).set('x-forwarded-for', '203.0.113.9, 211.33.136.39').send(body);
    expect([real.status, real.text]).to.deep.equal([200, 'OK']);
    expect(seen).to.have.length(1);
    await np.close();
  });

  it('arbitrary bodies from an allowed address never get OK nor reach the hook', async () => {
    const seen: DepositNotice[] = [];
    const { app, np } = makeApp({ allowedIps: ['127.0.0.1'], expectedAmount: (moid) => (moid === 'ORDER-1' ? { amount: 1000, tid: `${MID}03012611240930ABCD` } : undefined) }, seen);
    const valid = depositBody(`${MID}03012611240930ABCD`, 'ORDER-1', 1000);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          // a valid notice with one byte changed or a field repeated
          fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, b]) => {
            const copy = Buffer.from(valid);
            copy[i] = b;
            return copy;
          }).filter((b) => !b.equals(valid)),
          fc.constant(Buffer.concat([valid, Buffer.from('&MOID=ORDER-2')])),
        ),
        async (body) => {
          const res = await request(app).post('/n').set('content-type', FORM).send(body.toString('latin1'));
          // A changed byte may still be a valid notice for order ORDER-1 (say in VbankName): then it is a deposit.
          if (res.text === 'OK') expect(seen.at(-1)?.moid).to.equal('ORDER-1');
          else expect(res.text).to.equal('FAIL');
        },
      ),
      { numRuns: 60 },
    );
    expect(seen.length).to.be.at.most(1); // one deposit, however often and however altered it was sent
    expect(seen.every((n) => n.tid === `${MID}03012611240930ABCD` && n.amount === 1000)).to.equal(true);
    await np.close();
  });

  it('refuses invalid options at creation, naming them', () => {
    const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    expect(() => np.notifications({ expectedAmount: () => 1, onDeposit: () => {}, allowedIps: ['not-an-ip'] })).to.throw(/notifications.allowedIps/);
    expect(() => np.notifications({ expectedAmount: () => 1, onDeposit: () => {}, trustProxy: -1 })).to.throw(/notifications.trustProxy/);
    expect(() => np.notifications({ expectedAmount: () => 1 } as never)).to.throw(/notifications.onDeposit/);
  });
});

describe('notifications: two instances on one Redis', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis.stop();
  });

  it('concurrent duplicates of a notice to two instances run onDeposit once; every copy is answered OK', async () => {
    const recorded: string[] = [];
    const instances = [0, 1].map(() => {
      const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', store: redisStore({ url: redis.url }) });
      const app = express();
      app.post('/n', np.notifications({
        expectedAmount: () => ({ amount: 4_000, tid: `${MID}03012611240930WXYZ` }),
        onDeposit: async (n) => {
          await new Promise((r) => setImmediate(r));
          recorded.push(n.tid);
        },
        allowedIps: ['127.0.0.1'],
      }));
      return { np, app };
    });
    const body = depositBody(`${MID}03012611240930WXYZ`, 'ORDER-R', 4_000).toString('latin1');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => request(instances[i % 2]!.app).post('/n').set('content-type', FORM).send(body)),
    );
    expect(answers.map((a) => a.text)).to.deep.equal(Array(8).fill('OK'));
    expect(recorded).to.deep.equal([`${MID}03012611240930WXYZ`]);
    for (const i of instances) await i.np.close();
  });
});

describe('notifications: a hook slower than hookTimeoutMs (the hook decides, never the clock)', () => {
  const TID = `${MID}03012611240930SLOW`;
  const post = (app: express.Express, moid: string) =>
    request(app).post('/pay/notify').set('content-type', FORM).send(depositBody(TID, moid, 5_000).toString('latin1'));

  /** A shop whose onDeposit waits for the test: `finish(ok)` settles the call under way. */
  function slowShop() {
    const calls: DepositNotice[] = [];
    let settle: ((ok: boolean) => void) | undefined;
    let held: ((jump: number) => void) | undefined;
    const nicepay = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    const app = express();
    app.post('/pay/notify', nicepay.notifications({
      expectedAmount: (moid) => (moid.startsWith('SLOW') ? 5_000 : undefined),
      allowedIps: ['127.0.0.1'],
      hookTimeoutMs: 5_000,
      onDeposit: (n) => {
        calls.push(n);
        // Once the hook runs, its deadline is armed: jump past it instead of waiting 5 s.
        if (held) setImmediate(held, 30_000);
        return new Promise<void>((resolve, reject) => { settle = (ok) => (ok ? resolve() : reject(new Error('database is down'))); });
      },
    }));
    return {
      app, calls, nicepay,
      hold: (jump: ((ms: number) => void) | undefined) => { held = jump; },
      finish: (ok: boolean) => settle!(ok),
    };
  }

  /** Posts a notice whose hook is still running when its timeout fires. */
  async function timedOutPost(shop: ReturnType<typeof slowShop>, moid: string) {
    const res = await withHeldTimers(async (timers) => {
      shop.hold(timers.jump);
      return post(shop.app, moid);
    });
    shop.hold(undefined);
    return res;
  }

  it('answers FAIL at the timeout, but a retry while the hook runs on does not run it again; once it resolved, OK', async () => {
    const shop = slowShop();
    try {
      const first = await timedOutPost(shop, 'SLOW-1');
      expect(first.status).to.equal(500);
      expect(first.text).to.equal('FAIL');
      expect(shop.calls).to.have.length(1);
      // The gateway retries while the first hook is still recording the deposit.
      const retry = post(shop.app, 'SLOW-1').then((r) => r);
      await new Promise((r) => setImmediate(r));
      shop.finish(true); // the slow hook recorded the deposit after all
      const second = await retry;
      expect([second.status, second.text]).to.deep.equal([200, 'OK']);
      expect((await post(shop.app, 'SLOW-1')).text).to.equal('OK');
      expect(shop.calls, 'onDeposit ran once for one deposit').to.have.length(1);
    } finally {
      await shop.nicepay.close();
    }
  });

  it('a slow hook that finally fails leaves the notice to the retry, which runs it again', async () => {
    const shop = slowShop();
    try {
      const first = await timedOutPost(shop, 'SLOW-2');
      expect(first.text).to.equal('FAIL');
      shop.finish(false); // nothing was recorded
      await new Promise((r) => setImmediate(r));
      const retry = post(shop.app, 'SLOW-2').then((r) => r);
      await new Promise((r) => setImmediate(r));
      while (shop.calls.length < 2) await new Promise((r) => setImmediate(r));
      shop.finish(true);
      expect((await retry).text).to.equal('OK');
      expect(shop.calls).to.have.length(2);
    } finally {
      await shop.nicepay.close();
    }
  });
});
