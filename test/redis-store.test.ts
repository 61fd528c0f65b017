import { expect } from 'chai';
import { createClient, type RedisClientType } from 'redis';
import { NicepayConfigError } from '../src/errors/index.js';
import { LEASE_ONLY_KEEP_MS } from '../src/store/ledger-args.js';
import type { RedisStoreClient } from '../src/store/redis-client.js';
import { redisStore, type RedisStoreOptions } from '../src/store/redis-store.js';
import { WRITE } from '../src/store/redis-scripts.js';
import type { LeaseResult, LedgerStore } from '../src/store/types.js';
import { freePort, startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { connectAdmin, connectShopClient, type RedisAdmin, type RedisDeployment, type RedisLibrary, type ShopClient } from './helpers/redis-targets.js';
import { describeRedisSetups, rejection, tokenOf } from './helpers/redis-setups-suite.js';

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

describeRedisSetups(['single']);
