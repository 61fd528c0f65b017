import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mock } from 'node:test';
import { expect } from 'chai';
import fc from 'fast-check';
import express from 'express';
import request from 'supertest';
import { createNicepay, memoryStore, type CancelNotice, type DepositNotice } from '../src/index.js';
import { redisStore } from '../src/store/redis-store.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { startLifecycleShop, MERCHANT_KEY, MID, type LifecycleShop } from './helpers/lifecycle-shop.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { flush } from './helpers/settle-later.js';

const FORM = 'application/x-www-form-urlencoded';

/** A deposit notice as the gateway posts it (EUC-KR, no charset parameter). */
function depositBody(tid: string, moid: string, amount: number, extra: Record<string, string> = {}): Buffer {
  return encodeForm(
    {
      PayMethod: 'VBANK',
      ResultCode: '4110',
      ResultMsg: '입금 통보',
      TID: tid,
      MID,
      MOID: moid,
      Amt: String(amount),
      AuthDate: '261124093000',
      VbankNum: '91234567890123',
      VbankName: '우리은행',
      VbankInputName: '홍길동',
      FnCd: '020',
      FnName: '우리은행',
      StateCd: '0',
      MerchantKey: MERCHANT_KEY,
      ...extra,
    },
    'euc-kr',
  );
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
    expect(entry.notices!.map((d) => [d.attempt, d.answer])).to.deep.equal([
      [1, 'FAIL'],
      [2, 'OK'],
    ]);
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(1);
    expect(shop.captured.text()).to.match(/onDeposit failed/);
  });

  it('a duplicated delivery and a replay run the hook once, and every copy is answered OK', async () => {
    const issued = await shop.pay('VBANK', 7_000);
    await shop.sandbox.deposit(issued.tid, { duplicate: true });
    const entry = shop.sandbox.ledger.get(issued.tid)!;
    expect(entry.notices!.map((d) => d.answer)).to.deep.equal(['OK', 'OK']);
    const replay = await request(shop.app)
      .post('/pay/notify')
      .set('content-type', FORM)
      .send(depositBody(issued.tid, issued.moid, 7_000).toString('latin1'));
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
    expect(entry.notices!.map((d) => [d.attempt, d.status, d.answer])).to.deep.equal([
      [1, 409, 'FAIL'],
      [2, 409, 'FAIL'],
      [3, 409, 'FAIL'],
      [4, 409, 'FAIL'],
    ]);
    shop.sandbox.clock.advance(60_000);
    expect(await shop.sandbox.notices.runDue()).to.equal(0); // the retry count (3) is spent
    expect(shop.deposits.filter((d) => d.tid === issued.tid)).to.have.length(0);
    expect(shop.captured.text()).to.include("notice refused: Amt differs from the order's amount");
  });

  it('refuses an unknown MOID (404), another TID (409), another MID and a malformed body, all FAIL', async () => {
    const issued = await shop.pay('VBANK', 5_000);
    const post = (body: Buffer) =>
      request(shop.app).post('/pay/notify').set('content-type', FORM).send(body.toString('latin1'));
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
    const r = await shop.nicepay.cancel({
      tid: paid.tid,
      moid: paid.moid,
      amount: 1_000,
      reason: '부분 취소',
      partial: true,
    });
    expect(r.status).to.equal('cancelled');
    await shop.sandbox.notices.idle();
    const c = shop.cancels.find((x) => x.tid === paid.tid)!;
    expect(c).to.include({ moid: paid.moid, amount: 1_000, stateCd: '1', payMethod: 'CARD' });
    expect(shop.sandbox.ledger.get(paid.tid)!.notices!.map((d) => [d.kind, d.answer])).to.deep.equal([
      ['cancel', 'OK'],
    ]);
  });
});

