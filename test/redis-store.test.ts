import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import request from 'supertest';
import { createClient, type RedisClientType } from 'redis';
import { NicepayConfigError } from '../src/errors/index.js';
import { redisStore, type RedisStoreOptions } from '../src/store/redis-store.js';
import { runOnce } from '../src/store/run-once.js';
import type { IdempotencyStore } from '../src/store/types.js';
import { startRedisCluster, type RedisCluster } from './helpers/redis-cluster.js';
import { startRedisSentinel, type RedisSentinelSetup } from './helpers/redis-sentinel.js';
import { freePort, startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { connectAdmin, connectShopClient, type RedisAdmin, type RedisDeployment, type RedisLibrary, type ShopClient } from './helpers/redis-targets.js';
import type { RedisStoreClient } from '../src/store/redis-client.js';
import { startShop } from './helpers/shop.js';

/**
 * What Redis does when `key`'s expiry comes, without waiting for it: checks that the store set
 * the expiry it was asked for (the remaining time is at most `ttlMs` and not none), then deletes
 * the key as expiry would.
 */
async function expire(client: Pick<RedisAdmin, 'pTTL' | 'del'>, key: string, ttlMs: number): Promise<void> {
  const left = await client.pTTL(key);
  expect(left, `${key} has an expiry`).to.be.greaterThan(0);
  expect(left).to.be.at.most(ttlMs);
  await client.del(key);
}

describe('redisStore: options and url mode (against a real redis-server)', function () {
  this.timeout(30_000);

  let server: RedisServer | undefined;
  let url = '';
  let clientA: RedisClientType;
  let clientB: RedisClientType;
  const stores: IdempotencyStore[] = [];

  function track(store: IdempotencyStore): IdempotencyStore {
    stores.push(store);
    return store;
  }

  before(async function () {
    this.timeout(20_000);
    // startRedisServer fails, not skips, without redis-server: CI must run these tests.
    server = await startRedisServer();
    url = server.url;
    clientA = createClient({ url });
    clientB = createClient({ url });
    clientA.on('error', () => {});
    clientB.on('error', () => {});
    await clientA.connect();
    await clientB.connect();
  });

  beforeEach(async () => {
    await clientA.flushAll();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close?.()));
  });

  after(async () => {
    await clientA?.close();
    await clientB?.close();
    await server?.stop();
  });

  describe('options', () => {
    function configError(options: unknown, option: string): void {
      let thrown: unknown;
      try {
        redisStore(options as RedisStoreOptions);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, `no error for ${JSON.stringify(options)}`).to.be.instanceOf(NicepayConfigError);
      expect((thrown as NicepayConfigError).code).to.equal('NICEPAY_CONFIG_INVALID');
      expect((thrown as Error).message).to.include(option);
    }

    it('rejects bad options at creation, naming the option', () => {
      configError(undefined, 'redisStore options');
      configError({}, 'client');
      configError({ client: {} }, 'client');
      configError({ client: clientA, url: 'redis://127.0.0.1:1' }, 'client');
      configError({ url: 'http://127.0.0.1:6379' }, 'url');
      configError({ url: 'not a url' }, 'url');
      configError({ url: 42 }, 'url');
      configError({ client: clientA, prefix: 7 }, 'prefix');
      configError({ client: clientA, prefix: 'a\nb' }, 'prefix');
      // Braces would change the cluster hash tag that keeps a lock and its result in one slot.
      configError({ client: clientA, prefix: 'shop{1}:' }, 'prefix');
      // Not a client of either library: an ioredis look-alike without isCluster, a bare object.
      configError({ client: { call: async () => 'OK' } }, 'client');
      configError({ client: { get: async () => null } }, 'client');
      configError({ client: clientA, commandTimeoutMs: 0 }, 'commandTimeoutMs');
      configError({ client: clientA, commandTimeoutMs: 1.5 }, 'commandTimeoutMs');
      configError({ client: clientA, onError: () => {} }, 'onError');
      configError({ url: 'redis://127.0.0.1:1', onError: 'log' }, 'onError');
    });

    it('accepts a node-redis client and a default prefix', async () => {
      const store = track(redisStore({ client: clientA }));
      const got = await store.acquire('k', 10_000);
      expect(got.state).to.equal('acquired');
      expect(await clientA.exists('nicepay:{k}:lock')).to.equal(1);
    });
  });

  describe('url mode (the store owns its client)', () => {
    it('connects, works, and closes its own client but never a client passed in', async () => {
      const owned = redisStore({ url, prefix: 'own:' });
      const got = await owned.acquire('k', 10_000);
      if (got.state !== 'acquired') throw new Error('not acquired');
      await owned.complete('k', got.token, 'v', 60_000);
      expect(await clientA.get('own:{k}:result')).to.equal('v');
      const before = Number(/connected_clients:(\d+)/.exec(await clientA.info('clients'))?.[1]);
      await owned.close?.();
      await owned.close?.();
      // Redis drops the connection on its own schedule: ask until it has (round trips, no sleeps).
      let after = before;
      for (let i = 0; i < 1_000 && after === before; i++) after = Number(/connected_clients:(\d+)/.exec(await clientA.info('clients'))?.[1]);
      expect(after).to.equal(before - 1);
      let err: unknown;
      try { await owned.acquire('k', 10_000); } catch (e) { err = e; }
      expect((err as Error).message).to.match(/after close/);

      const borrowed = redisStore({ client: clientB });
      await borrowed.close?.();
      expect(clientB.isOpen).to.equal(true);
      expect(await clientB.ping()).to.equal('PONG');
    });

    it('fails an operation after commandTimeoutMs when Redis is unreachable, and closes promptly', async () => {
      const deadPort = await freePort();
      const errors: unknown[] = [];
      const store = redisStore({ url: `redis://127.0.0.1:${deadPort}`, commandTimeoutMs: 200, onError: (e) => errors.push(e) });
      let err: unknown;
      try { await store.acquire('k', 10_000); } catch (e) { err = e; }
      expect((err as Error).message).to.match(/acquire timed out after 200 ms/);
      expect(errors.length).to.be.greaterThan(0);
      // Closing does not wait for a connection that never came.
      await store.close?.();
      err = undefined;
      try { await store.acquire('k', 10_000); } catch (e) { err = e; }
      expect((err as Error).message).to.match(/after close/);
    });
  });
});

