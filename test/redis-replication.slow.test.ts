/**
 * redisStore on real servers, where a failover can cost a write: `waitForReplicas` waits (WAIT)
 * on the master that holds each written key, for the replicas it has online, and for none on a
 * master that has none (WAIT blocks the connection every other command shares); an acquire that
 * gives up after taking a lease gives the lease back instead of leaving it for 30 s.
 */
import { expect } from 'chai';
import { createClient, type RedisClientType } from 'redis';
import { keySlot } from '../src/store/redis-replication.js';
import { REMOVE, WRITE } from '../src/store/redis-scripts.js';
import { redisStore } from '../src/store/redis-store.js';
import type { LeaseResult, RecordWrite } from '../src/store/types.js';
import { startRedisCluster, type RedisCluster } from './helpers/redis-cluster.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { connectShopClient, type RedisLibrary } from './helpers/redis-targets.js';

const OPEN: RecordWrite = { value: 'sending', open: true, dueAt: 5 };
const CLOSED: RecordWrite = { value: 'recorded', open: false, keepMs: 60_000 };

/** A short-lived connection to one node. */
async function node(port: number): Promise<RedisClientType> {
  const client: RedisClientType = createClient({
    url: `redis://127.0.0.1:${port}`,
    socket: { reconnectStrategy: false },
  });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** How many WAIT commands the node at `port` ran since its statistics were reset. */
async function waitCalls(port: number): Promise<number> {
  const client = await node(port);
  try {
    return Number(/cmdstat_wait:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
  } finally {
    client.destroy();
  }
}

/** A node-redis client that runs `before` ahead of each command and `after` once it answered. */
function hooked(client: RedisClientType, before: (args: string[]) => Promise<void>, after: (args: string[]) => void) {
  return {
    sendCommand: async (args: ReadonlyArray<string>) => {
      await before([...args]);
      const reply = await client.sendCommand([...args]);
      after([...args]);
      return reply;
    },
  };
}

function tokenOf(got: LeaseResult): string {
  if (got.state !== 'acquired') throw new Error(`expected the lease, got ${got.state}`);
  return got.token;
}

const isScript = (args: string[], script: { sha: string; source: string }): boolean =>
  args[1] === script.sha || args[1] === script.source;

describe('redisStore waitForReplicas: one server with no replica', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let client: RedisClientType;

  before(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
  });

  after(async () => {
    await client?.close();
    await server?.stop();
  });

  it('writes and indexes without sending WAIT: no replica is online, so none can lose the write, and no WAIT holds up the shared connection', async () => {
    const sent: string[] = [];
    const store = redisStore({
      client: hooked(
        client,
        async (args) => void sent.push(args[0]!),
        () => {},
      ),
      waitForReplicas: 1,
    });
    const token = tokenOf(await store.acquire('solo', 60_000, OPEN));
    expect(await store.write('solo', token, CLOSED, true)).to.equal(true);
    expect(sent).to.include('EVALSHA');
    expect(sent).to.not.include('WAIT');
    expect(await client.hGet('nicepay:{solo}:rec', 'v')).to.equal('recorded');
  });
});

describe('redisStore: an acquire that gives up after taking the lease', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let client: RedisClientType;

  before(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
  });

  after(async () => {
    await client?.close();
    await server?.stop();
  });

  beforeEach(() => client.flushAll());

  /** A store whose initial write waits for `writeGate`, and a promise of its first REMOVE answered. */
  function gated(writeGate: () => Promise<void>, commandTimeoutMs: number) {
    let removed!: () => void;
    const forgotten = new Promise<void>((resolve) => (removed = resolve));
    const store = redisStore({
      client: hooked(
        client,
        (args) => (isScript(args, WRITE) ? writeGate() : Promise.resolve()),
        (args) => {
          if (isScript(args, REMOVE)) removed();
        },
      ),
      commandTimeoutMs,
    });
    return { store, forgotten };
  }

  it('one that timed out before its initial write landed forgets the key once it lands: the next acquire takes it at once, with no record', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { store, forgotten } = gated(() => gate, 50);
    const err = await store.acquire('late', 60_000, OPEN).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.match(/redisStore: acquire timed out after 50 ms/);
    open();
    await forgotten;
    expect(await client.exists(['nicepay:{late}:rec', 'nicepay:{late}:lease'])).to.equal(0);
    const again = await redisStore({ client }).acquire('late', 60_000);
    expect(again).to.include({ state: 'acquired', record: undefined });
  });

  it('one whose initial write failed forgets the key (its bare lease too) and rejects with the failure', async () => {
    const { store, forgotten } = gated(() => Promise.reject(new Error('connection lost')), 5_000);
    const err = await store.acquire('failed', 60_000, OPEN).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.equal('connection lost');
    await forgotten;
    expect(await client.exists(['nicepay:{failed}:rec', 'nicepay:{failed}:lease'])).to.equal(0);
  });
});