describe('notifications: source address', () => {
  const makeApp = (
    opts: {
      allowedIps?: string[];
      trustProxy?: boolean | number;
      expectedAmount?: (moid: string) => { amount: number; tid: string } | undefined;
    },
    seen: DepositNotice[],
  ) => {
    const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    const app = express();
    app.post('/n', np.notifications({ expectedAmount: () => 1000, onDeposit: (n) => void seen.push(n), ...opts }));
    return { app, np };
  };
  const body = depositBody(`${MID}03012611240930ABCD`, 'ORDER-1', 1000).toString('latin1');

  it('by default accepts only the gateway addresses, from the socket: loopback and a forged X-Forwarded-For are refused', async () => {
    const seen: DepositNotice[] = [];
    const { app, np } = makeApp({}, seen);
    const res = await request(app)
      .post('/n')
      .set('content-type', FORM)
      .set('x-forwarded-for', '121.133.126.10')
      .send(body);
    expect([res.status, res.text]).to.deep.equal([403, 'FAIL']);
    // The source is checked before the body is read: a huge body from elsewhere is not a 413.
    const huge = await request(app).post('/n').set('content-type', FORM).send('x='.padEnd(100_000, 'a'));
    expect([huge.status, huge.text]).to.deep.equal([403, 'FAIL']);
    expect(seen).to.have.length(0);
    await np.close();
  });

  it("with trustProxy, takes the address the shop's proxy appended (the last), not one the client wrote", async () => {
    const seen: DepositNotice[] = [];
    const { app, np } = makeApp({ trustProxy: true }, seen);
    const spoofed = await request(app)
      .post('/n')
      .set('content-type', FORM)
      .set('x-forwarded-for', '121.133.126.10, 203.0.113.9')
      .send(body);
    expect(spoofed.status).to.equal(403);
    const real = await request(app)
      .post('/n')
      .set('content-type', FORM)
      .set('x-forwarded-for', '203.0.113.9, 211.33.136.39')
      .send(body);
    expect([real.status, real.text]).to.deep.equal([200, 'OK']);
    expect(seen).to.have.length(1);
    await np.close();
  });

  it('arbitrary bodies from an allowed address never get OK nor reach the hook', async () => {
    const seen: DepositNotice[] = [];
    const { app, np } = makeApp(
      {
        allowedIps: ['127.0.0.1'],
        expectedAmount: (moid) => (moid === 'ORDER-1' ? { amount: 1000, tid: `${MID}03012611240930ABCD` } : undefined),
      },
      seen,
    );
    const valid = depositBody(`${MID}03012611240930ABCD`, 'ORDER-1', 1000);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          // a valid notice with one byte changed or a field repeated
          fc
            .tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 }))
            .map(([i, b]) => {
              const copy = Buffer.from(valid);
              copy[i] = b;
              return copy;
            })
            .filter((b) => !b.equals(valid)),
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

  it('a body another parser already read is a setup error naming notifications(), the route to move', async () => {
    const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.post('/n', np.notifications({ allowedIps: ['127.0.0.1'], expectedAmount: () => 1000, onDeposit: () => {} }));
    let seen: { code?: string; message?: string } = {};
    app.use(((err, _req, res, _next) => {
      seen = err;
      res.status(500).end();
    }) as express.ErrorRequestHandler);
    const res = await request(app).post('/n').set('content-type', FORM).send(body);
    await np.close();
    expect(res.status).to.equal(500);
    expect(seen.code).to.equal('NICEPAY_BODY_ALREADY_PARSED');
    expect(seen.message).to.include('mount notifications() before express.urlencoded()');
    expect(seen.message).to.not.include('checkoutReturn');
  });

  it('refuses invalid options at creation, naming them', () => {
    const np = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    expect(() =>
      np.notifications({ expectedAmount: () => 1, onDeposit: () => {}, allowedIps: ['not-an-ip'] }),
    ).to.throw(/notifications.allowedIps/);
    expect(() => np.notifications({ expectedAmount: () => 1, onDeposit: () => {}, trustProxy: -1 })).to.throw(
      /notifications.trustProxy/,
    );
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
      const np = createNicepay({
        mid: MID,
        merchantKey: MERCHANT_KEY,
        baseUrl: 'http://127.0.0.1:9',
        store: redisStore({ url: redis.url }),
      });
      const app = express();
      app.post(
        '/n',
        np.notifications({
          expectedAmount: () => ({ amount: 4_000, tid: `${MID}03012611240930WXYZ` }),
          onDeposit: async (n) => {
            await new Promise((r) => setImmediate(r));
            recorded.push(n.tid);
          },
          allowedIps: ['127.0.0.1'],
        }),
      );
      return { np, app };
    });
    const body = depositBody(`${MID}03012611240930WXYZ`, 'ORDER-R', 4_000).toString('latin1');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        request(instances[i % 2]!.app)
          .post('/n')
          .set('content-type', FORM)
          .send(body),
      ),
    );
    expect(answers.map((a) => a.text)).to.deep.equal(Array(8).fill('OK'));
    expect(recorded).to.deep.equal([`${MID}03012611240930WXYZ`]);
    for (const i of instances) await i.np.close();
  });
});

