/**
 * The Redis store's suite for the set-ups a shop runs (one server, a three-master cluster, a
 * master behind a Sentinel), each through node-redis and ioredis clients: the store contract,
 * its keys and expiry in Redis, the due index and a slow network. The fast suite runs it on one
 * server; the slow suite on the cluster and the Sentinel.
 */
import { expect } from 'chai';
import { LEASE_ONLY_KEEP_MS } from '../../src/store/ledger-args.js';
import type { RedisStoreClient } from '../../src/store/redis-client.js';
import { redisStore } from '../../src/store/redis-store.js';
import type { LeaseResult, LedgerStore } from '../../src/store/types.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { startRedisSentinel, type RedisSentinelSetup } from './redis-sentinel.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import {
  connectAdmin,
  connectShopClient,
  type RedisAdmin,
  type RedisDeployment,
  type ShopClient,
} from './redis-targets.js';
import { describeStoreContract } from './store-contract.js';

/** A Redis deployment the suite runs on. */
export type Deployment = 'single' | 'cluster' | 'sentinel';

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

export function tokenOf(got: LeaseResult): string {
  if (got.state !== 'acquired') throw new Error(`expected the lease, got ${got.state}`);
  return got.token;
}

export async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/**
 * The store's behaviour, the same on every set-up a shop runs: one server, a three-master
 * cluster, or a master behind a Sentinel, through node-redis or ioredis clients passed as the
 * shop built them.
 */