/**
 * The store's behaviour, the same on every set-up a shop runs: one server, a three-master
 * cluster, or a master behind a Sentinel, through node-redis or ioredis clients passed as the
 * shop built them.
 */
const SETUPS: { deployment: Deployment; library: RedisLibrary }[] = [
  { deployment: 'single', library: 'node-redis' },
  { deployment: 'single', library: 'ioredis' },
  { deployment: 'cluster', library: 'node-redis' },
  { deployment: 'cluster', library: 'ioredis' },
  { deployment: 'sentinel', library: 'node-redis' },
  { deployment: 'sentinel', library: 'ioredis' },
];
type Deployment = 'single' | 'cluster' | 'sentinel';

describe('redisStore on every set-up (real redis-server, Redis Cluster, Sentinel)', function () {
  this.timeout(30_000);
  let server: RedisServer | undefined;
  let cluster: RedisCluster | undefined;
  let sentinel: RedisSentinelSetup | undefined;
  const deployments = new Map<Deployment, RedisDeployment>();

  before(async function () {
    this.timeout(60_000);
    // Both fail, not skip, without redis-server / redis-cli: CI must run these tests.
    [server, cluster, sentinel] = await Promise.all([startRedisServer(), startRedisCluster(), startRedisSentinel()]);
    deployments.set('single', { kind: 'single', url: server.url });
    deployments.set('cluster', { kind: 'cluster', rootNodes: cluster.rootNodes });
    deployments.set('sentinel', { kind: 'sentinel', name: sentinel.name, sentinels: sentinel.sentinels, masterUrl: sentinel.masterUrl });
  });

  after(async () => {
    await Promise.all([server?.stop(), cluster?.stop(), sentinel?.stop()]);
  });

  for (const setup of SETUPS) {
    describe(`${setup.deployment} server(s), ${setup.library} clients`, () => {
      let admin: RedisAdmin;
      let shop: ShopClient[] = [];
      let shopA: RedisStoreClient;
      let shopB: RedisStoreClient;
      const stores: IdempotencyStore[] = [];

      function track(store: IdempotencyStore): IdempotencyStore {
        stores.push(store);
        return store;
      }

      before(async () => {
        const deployment = deployments.get(setup.deployment)!;
        admin = await connectAdmin(deployment);
        shop = await Promise.all([connectShopClient(setup.library, deployment), connectShopClient(setup.library, deployment)]);
        [shopA, shopB] = shop.map((c) => c.client) as [RedisStoreClient, RedisStoreClient];
      });

      beforeEach(async () => {
        await admin.flushAll();
      });

      afterEach(async () => {
        await Promise.all(stores.splice(0).map((s) => s.close?.()));
      });

      after(async () => {
        await Promise.all(shop.map((c) => c.close()));
        await admin?.close();
      });

      describe('acquire / complete / release', () => {
        it('acquires once, reports busy while held, then returns the cached result', async () => {
          const store = track(redisStore({ client: shopA, prefix: 't1:' }));
          const first = await store.acquire('tid-1', 10_000);
          expect(first.state).to.equal('acquired');
          if (first.state !== 'acquired') return;
          expect(first.token).to.be.a('string').with.length.greaterThan(10);
          expect(await admin.get('t1:{tid-1}:lock')).to.equal(first.token);
          const pttl = await admin.pTTL('t1:{tid-1}:lock');
          expect(pttl).to.be.greaterThan(9_000).and.at.most(10_000);

          expect(await store.acquire('tid-1', 10_000)).to.deep.equal({ state: 'busy' });
          expect((await store.acquire('tid-2', 10_000)).state).to.equal('acquired');

          await store.complete('tid-1', first.token, '{"ok":true}', 60_000);
          expect(await admin.exists('t1:{tid-1}:lock')).to.equal(0);
          expect(await admin.get('t1:{tid-1}:result')).to.equal('{"ok":true}');
          expect(await admin.pTTL('t1:{tid-1}:result')).to.be.greaterThan(59_000);
          expect(await store.acquire('tid-1', 10_000)).to.deep.equal({ state: 'done', value: '{"ok":true}' });
        });

        it('release drops the lock so the key can be retried, and caches nothing', async () => {
          const store = track(redisStore({ client: shopA }));
          const first = await store.acquire('k', 10_000);
          if (first.state !== 'acquired') throw new Error('not acquired');
          await store.release('k', first.token);
          expect(await admin.exists('nicepay:{k}:lock')).to.equal(0);
          expect(await admin.exists('nicepay:{k}:result')).to.equal(0);
          const second = await store.acquire('k', 10_000);
          expect(second.state).to.equal('acquired');
          if (second.state === 'acquired') expect(second.token).to.not.equal(first.token);
        });

        it('a different token can neither complete nor release the lock', async () => {
          const a = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          const held = await a.acquire('k', 10_000);
          if (held.state !== 'acquired') throw new Error('not acquired');

          await b.complete('k', 'someone-else', 'forged', 60_000);
          expect(await admin.exists('nicepay:{k}:result')).to.equal(0);
          expect(await admin.get('nicepay:{k}:lock')).to.equal(held.token);

          await b.release('k', 'someone-else');
          expect(await admin.get('nicepay:{k}:lock')).to.equal(held.token);
          expect(await b.acquire('k', 10_000)).to.deep.equal({ state: 'busy' });

          await a.complete('k', held.token, 'real', 60_000);
          expect(await b.acquire('k', 10_000)).to.deep.equal({ state: 'done', value: 'real' });
        });

        it('keeps values byte for byte (UTF-8, JSON, Lua-looking text)', async () => {
          const store = track(redisStore({ client: shopA }));
          const value = JSON.stringify({ goods: '주문 상품 ✓', lua: "return redis.call('FLUSHALL')", nl: 'a\r\nb' });
          const got = await store.acquire('주문:1', 10_000);
          if (got.state !== 'acquired') throw new Error('not acquired');
          await store.complete('주문:1', got.token, value, 60_000);
          expect(await store.acquire('주문:1', 10_000)).to.deep.equal({ state: 'done', value });
        });

        it('reloads its scripts after SCRIPT FLUSH (EVALSHA falls back to EVAL)', async () => {
          const store = track(redisStore({ client: shopA }));
          expect((await store.acquire('k1', 10_000)).state).to.equal('acquired');
          await admin.scriptFlush();
          expect((await store.acquire('k2', 10_000)).state).to.equal('acquired');
          expect((await store.acquire('k1', 10_000)).state).to.equal('busy');
        });

        it('rejects a bad key or TTL without touching Redis', async () => {
          const store = track(redisStore({ client: shopA }));
          let err: unknown;
          try { await store.acquire('', 1000); } catch (e) { err = e; }
          expect(err).to.be.instanceOf(TypeError);
          err = undefined;
          try { await store.acquire('k', 0); } catch (e) { err = e; }
          expect(err).to.be.instanceOf(RangeError);
          err = undefined;
          // '{}' would be an empty hash tag: the lock and the result could land in different slots.
          try { await store.acquire('}k', 1000); } catch (e) { err = e; }
          expect(err).to.be.instanceOf(TypeError);
          expect((err as Error).message).to.match(/hash tag/);
          expect(await admin.dbSize()).to.equal(0);
        });

        it("keeps each once-key's lock and result in one slot, and spreads once-keys over the masters", async () => {
          const store = track(redisStore({ client: shopA }));
          for (let i = 0; i < 30; i++) {
            const key = `checkout-tid:nicepay00m:T${i}`;
            const got = await store.acquire(key, 10_000);
            if (got.state !== 'acquired') throw new Error('not acquired');
            await store.complete(key, got.token, `v${i}`, 60_000);
            expect(await store.acquire(key, 10_000)).to.deep.equal({ state: 'done', value: `v${i}` });
          }
          expect(await admin.dbSize()).to.equal(30);
          if (setup.deployment === 'cluster') {
            const masters = new Set<number>();
            for (let i = 0; i < 30; i++) {
              const key = `checkout-tid:nicepay00m:T${i}`;
              const port = await cluster!.masterOf(`nicepay:{${key}}:result`);
              expect(await cluster!.masterOf(`nicepay:{${key}}:lock`), key).to.equal(port);
              masters.add(port);
            }
            expect(masters.size, 'masters holding keys').to.equal(3);
          }
        });
      });

      describe('expiry', () => {
        it("an expired lock (a crashed holder's) lets another acquirer in", async () => {
          const a = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          const crashed = await a.acquire('k', 100);
          if (crashed.state !== 'acquired') throw new Error('not acquired');
          expect(await b.acquire('k', 100)).to.deep.equal({ state: 'busy' });
          await expire(admin, 'nicepay:{k}:lock', 100);
          const next = await b.acquire('k', 10_000);
          expect(next.state).to.equal('acquired');
          if (next.state !== 'acquired') return;
          expect(next.token).to.not.equal(crashed.token);

          // The late original holder must not clobber or free the new holder's lock.
          await a.complete('k', crashed.token, 'late', 60_000);
          await a.release('k', crashed.token);
          expect(await admin.get('nicepay:{k}:lock')).to.equal(next.token);
          expect(await admin.exists('nicepay:{k}:result')).to.equal(0);
        });

        it('a holder finishing after its lock expired (nobody took over) still caches its result, but never over a first one', async () => {
          const store = track(redisStore({ client: shopA }));
          const slow = await store.acquire('k', 50);
          if (slow.state !== 'acquired') throw new Error('not acquired');
          await expire(admin, 'nicepay:{k}:lock', 50);
          await store.complete('k', slow.token, 'first', 60_000);
          expect(await store.acquire('k', 10_000)).to.deep.equal({ state: 'done', value: 'first' });
          await store.complete('k', 'stale-token', 'second', 60_000);
          expect(await admin.get('nicepay:{k}:result')).to.equal('first');
        });

        it('runOnce: a waiter takes over after the holder crashes, once its lock expires', async () => {
          const a = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          const crashed = await a.acquire('tid', 60_000);
          expect(crashed.state).to.equal('acquired');
          let ran = false;
          const out = runOnce(b, 'tid', { lockTtlMs: 60_000, resultTtlMs: 60_000, pollMs: 5 }, async () => {
            ran = true;
            return 'retried';
          });
          // The waiter is held off while the crashed holder's lock lives.
          expect(await b.acquire('tid', 60_000)).to.deep.equal({ state: 'busy' });
          expect(ran).to.equal(false);
          await expire(admin, 'nicepay:{tid}:lock', 60_000);
          expect(await out).to.deep.equal({ value: 'retried', fresh: true, stored: true });
        });

        it('a result expires after resultTtlMs and the key can be acquired again', async () => {
          const store = track(redisStore({ client: shopA }));
          const got = await store.acquire('k', 10_000);
          if (got.state !== 'acquired') throw new Error('not acquired');
          await store.complete('k', got.token, 'v', 100);
          expect(await store.acquire('k', 10_000)).to.deep.equal({ state: 'done', value: 'v' });
          await expire(admin, 'nicepay:{k}:result', 100);
          expect((await store.acquire('k', 10_000)).state).to.equal('acquired');
        });
      });

      describe('extend (the heartbeat of a slow hook)', () => {
        it("resets the holder's lock TTL, so a lock outlives a hook slower than its first TTL", async () => {
          const store = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          const held = await store.acquire('k', 1_000);
          if (held.state !== 'acquired') throw new Error('not acquired');
          // Shorten what is left, as time passing would; the heartbeat must bring it back up.
          await admin.pExpire('nicepay:{k}:lock', 50);
          expect(await store.extend?.('k', held.token, 60_000)).to.equal(true);
          const left = await admin.pTTL('nicepay:{k}:lock');
          expect(left).to.be.greaterThan(59_000).and.at.most(60_000);
          expect(await admin.get('nicepay:{k}:lock')).to.equal(held.token);
          expect(await b.acquire('k', 1_000)).to.deep.equal({ state: 'busy' });
          await store.complete('k', held.token, 'v', 60_000);
          expect(await b.acquire('k', 1_000)).to.deep.equal({ state: 'done', value: 'v' });
        });

        it('answers false and changes nothing once the token no longer holds the lock', async () => {
          const a = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          expect(await a.extend?.('never', 'tok', 10_000)).to.equal(false);
          expect(await admin.exists('nicepay:{never}:lock')).to.equal(0);

          const first = await a.acquire('k', 10_000);
          if (first.state !== 'acquired') throw new Error('not acquired');
          expect(await b.extend?.('k', 'someone-else', 60_000)).to.equal(false);
          expect(await admin.pTTL('nicepay:{k}:lock')).to.be.at.most(10_000);

          // Expired, then taken over: the old holder's heartbeat must not renew the new lock.
          await expire(admin, 'nicepay:{k}:lock', 10_000);
          expect(await a.extend?.('k', first.token, 60_000)).to.equal(false);
          expect(await admin.exists('nicepay:{k}:lock')).to.equal(0);
          const second = await b.acquire('k', 10_000);
          if (second.state !== 'acquired') throw new Error('not acquired');
          expect(await a.extend?.('k', first.token, 60_000)).to.equal(false);
          expect(await admin.pTTL('nicepay:{k}:lock')).to.be.at.most(10_000);

          // Completed: the lock is gone, the result stays with its own TTL.
          await b.complete('k', second.token, 'v', 30_000);
          expect(await b.extend?.('k', second.token, 60_000)).to.equal(false);
          expect(await admin.pTTL('nicepay:{k}:result')).to.be.at.most(30_000);

          // Released.
          const third = await a.acquire('r', 10_000);
          if (third.state !== 'acquired') throw new Error('not acquired');
          await a.release('r', third.token);
          expect(await a.extend?.('r', third.token, 60_000)).to.equal(false);
          expect(await admin.exists('nicepay:{r}:lock')).to.equal(0);
        });

        it('rejects a bad key or TTL without touching Redis', async () => {
          const store = track(redisStore({ client: shopA }));
          const errs = await Promise.all([
            store.extend?.('', 't', 1_000).then(() => undefined, (e: unknown) => e),
            store.extend?.('k', 't', 0).then(() => undefined, (e: unknown) => e),
          ]);
          expect(errs[0]).to.be.instanceOf(TypeError);
          expect(errs[1]).to.be.instanceOf(RangeError);
          expect(await admin.dbSize()).to.equal(0);
        });
      });

      describe('a slow network', () => {
        it('a store call that stalls past commandTimeoutMs fails the return with a clear 503, and nothing reaches the gateway', async () => {
          const store = track(redisStore({ client: shopA, commandTimeoutMs: 300 }));
          const shop = await startShop({ nicepay: { store } });
          try {
            shop.orders.set('stall-1', 5_000);
            const auth = await shop.sandbox.authenticate({ moid: 'stall-1', amount: 5_000, method: 'CARD' });
            // Every write, the store's scripts included, waits 10 s on every master: far past 300 ms.
            await admin.pauseWrites(10_000);
            let res;
            try {
              res = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
            } finally {
              await admin.unpause();
            }
            expect(res.status).to.equal(503);
            expect(res.body.code).to.equal('NICEPAY_STORE_UNAVAILABLE');
            expect(shop.errors).to.have.length(1);
            expect((shop.errors[0] as Error).message).to.match(/idempotency store unavailable; nothing was sent/);
            const cause = (shop.errors[0] as { cause?: unknown }).cause;
            expect(String((cause as Error | undefined)?.message)).to.match(/redisStore: acquire timed out after 300 ms/);
            // Nothing was sent: the gateway saw no approval call for the TID.
            expect(shop.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(0);
            expect(shop.sandbox.ledger.committed()).to.have.length(0);
          } finally {
            await shop.close();
          }
        });
      });

      describe('concurrency across connections', () => {
        it('200 concurrent runOnce calls over two connections run the work once; all get its value', async () => {
          const a = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          expect(shopA).to.not.equal(shopB);
          let runs = 0;
          const work = async (): Promise<string> => {
            runs += 1;
            await sleep(50);
            return JSON.stringify({ approved: true, run: runs });
          };
          const outcomes = await Promise.all(
            Array.from({ length: 200 }, (_, i) =>
              runOnce(i % 2 === 0 ? a : b, 'tid-concurrent', { lockTtlMs: 10_000, resultTtlMs: 60_000, pollMs: 5 }, work),
            ),
          );
          expect(runs).to.equal(1);
          const values = new Set(outcomes.map((o) => o?.value));
          expect([...values]).to.deep.equal([JSON.stringify({ approved: true, run: 1 })]);
          expect(outcomes.filter((o) => o?.fresh).length).to.equal(1);
          expect(await admin.exists('nicepay:{tid-concurrent}:lock')).to.equal(0);
        });

        it('runOnce releases the key when the work throws, so a retry runs it', async () => {
          const a = track(redisStore({ client: shopA }));
          const b = track(redisStore({ client: shopB }));
          let err: unknown;
          try {
            await runOnce(a, 'k', { lockTtlMs: 10_000, resultTtlMs: 60_000 }, async () => { throw new Error('gateway down'); });
          } catch (e) { err = e; }
          expect((err as Error).message).to.equal('gateway down');
          expect(await runOnce(b, 'k', { lockTtlMs: 10_000, resultTtlMs: 60_000 }, async () => 'ok')).to.deep.equal({ value: 'ok', fresh: true, stored: true });
        });
      });
    });
  }
});