/** Lets pending I/O and promise reactions run (real turns of the event loop, no clock involved). */
describe('notifications: a hook that outlives any lock (virtual time)', () => {
  const TID = `${MID}03012611240930SLOW`;
  const post = (app: express.Express, moid: string) =>
    request(app)
      .post('/pay/notify')
      .set('content-type', FORM)
      .send(depositBody(TID, moid, 5_000).toString('latin1'))
      .then((r) => r);

  // Timers and Date are virtual: the store's expiry, the hook's deadline and its heartbeat
  // all follow the test's clock; HTTP runs over real loopback.
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() }));
  afterEach(() => mock.timers.reset());

  /** Moves the virtual clock on by `ms`, a second at a time, letting I/O run in between. */
  async function advance(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 1_000) {
      mock.timers.tick(1_000);
      await flush();
    }
  }

  /** A shop whose onDeposit takes `runMs` of virtual time, then resolves or throws. */
  function slowShop(runMs: number, fail = false) {
    const calls: DepositNotice[] = [];
    let acquires = 0;
    const store = memoryStore({ now: () => Date.now() });
    const acquire = store.acquire.bind(store);
    store.acquire = (key, ttl) => {
      acquires++;
      return acquire(key, ttl);
    };
    const nicepay = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', store });
    const app = express();
    app.post(
      '/pay/notify',
      nicepay.notifications({
        expectedAmount: (moid) => (moid.startsWith('SLOW') ? 5_000 : undefined),
        allowedIps: ['127.0.0.1'],
        onDeposit: (n) => {
          calls.push(n);
          return new Promise<void>((resolve, reject) =>
            setTimeout(() => (fail ? reject(new Error('database is down')) : resolve()), runMs),
          );
        },
      }),
    );
    return { app, calls, nicepay, acquires: () => acquires };
  }

  it('a 75 s onDeposit and a gateway retry after 60 s: one run; the retry gets FAIL while it runs, OK once it resolved', async () => {
    const shop = slowShop(75_000);
    const first = post(shop.app, 'SLOW-1');
    while (shop.calls.length === 0) await flush();
    // hookTimeoutMs (10 s) aborts its signal; 10 s later it is still running: FAIL, not OK.
    await advance(20_000);
    const answered = await first;
    expect(answered.text).to.equal('FAIL');
    await advance(40_000);
    // 60 s: the gateway retries. Any fixed lock of hookTimeoutMs + 30 s has long expired.
    const seen = shop.acquires();
    const retry = post(shop.app, 'SLOW-1');
    while (shop.acquires() === seen) await flush();
    await advance(10_000);
    const during = await retry;
    expect(shop.calls, 'onDeposit ran once for one deposit').to.have.length(1);
    expect([during.status, during.text]).to.deep.equal([409, 'FAIL']);
    await advance(15_000); // 85 s: the hook resolved at 75 s
    const after = await post(shop.app, 'SLOW-1');
    expect([after.status, after.text]).to.deep.equal([200, 'OK']);
    expect(shop.calls).to.have.length(1);
    expect(answered.status, 'a hook still running is "in progress"').to.equal(409);
    await shop.nicepay.close();
  });

  it('a slow hook that finally fails frees the notice: the next retry runs it again', async () => {
    const shop = slowShop(30_000, true);
    const first = post(shop.app, 'SLOW-2');
    while (shop.calls.length === 0) await flush();
    await advance(20_000);
    expect((await first).text).to.equal('FAIL');
    await advance(15_000); // it threw at 30 s: nothing was recorded
    const retry = post(shop.app, 'SLOW-2');
    while (shop.calls.length < 2) await flush();
    await advance(35_000);
    expect((await retry).text).to.equal('FAIL');
    expect(shop.calls).to.have.length(2);
    await shop.nicepay.close();
  });
});

