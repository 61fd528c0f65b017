/**
 * Shutdown: nicepay.close() lets an approval in flight finish and return its result,
 * refuses returns that arrive after it with 503 NICEPAY_SHUTTING_DOWN, and sandbox.close()
 * resolves promptly even with a keep-alive connection open.
 */
import http from 'node:http';
import { expect } from 'chai';
import request from 'supertest';
import { withHeldTimers } from './helpers/fake-deadline.js';
import { startShop, type TestShop } from './helpers/shop.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';

describe('shutdown', function () {
  this.timeout(20_000);
  let shop: TestShop;
  before(async () => {
    shop = await startShop({ nicepay: { timeouts: { connectMs: 1_000, responseMs: 30_000 } } });
  });
  after(async () => {
    await shop.close();
  });

  it('close() waits for the approval in flight, which gets its approved result; later returns get 503', async () => {
    const moid = 'shutdown-1';
    shop.orders.set(moid, 3_000);
    const auth = await shop.sandbox.authenticate({ moid, amount: 3_000, method: 'CARD' });
    // The sandbox holds its answer for 2 s of held time: released by jump(), not by waiting.
    shop.sandbox.faults.inject({ target: 'approve', kind: 'delay', delayMs: 2_000 });
    await withHeldTimers(async (timers) => {
      const reached = faultTaken(shop);
      const inFlight = request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1')).then((r) => r);
      await reached;
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);

      let closed = false;
      const closing = shop.nicepay.close().then(() => { closed = true; });

      const lateMoid = 'shutdown-2';
      shop.orders.set(lateMoid, 3_000);
      const late = await shop.sandbox.authenticate({ moid: lateMoid, amount: 3_000, method: 'CARD' });
      const refused = await request(shop.app).post('/pay/return').set('content-type', late.contentType).send(late.body.toString('latin1'));
      expect(refused.status).to.equal(503);
      expect(refused.body.code).to.equal('NICEPAY_SHUTTING_DOWN');
      expect(shop.sandbox.ledger.get(late.fields.TxTid!)?.approvalCalls).to.equal(0);
      expect(closed, 'close() has not resolved while the approval is in flight').to.equal(false);

      timers.jump(2_000); // the gateway answers now (the client's 31 s deadline stays far off)
      const res = await inFlight;
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('approved');
      expect(shop.approved.map((a) => a.tid)).to.include(auth.fields.TxTid);
      await closing;
      expect(closed).to.equal(true);
    });
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
  });

  it('sandbox.close() closes a keep-alive connection that is open', async () => {
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
    const sockets = Object.values(agent.freeSockets).flat();
    expect(sockets, 'a keep-alive socket is open').to.have.length(1);
    const socketClosed = new Promise<void>((resolve) => sockets[0]!.once('close', () => resolve()));
    await shop.sandbox.close();
    await socketClosed;
    agent.destroy();
  });
});

/** Resolves when the sandbox takes its next queued fault (the request has reached it). */
function faultTaken(shop: TestShop): Promise<void> {
  const faults = shop.sandbox.faults;
  const take = faults.take;
  return new Promise((resolve) => {
    faults.take = (target) => {
      const fault = take.call(faults, target);
      if (fault) {
        faults.take = take;
        resolve();
      }
      return fault;
    };
  });
}

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
    // Every reaction to `first` runs before the next turn of the event loop.
    await new Promise((r) => setImmediate(r));
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
