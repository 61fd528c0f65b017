import { expect } from 'chai';
import request from 'supertest';
import { createNicepay, memoryStore } from '../src/index.js';
import { runOnce } from '../src/store/run-once.js';
import type { IdempotencyStore } from '../src/store/types.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { createSandbox } from '../src/sandbox/index.js';
import { MERCHANT_KEY, MID, startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn hardening', () => {
  let shop: TestShop;
  before(async () => {
    shop = await startShop();
  });
  after(() => shop.close());

  async function authFor(moid: string, amount = 1004) {
    shop.orders.set(moid, amount);
    return shop.sandbox.authenticate({ moid, amount, method: 'CARD' });
  }
  const post = (app: TestShop['app'], type: string, body: Buffer) =>
    request(app).post('/pay/return').set('content-type', type).send(body.toString('latin1'));

  it('refuses swapped or foreign endpoints on the trusted host (path checked, not just host)', async () => {
    const auth = await authFor('path-swap');
    const swaps = [
      { NextAppURL: auth.fields.NetCancelURL!, NetCancelURL: auth.fields.NextAppURL! },
      { NextAppURL: auth.fields.NextAppURL!.replace('pay_process.jsp', 'other.jsp') },
    ];
    for (const swap of swaps) {
      const res = await post(shop.app, auth.contentType, encodeForm({ ...auth.fields, ...swap }, 'euc-kr'));
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('NICEPAY_UNTRUSTED_URL');
    }
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });

  it('refuses a PayMethod outside the four before approving', async () => {
    const auth = await authFor('bad-method');
    const res = await post(shop.app, auth.contentType, encodeForm({ ...auth.fields, PayMethod: 'SSG_BANK' }, 'euc-kr'));
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'NICEPAY_FIELD_INVALID' });
    expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
  });
});

describe('checkoutReturn when the gateway cannot be reached', () => {
  it('reports 503 UNREACHABLE, caches nothing, and a retry approves once the gateway is back', async () => {
    const sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    const port = Number(new URL(url).port);
    const shop = await startShop({ sandbox });
    try {
      shop.orders.set('down', 1004);
      const auth = await sandbox.authenticate({ moid: 'down', amount: 1004, method: 'BANK' });
      await sandbox.close();
      const first = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(first.status).to.equal(503);
      expect(first.body).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', netCancel: 'not-attempted' });
      await sandbox.listen(port);
      const second = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(second.status).to.equal(200);
      expect(second.body).to.include({ status: 'approved', duplicate: false });
      expect(sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
    } finally {
      await shop.close();
      await sandbox.close();
    }
  });
});

describe('checkoutReturn when the store cannot write the result', () => {
  it('answers the buyer with the approval it made, and logs the TID whose result was not stored', async () => {
    const store = memoryStore();
    const shop = await startShop({ nicepay: { store: { ...store, complete: () => Promise.reject(new Error('write lost')) } } });
    try {
      shop.orders.set('unstored-1', 1004);
      const auth = await shop.sandbox.authenticate({ moid: 'unstored-1', amount: 1004, method: 'CARD' });
      const res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ status: 'approved', tid: auth.fields.TxTid });
      expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      const line = shop.captured.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => String(l.msg).includes('approval result not stored'));
      expect(line).to.include({ level: 'error', tid: auth.fields.TxTid, moid: 'unstored-1', step: 'store', error: 'write lost' });
    } finally {
      await shop.close();
    }
  });
});

describe('runOnce when the store misbehaves', () => {
  const failing = (overrides: Partial<IdempotencyStore>): IdempotencyStore => ({ ...memoryStore(), ...overrides });

  it('a store that cannot be read refuses with 503 before any work', async () => {
    let ran = false;
    const store = failing({ acquire: () => Promise.reject(new Error('redis down')) });
    const err = await runOnce(store, 'k', { lockTtlMs: 100, resultTtlMs: 100 }, async () => { ran = true; return 'x'; }).catch((e) => e);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(ran).to.equal(false);
  });

  it('a result that cannot be written is still returned to the caller that did the work, and reported', async () => {
    const store = failing({ complete: () => Promise.reject(new Error('write lost')) });
    const out = await runOnce(store, 'k', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done');
    expect(out).to.include({ value: 'done', fresh: true, stored: false });
    expect((out!.storeError as Error).message).to.equal('write lost');
    // A store that rejects with nothing at all is still reported as not stored.
    const silent = failing({ complete: () => Promise.reject(undefined) });
    expect(await runOnce(silent, 'k2', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done')).to.deep.equal({ value: 'done', fresh: true, stored: false, storeError: undefined });
    expect(await runOnce(memoryStore(), 'k3', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done')).to.deep.equal({ value: 'done', fresh: true, stored: true });
  });

  it('a synchronous store that throws is handled like one that rejects: 503 before any work, a lost write reported', async () => {
    let ran = false;
    const unreadable = failing({ acquire: () => { throw new Error('disk gone'); } });
    const err = await runOnce(unreadable, 'k', { lockTtlMs: 100, resultTtlMs: 100 }, async () => { ran = true; return 'x'; }).catch((e) => e);
    expect(err).to.include({ code: 'NICEPAY_STORE_UNAVAILABLE', status: 503 });
    expect(ran).to.equal(false);
    const unwritable = failing({ complete: () => { throw new Error('write lost'); } });
    const out = await runOnce(unwritable, 'k', { lockTtlMs: 1_000, resultTtlMs: 1_000 }, async () => 'done');
    expect(out).to.include({ value: 'done', fresh: true, stored: false });
    expect((out!.storeError as Error).message).to.equal('write lost');
  });

  it('a failed work releases the key even when release throws synchronously, and the error is the work\'s', async () => {
    const store = memoryStore();
    const releases: string[] = [];
    const wrapped: IdempotencyStore = { ...store, release: (key, token) => { releases.push(key); store.release(key, token); throw new Error('release hiccup'); } };
    const err = await runOnce(wrapped, 'k', { lockTtlMs: 60_000, resultTtlMs: 1_000 }, async () => { throw new Error('gateway down'); }).catch((e) => e);
    expect((err as Error).message).to.equal('gateway down');
    expect(releases).to.deep.equal(['k']);
    expect((await store.acquire('k', 1_000)).state).to.equal('acquired');
  });

  it('a waiter gives up with 409 IN_PROGRESS instead of hanging behind a stuck lock', async () => {
    const store = memoryStore();
    await store.acquire('k', 60_000);
    const err = await runOnce(store, 'k', { lockTtlMs: 60_000, resultTtlMs: 1_000, maxWaitMs: 50, pollMs: 5 }, async () => 'x').catch((e) => e);
    expect(err).to.include({ code: 'NICEPAY_IN_PROGRESS', status: 409 });
  });
});