export function describeRedisSetups(deploymentsRun: readonly Deployment[]): void {
  const SETUPS = deploymentsRun.flatMap((deployment) =>
    (['node-redis', 'ioredis'] as const).map((library) => ({ deployment, library })),
  );

  describe(`redisStore on ${deploymentsRun.join(', ')} set-ups (real redis-server)`, function () {
    this.timeout(30_000);
    let server: RedisServer | undefined;
    let cluster: RedisCluster | undefined;
    let sentinel: RedisSentinelSetup | undefined;
    const deployments = new Map<Deployment, RedisDeployment>();

    before(async function () {
      this.timeout(60_000);
      // Both fail, not skip, without redis-server / redis-cli: CI must run these tests.
      const has = (d: Deployment): boolean => deploymentsRun.includes(d);
      [server, cluster, sentinel] = await Promise.all([
        has('single') ? startRedisServer() : undefined,
        has('cluster') ? startRedisCluster() : undefined,
        has('sentinel') ? startRedisSentinel() : undefined,
      ]);
      if (server) deployments.set('single', { kind: 'single', url: server.url });
      if (cluster) deployments.set('cluster', { kind: 'cluster', rootNodes: cluster.rootNodes });
      if (sentinel)
        deployments.set('sentinel', {
          kind: 'sentinel',
          name: sentinel.name,
          sentinels: sentinel.sentinels,
          masterUrl: sentinel.masterUrl,
        });
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
        const stores: LedgerStore[] = [];

        function track(store: LedgerStore): LedgerStore {
          stores.push(store);
          return store;
        }

        before(async () => {
          const deployment = deployments.get(setup.deployment)!;
          admin = await connectAdmin(deployment);
          shop = await Promise.all([
            connectShopClient(setup.library, deployment),
            connectShopClient(setup.library, deployment),
          ]);
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

        describe('against the store contract: two stores on two connections', () => {
          describeStoreContract(async () => {
            await admin.flushAll();
            const a = redisStore({ client: shopA });
            const b = redisStore({ client: shopB });
            return {
              a,
              b,
              // The suite's leases and closed records last at most 60 s.
              expireLease: (key) => expire(admin, `nicepay:{${key}}:lease`, 60_000),
              expireClosed: (key) => expire(admin, `nicepay:{${key}}:rec`, 60_000),
              close: async () => {
                await Promise.all([a.close!(), b.close!()]);
              },
            };
          });
        });

        describe('keys and expiry in Redis', () => {
          it('a lease is a key with PX leaseMs; an open record has no expiry, a closed one PX keepMs', async () => {
            const store = track(redisStore({ client: shopA, prefix: 't1:' }));
            const t = tokenOf(await store.acquire('tid-1', 10_000, { value: 'sending', open: true, dueAt: 5 }));
            expect(await admin.get('t1:{tid-1}:lease')).to.equal(t);
            expect(await admin.pTTL('t1:{tid-1}:lease'))
              .to.be.greaterThan(9_000)
              .and.at.most(10_000);
            expect(await admin.pTTL('t1:{tid-1}:rec'), 'an open record never expires').to.equal(-1);
            await store.write('tid-1', t, { value: 'approved', open: false, keepMs: 60_000 }, true);
            expect(await admin.exists('t1:{tid-1}:lease')).to.equal(0);
            expect(await admin.pTTL('t1:{tid-1}:rec'))
              .to.be.greaterThan(59_000)
              .and.at.most(60_000);
            expect(await admin.zScore('t1:due', 'tid-1'), 'a closed record leaves the due index').to.equal(null);
          });

          it('a key that held only a lease is forgotten a day after its lease, and extend renews both', async () => {
            const store = track(redisStore({ client: shopA }));
            const t = tokenOf(await store.acquire('bare', 10_000));
            expect(await admin.pTTL('nicepay:{bare}:rec'))
              .to.be.greaterThan(LEASE_ONLY_KEEP_MS)
              .and.at.most(LEASE_ONLY_KEEP_MS + 10_000);
            // Both nearly gone (Redis expires in real time: seconds, not milliseconds, so a
            // stalled test process on a loaded machine does not see them go first).
            await admin.pExpire('nicepay:{bare}:lease', 2_000);
            await admin.pExpire('nicepay:{bare}:rec', 2_000);
            expect(await store.extend('bare', t, 60_000)).to.equal(true);
            expect(await admin.pTTL('nicepay:{bare}:lease'))
              .to.be.greaterThan(59_000)
              .and.at.most(60_000);
            expect(await admin.pTTL('nicepay:{bare}:rec')).to.be.greaterThan(LEASE_ONLY_KEEP_MS + 59_000);
            // Its holder opens a record: it no longer expires.
            await store.write('bare', t, { value: 'sending', open: true, dueAt: 0 }, true);
            expect(await admin.pTTL('nicepay:{bare}:rec')).to.equal(-1);
          });

          it("keeps each key's record and lease in one slot, and spreads keys over the masters", async () => {
            const store = track(redisStore({ client: shopA }));
            for (let i = 0; i < 30; i++) {
              const key = `checkout-tid:nicepay00m:T${i}`;
              const t = tokenOf(await store.acquire(key, 10_000));
              await store.write(key, t, { value: `v${i}`, open: false, keepMs: 60_000 }, false);
              expect((await store.acquire(key, 10_000)).record?.value).to.equal(`v${i}`);
            }
            expect(await admin.dbSize()).to.equal(60);
            if (setup.deployment === 'cluster') {
              const masters = new Set<number>();
              for (let i = 0; i < 30; i++) {
                const key = `checkout-tid:nicepay00m:T${i}`;
                const port = await cluster!.masterOf(`nicepay:{${key}}:rec`);
                expect(await cluster!.masterOf(`nicepay:{${key}}:lease`), key).to.equal(port);
                masters.add(port);
              }
              expect(masters.size, 'masters holding keys').to.equal(3);
            }
          });

          it('reloads its scripts after SCRIPT FLUSH (EVALSHA falls back to EVAL)', async () => {
            const store = track(redisStore({ client: shopA }));
            expect((await store.acquire('k1', 10_000)).state).to.equal('acquired');
            await admin.scriptFlush();
            expect((await store.acquire('k2', 10_000)).state).to.equal('acquired');
            expect((await store.acquire('k1', 10_000)).state).to.equal('busy');
            await admin.scriptFlush();
            expect(await store.open(10)).to.deep.equal([]);
          });

          it('rejects a bad key, duration, record or limit naming the argument, without touching Redis', async () => {
            const store = track(redisStore({ client: shopA }));
            const errs = await Promise.all([
              rejection(store.acquire('', 1_000)),
              rejection(store.acquire('k', 0)),
              // '{}' would be an empty hash tag: the record and the lease could land in different slots.
              rejection(store.acquire('}k', 1_000)),
              rejection(store.acquire('k', 1_000, { value: 'v', open: true, dueAt: Number.NaN })),
              rejection(store.write('k', 't', { value: 'v', open: false, keepMs: 0 }, true)),
              rejection(store.extend('k', 't', -1)),
              rejection(store.due(0, 0)),
            ]);
            expect(errs.map((e) => e.message)).to.deep.equal([
              'redisStore: key must be a non-empty string',
              'redisStore: leaseMs must be a positive number of milliseconds',
              'redisStore: key must not start with "}" (it would empty the cluster hash tag)',
              'redisStore: initial.dueAt must be a finite number of milliseconds',
              'redisStore: record.keepMs must be a positive number of milliseconds',
              'redisStore: leaseMs must be a positive number of milliseconds',
              'redisStore: limit must be a positive integer',
            ]);
            expect(await admin.dbSize()).to.equal(0);
          });
        });

        describe('the due index', () => {
          it('drops an entry whose record is gone or closed with no holder (a process died before unindexing it), never an open or held one', async () => {
            const store = track(redisStore({ client: shopA }));
            const other = track(redisStore({ client: shopB }));
            const t = tokenOf(await store.acquire('open', 60_000, { value: 'open', open: true, dueAt: 3 }));
            await store.release('open', t);
            tokenOf(await store.acquire('held', 60_000));
            const c = tokenOf(await store.acquire('closed', 60_000));
            await store.write('closed', c, { value: 'closed', open: false, keepMs: 60_000 }, true);
            // What a crash between a record's last script and its index removal leaves behind.
            for (const key of ['ghost', 'held', 'closed']) await admin.zAdd('nicepay:due', 1, key);

            expect((await other.due(10, 10)).map((r) => r.key)).to.deep.equal(['open']);
            expect(await admin.zScore('nicepay:due', 'ghost')).to.equal(null);
            expect(await admin.zScore('nicepay:due', 'closed')).to.equal(null);
            expect(await admin.zScore('nicepay:due', 'held'), 'its holder may still open it').to.equal(1);
            expect(await admin.zScore('nicepay:due', 'open')).to.equal(3);
          });

          it('open records stay listed while other connections open, close, remove and scan keys at once', async () => {
            const a = track(redisStore({ client: shopA }));
            const b = track(redisStore({ client: shopB }));
            const keys = Array.from({ length: 60 }, (_, i) => `race-${i}`);
            const scans: Promise<unknown>[] = [];
            await Promise.all(
              keys.map(async (key, i) => {
                const store = i % 2 ? a : b;
                const t = tokenOf(await store.acquire(key, 60_000, { value: 'sending', open: true, dueAt: i }));
                scans.push((i % 2 ? b : a).due(1_000, 5));
                if (i % 3 === 0) await store.write(key, t, { value: 'done', open: false, keepMs: 60_000 }, true);
                else if (i % 3 === 1) await store.remove(key, t);
                else await store.write(key, t, { value: 'reversing', open: true, dueAt: 100 + i }, true);
                scans.push((i % 2 ? a : b).open(5));
                // A closed key's entry left behind, as a crash would, makes the scans drop it.
                if (i % 3 === 0) await admin.zAdd('nicepay:due', 0, key);
              }),
            );
            await Promise.all(scans);
            const expected = keys.filter((_, i) => i % 3 === 2);
            expect((await a.open(100)).map((r) => r.key)).to.deep.equal(expected);
            expect((await b.due(1_000, 100)).map((r) => r.key)).to.deep.equal(expected);
            // After the scans, the index holds exactly the open keys.
            expect((await admin.zRange('nicepay:due', 0, -1)).sort()).to.deep.equal([...expected].sort());
          });
        });

        describe('a slow network', () => {
          it('a store call that stalls past commandTimeoutMs rejects with a clear error instead of hanging', async () => {
            const store = track(redisStore({ client: shopA, commandTimeoutMs: 300 }));
            // Every write, the store's scripts included, waits 10 s on every master: far past 300 ms.
            await admin.pauseWrites(10_000);
            let err: Error;
            try {
              err = await rejection(store.acquire('stall-1', 60_000, { value: 'sending', open: true, dueAt: 0 }));
            } finally {
              await admin.unpause();
            }
            expect(err.message).to.equal('redisStore: acquire timed out after 300 ms');
          });
        });
      });
    }
  });
}
