/**
 * Shutdown (issue 5): nicepay.close() lets an approval in flight finish and return its result,
 * refuses returns that arrive after it with 503 NICEPAY_SHUTTING_DOWN, and sandbox.close()
 * resolves promptly even with a keep-alive connection open.
 */
import http from 'node:http';
import { expect } from 'chai';
import request from 'supertest';
import { startShop, type TestShop } from './helpers/shop.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';

describe('shutdown', function () {
  this.timeout(20_000);
  let shop: TestShop;
  before(async () => {
    shop = await startShop({ nicepay: { timeouts: { connectMs: 1_000, responseMs: 3_000 } } });
  });
  after(async () => {
    await shop.close();
  });

  it('close() waits for the approval in flight, which gets its approved result; later returns get 503', async () => {
    const moid = 'shutdown-1';
    shop.orders.set(moid, 3_000);
    const auth = await shop.sandbox.authenticate({ moid, amount: 3_000, method: 'CARD' });
    shop.sandbox.faults.inject({ target: 'approve', kind: 'delay', delayMs: 300 });
    const inFlight = request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1')).then((r) => r);
    // Let the approval reach the sandbox before closing.
    for (let i = 0; i < 100 && (shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);

    let closedAt = 0;
    const closing = shop.nicepay.close().then(() => { closedAt = Date.now(); });

    const lateMoid = 'shutdown-2';
    shop.orders.set(lateMoid, 3_000);
    const late = await shop.sandbox.authenticate({ moid: lateMoid, amount: 3_000, method: 'CARD' });
    const refused = await request(shop.app).post('/pay/return').set('content-type', late.contentType).send(late.body.toString('latin1'));
    expect(refused.status).to.equal(503);
    expect(refused.body.code).to.equal('NICEPAY_SHUTTING_DOWN');
    expect(shop.sandbox.ledger.get(late.fields.TxTid!)?.approvalCalls).to.equal(0);
    expect(closedAt, 'close() has not resolved while the approval is in flight').to.equal(0);

    const res = await inFlight;
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('approved');
    expect(shop.approved.map((a) => a.tid)).to.include(auth.fields.TxTid);
    await closing;
    expect(closedAt).to.be.greaterThan(0);
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
  });

  it('sandbox.close() resolves promptly with a keep-alive connection open', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL('/webapi/cancel_process.jsp', shop.sandbox.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end('NetCancel=1');
    });
    expect(status).to.equal(200);
    expect(Object.values(agent.freeSockets).flat(), 'a keep-alive socket is open').to.have.length(1);
    const started = Date.now();
    await shop.sandbox.close();
    expect(Date.now() - started).to.be.lessThan(500);
    agent.destroy();
  });
});

describe('closeContext', () => {
  const config = resolveConfig({ mid: 'nicepay00m', merchantKey: 'k'.repeat(88), baseUrl: 'https://webapi.nicepay.co.kr' });
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('waits for a call that a settling call starts (a net cancel after an approval), not just the ones in flight at close()', async () => {
    const ctx = createContext(config);
    const first = deferred();
    const second = deferred();
    let secondTracked = false;
    ctx.track(first.promise);
    // Registered after track's own reaction: runs just after the count reached 0.
    void first.promise.then(() => {
      ctx.track(second.promise);
      secondTracked = true;
    });
    let closed = false;
    const closing = closeContext(ctx).then(() => (closed = true));
    first.resolve();
    await new Promise((r) => setTimeout(r, 20));
    expect(secondTracked).to.equal(true);
    expect(closed, 'close() must still wait for the second call').to.equal(false);
    second.resolve();
    await closing;
    expect(closed).to.equal(true);
    expect(ctx.inFlight()).to.equal(0);
  });

  it('is one shutdown: resolves at once when nothing is in flight, the same promise every time', async () => {
    const ctx = createContext(config);
    const a = closeContext(ctx);
    expect(closeContext(ctx)).to.equal(a);
    await a;
    expect(ctx.isClosing()).to.equal(true);
  });
});