describe('redisStore waitForReplicas: a cluster with a replica per master, one of them gone', function () {
  this.timeout(60_000);
  let cluster: RedisCluster;
  /** The master whose replica was killed. */
  let bare: number;

  before(async function () {
    this.timeout(60_000);
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    bare = (await cluster.masters())[0]!;
    const admin = await node(bare);
    try {
      // The replica says whose it is (the master's ROLE may not list it until its first ACK).
      const replicaOf = await Promise.all(
        cluster.nodes.map(async (n) => {
          const c = await node(n.port);
          return c.info('replication').finally(() => c.destroy());
        }),
      );
      const replica = cluster.nodes.find((_, i) => replicaOf[i]!.includes(`master_port:${bare}\r\n`));
      expect(replica, `a replica of ${bare}`).to.not.equal(undefined);
      await replica!.kill();
      // The master sees its replica's connection close: ask until it says so (round trips, no sleeps).
      let online = 1;
      for (let i = 0; i < 10_000 && online > 0; i++)
        online = Number(/connected_slaves:(\d+)/.exec(await admin.info('replication'))?.[1]);
      expect(online, 'replicas online on the bare master').to.equal(0);
    } finally {
      admin.destroy();
    }
  });

  after(async () => {
    await cluster?.stop();
  });

  for (const library of ['node-redis', 'ioredis'] as RedisLibrary[]) {
    it(`${library}: each write waits on its own key's master only, and only where a replica is online; every write is acknowledged`, async () => {
      const masters = await cluster.masters();
      for (const port of masters) {
        const c = await node(port);
        await c.sendCommand(['CONFIG', 'RESETSTAT']).finally(() => c.destroy());
      }
      const shop = await connectShopClient(library, { kind: 'cluster', rootNodes: cluster.rootNodes });
      try {
        const prefix = `${library}:`;
        const store = redisStore({ client: shop.client, prefix, waitForReplicas: 1 });
        const keys = Array.from({ length: 24 }, (_, i) => `wait-${i}`);
        for (const key of keys) {
          const token = tokenOf(await store.acquire(key, 60_000, OPEN));
          expect(await store.write(key, token, CLOSED, true), key).to.equal(true);
        }
        // Expected: each key's open and closed record writes on its master, and the index's add of
        // each open record on the index's master, except on the master with no replica online.
        const expected = new Map<number, number>(masters.map((port) => [port, 0]));
        const add = async (key: string, n: number) => {
          const port = await cluster.masterOf(key);
          if (port !== bare) expected.set(port, expected.get(port)! + n);
        };
        for (const key of keys) await add(`${prefix}{${key}}:rec`, 2);
        await add(`${prefix}due`, keys.length);
        const slots = new Set(keys.map((k) => keySlot(`${prefix}{${k}}:rec`)));
        expect(slots.size, 'the keys spread over slots').to.be.greaterThan(1);
        const got = new Map<number, number>();
        for (const port of masters) got.set(port, await waitCalls(port));
        expect(got.get(bare), 'WAITs on the master with no replica').to.equal(0);
        expect([...got].sort(), 'WAITs per master').to.deep.equal([...expected].sort());
        expect([...expected.values()].filter((n) => n > 0).length, 'masters that waited').to.be.greaterThan(0);
      } finally {
        await shop.close();
      }
    });
  }
});