/** Posts raw bytes with exactly the headers given (no Content-Type unless one is given). */
function postRaw(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('notifications: identity, charset labels and close()', () => {
  /** A shop on a real port that records what its hooks receive. */
  async function shopOn(hooks: { onDeposit?: (n: DepositNotice) => Promise<void> | void } = {}) {
    const deposits: DepositNotice[] = [];
    const cancels: CancelNotice[] = [];
    const nicepay = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' });
    const app = express();
    app.post(
      '/n',
      nicepay.notifications({
        expectedAmount: () => 5_000,
        allowedIps: ['127.0.0.1'],
        onDeposit: async (n) => {
          deposits.push(n);
          await hooks.onDeposit?.(n);
        },
        onCancel: (n) => void cancels.push(n),
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/n`;
    return {
      app,
      nicepay,
      deposits,
      cancels,
      url,
      close: async () => {
        await nicepay.close();
        server.close();
      },
    };
  }

  it('a notice is EUC-KR whatever its header says: each label, and none, is decoded and recorded once', async () => {
    const shop = await shopOn();
    const labels = [
      'application/x-www-form-urlencoded; charset=MS949',
      'application/x-www-form-urlencoded; charset=x-euc-kr',
      'application/x-www-form-urlencoded; charset=KSC5601',
      'application/x-www-form-urlencoded; charset=UTF-8',
      'application/x-www-form-urlencoded; charset=ISO-8859-1',
      undefined,
    ];
    try {
      for (const [i, label] of labels.entries()) {
        const body = depositBody(`${MID}0301261124093000${i}C`, `ORDER-CS-${i}`, 5_000, { VbankInputName: '똠햏김' });
        const headers: Record<string, string> = label ? { 'content-type': label } : {};
        expect(await postRaw(shop.url, headers, body), String(label)).to.deep.equal({ status: 200, text: 'OK' });
        // The same notice again under another label is the same notice.
        expect(await postRaw(shop.url, { 'content-type': FORM }, body)).to.deep.equal({ status: 200, text: 'OK' });
      }
      expect(shop.deposits.map((d) => [d.moid, d.depositorName])).to.deep.equal(
        labels.map((_, i) => [`ORDER-CS-${i}`, '똠햏김']),
      );
      // Only what cannot be decoded as an EUC-KR form is refused.
      const broken = await postRaw(
        shop.url,
        { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        Buffer.concat([
          depositBody(`${MID}03012611240930BADC`, 'ORDER-CS-X', 5_000),
          Buffer.from('&Extra=\xff\xff', 'latin1'),
        ]),
      );
      expect(broken).to.deep.equal({ status: 400, text: 'FAIL' });
      expect(await postRaw(shop.url, { 'content-type': 'application/json' }, Buffer.from('{}'))).to.deep.equal({
        status: 415,
        text: 'FAIL',
      });
      expect(shop.deposits).to.have.length(labels.length);
    } finally {
      await shop.close();
    }
  });

  it('two 300-won partial cancels of one payment on one day reach onCancel twice; a repeat of either, once', async () => {
    const shop = await shopOn();
    const tid = `${MID}03012611240930CNCL`;
    const cancel = (cancelMoid: string) =>
      encodeForm(
        {
          PayMethod: 'CARD',
          ResultCode: '2001',
          ResultMsg: '취소 성공',
          TID: tid,
          MID,
          MOID: 'ORDER-CN',
          Amt: '300',
          StateCd: '1',
          CancelDate: '20261124',
          CancelMOID: cancelMoid,
        },
        'euc-kr',
      );
    try {
      const answers = [];
      for (const body of [cancel('ORDER-CN-c1'), cancel('ORDER-CN-c1'), cancel('ORDER-CN-c2'), cancel('ORDER-CN-c2')]) {
        answers.push(await postRaw(shop.url, { 'content-type': FORM }, body));
      }
      expect(answers.map((a) => a.text)).to.deep.equal(['OK', 'OK', 'OK', 'OK']);
      expect(shop.cancels.map((c) => [c.amount, c.cancelMoid])).to.deep.equal([
        [300, 'ORDER-CN-c1'],
        [300, 'ORDER-CN-c2'],
      ]);
    } finally {
      await shop.close();
    }
  });

  it('close() waits for a running notice hook; a notice after close() is answered FAIL and runs nothing', async () => {
    let finish: (() => void) | undefined;
    const shop = await shopOn({
      onDeposit: () =>
        new Promise<void>((r) => {
          finish = r;
        }),
    });
    try {
      const first = postRaw(
        shop.url,
        { 'content-type': FORM },
        depositBody(`${MID}03012611240930CLS1`, 'ORDER-CL-1', 5_000),
      );
      while (!finish) await flush();
      let closed = false;
      const closing = shop.nicepay.close().then(() => {
        closed = true;
      });
      await flush(20);
      expect(closed, 'close() waits for the running hook').to.equal(false);
      const late = await postRaw(
        shop.url,
        { 'content-type': FORM },
        depositBody(`${MID}03012611240930CLS2`, 'ORDER-CL-2', 5_000),
      );
      expect(late).to.deep.equal({ status: 503, text: 'FAIL' });
      expect(shop.deposits.map((d) => d.moid)).to.deep.equal(['ORDER-CL-1']);
      finish!();
      expect(await first).to.deep.equal({ status: 200, text: 'OK' });
      await closing;
      expect(closed).to.equal(true);
    } finally {
      await shop.close();
    }
  });
});
