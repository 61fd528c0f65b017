import { expect } from 'chai';
import { createClient, type RedisClientType } from 'redis';
import { NicepayConfigError } from '../src/errors/index.js';
import { LEASE_ONLY_KEEP_MS } from '../src/store/ledger-args.js';
import type { RedisStoreClient } from '../src/store/redis-client.js';
import { redisStore, type RedisStoreOptions } from '../src/store/redis-store.js';
import { WRITE } from '../src/store/redis-scripts.js';
import type { LeaseResult, LedgerStore } from '../src/store/types.js';
import { startRedisCluster, type RedisCluster } from './helpers/redis-cluster.js';
import { startRedisSentinel, type RedisSentinelSetup } from './helpers/redis-sentinel.js';
import { freePort, startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { connectAdmin, connectShopClient, type RedisAdmin, type RedisDeployment, type RedisLibrary, type ShopClient } from './helpers/redis-targets.js';
import { describeStoreContract } from './helpers/store-contract.js';

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

function tokenOf(got: LeaseResult): string {
  if (got.state !== 'acquired') throw new Error(`expected the lease, got ${got.state}`);
  return got.token;
}

async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('redisStore: options and url mode (against a real redis-server)', function () {
  this.timeout(30_000);

  let server: RedisServer | undefined;
  let url = '';
  let clientA: RedisClientType;
  let clientB: RedisClientType;
  const stores: LedgerStore[] = [];

  function track(store: LedgerStore): LedgerStore {
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
      // Braces would change the cluster hash tag that keeps a record and its lease in one slot.
      configError({ client: clientA, prefix: 'shop{1}:' }, 'prefix');
      // Not a client of either library: an ioredis look-alike without isCluster, a bare object.
      configError({ client: { call: async () => 'OK' } }, 'client');
      configError({ client: { get: async () => null } }, 'client');
      configError({ client: clientA, commandTimeoutMs: 0 }, 'commandTimeoutMs');
      configError({ client: clientA, commandTimeoutMs: 1.5 }, 'commandTimeoutMs');
      configError({ client: clientA, onError: () => {} }, 'onError');
      configError({ url: 'redis://127.0.0.1:1', onError: 'log' }, 'onError');
    });

    it('accepts a node-redis client and a default prefix: a record, its lease and the due index under nicepay:', async () => {
      const store = track(redisStore({ client: clientA }));
      await store.acquire('k', 10_000, { value: 'sending', open: true, dueAt: 1_000 });
      expect(await clientA.hGet('nicepay:{k}:rec', 'v')).to.equal('sending');
      expect(await clientA.exists('nicepay:{k}:lease')).to.equal(1);
      expect(await clientA.zScore('nicepay:due', 'k')).to.equal(1_000);
    });
  });

  describe('the due index, under the interleaving that could lose an open key', () => {
    /** A node-redis client that runs `hook` before sending each command. */
    const hooked = (client: RedisClientType, hook: (args: string[]) => Promise<void>): RedisStoreClient => ({
      sendCommand: async (args: ReadonlyArray<string>) => {
        await hook([...args]);
        return client.sendCommand([...args]);
      },
    });

    it("a key opened between a scan's look at it and the scan's removal of its entry stays indexed: the second look puts it back", async () => {
      let beforeRemoval: (() => Promise<void>) | undefined;
      let beforeWrite: (() => Promise<void>) | undefined;
      const scanner = track(
        redisStore({
          client: hooked(clientA, async (args) => {
            const hook = args[0] === 'ZREM' ? beforeRemoval : undefined;
            if (hook) beforeRemoval = undefined;
            await hook?.();
          }),
        }),
      );
      const opener = track(
        redisStore({
          client: hooked(clientB, async (args) => {
            const hook = args[1] === WRITE.sha || args[1] === WRITE.source ? beforeWrite : undefined;
            if (hook) beforeWrite = undefined;
            await hook?.();
          }),
        }),
      );
      // An entry left for a key with no record: the scan looks, finds nothing, and removes it.
      await clientA.zAdd('nicepay:due', { score: 0, value: 'k' });
      let resumeOpener!: () => void;
      const openerAtWrite = new Promise<void>((reached) => {
        beforeWrite = () => {
          reached();
          return new Promise<void>((go) => (resumeOpener = go));
        };
      });
      let opened: Promise<LeaseResult> | undefined;
      beforeRemoval = async () => {
        // Between the scan's look and its removal, an acquirer takes the lease and indexes the
        // key; it writes its open record only after the removal.
        opened = opener.acquire('k', 60_000, { value: 'sending', open: true, dueAt: 5 });
        await openerAtWrite;
      };
      expect(await scanner.due(10, 10)).to.deep.equal([]);
      expect(opened, 'the scan removed the entry').to.not.equal(undefined);
      resumeOpener();
      expect((await opened!).state).to.equal('acquired');
      expect(await clientA.zScore('nicepay:due', 'k')).to.equal(5);
      expect(await scanner.open(10)).to.deep.equal([{ key: 'k', value: 'sending', open: true, dueAt: 5 }]);
    });
  });

  describe('url mode (the store owns its client)', () => {
    it('connects, works, and closes its own client but never a client passed in', async () => {
      const owned = redisStore({ url, prefix: 'own:' });
      const t = tokenOf(await owned.acquire('k', 10_000));
      await owned.write('k', t, { value: 'v', open: false, keepMs: 60_000 }, true);
      expect(await clientA.hGet('own:{k}:rec', 'v')).to.equal('v');
      const before = Number(/connected_clients:(\d+)/.exec(await clientA.info('clients'))?.[1]);
      await owned.close?.();
      await owned.close?.();
      // Redis drops the connection on its own schedule: ask until it has (round trips, no sleeps).
      let after = before;
      for (let i = 0; i < 1_000 && after === before; i++) after = Number(/connected_clients:(\d+)/.exec(await clientA.info('clients'))?.[1]);
      expect(after).to.equal(before - 1);
      expect((await rejection(owned.acquire('k', 10_000))).message).to.match(/after close/);

      const borrowed = redisStore({ client: clientB });
      await borrowed.close?.();
      expect(clientB.isOpen).to.equal(true);
      expect(await clientB.ping()).to.equal('PONG');
    });

    it('fails an operation after commandTimeoutMs when Redis is unreachable, and closes promptly', async () => {
      const deadPort = await freePort();
      const errors: unknown[] = [];
      const store = redisStore({ url: `redis://127.0.0.1:${deadPort}`, commandTimeoutMs: 200, onError: (e) => errors.push(e) });
      expect((await rejection(store.acquire('k', 10_000))).message).to.match(/acquire timed out after 200 ms/);
      expect(errors.length).to.be.greaterThan(0);
      // Closing does not wait for a connection that never came.
      await store.close?.();
      expect((await rejection(store.acquire('k', 10_000))).message).to.match(/after close/);
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
      const stores: LedgerStore[] = [];

      function track(store: LedgerStore): LedgerStore {
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
          expect(await admin.pTTL('t1:{tid-1}:lease')).to.be.greaterThan(9_000).and.at.most(10_000);
          expect(await admin.pTTL('t1:{tid-1}:rec'), 'an open record never expires').to.equal(-1);
          await store.write('tid-1', t, { value: 'approved', open: false, keepMs: 60_000 }, true);
          expect(await admin.exists('t1:{tid-1}:lease')).to.equal(0);
          expect(await admin.pTTL('t1:{tid-1}:rec')).to.be.greaterThan(59_000).and.at.most(60_000);
          expect(await admin.zScore('t1:due', 'tid-1'), 'a closed record leaves the due index').to.equal(null);
        });

        it('a key that held only a lease is forgotten a day after its lease, and extend renews both', async () => {
          const store = track(redisStore({ client: shopA }));
          const t = tokenOf(await store.acquire('bare', 1_000));
          expect(await admin.pTTL('nicepay:{bare}:rec')).to.be.greaterThan(LEASE_ONLY_KEEP_MS).and.at.most(LEASE_ONLY_KEEP_MS + 1_000);
          await admin.pExpire('nicepay:{bare}:lease', 50);
          await admin.pExpire('nicepay:{bare}:rec', 50);
          expect(await store.extend('bare', t, 60_000)).to.equal(true);
          expect(await admin.pTTL('nicepay:{bare}:lease')).to.be.greaterThan(59_000).and.at.most(60_000);
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
