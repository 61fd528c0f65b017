/**
 * Many instances: two shop processes share one store through redisStore; one sandbox runs
 * here. Concurrent duplicate returns (each TxTid posted several times, spread over both
 * instances and shuffled) must approve each TID exactly once at the gateway and call
 * onApproved exactly once per TID across both processes: on one real Redis server (1,000
 * returns), and on a three-master Redis Cluster with node-redis and with ioredis cluster
 * clients passed as they are (300 returns each). Then a cluster master is killed while
 * approvals are in flight: every return still ends in a defined answer, and the shop and the
 * gateway agree on every payment.
 */
import { expect } from 'chai';
import { createSandbox, type AuthReturn, type Sandbox } from '../src/sandbox/index.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';
import { startRedisCluster, type RedisCluster } from './helpers/redis-cluster.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';
import type { RedisLibrary } from './helpers/redis-targets.js';
import { startInstance, type Instance } from './helpers/shop-instance.js';

/** One answer of an instance to a posted return. */
interface Answer {
  statusCode: number;
  body: { status?: string; tid?: string; duplicate?: boolean; code?: string };
  tid: string;
}

/** Authenticates `tids` payments at the sandbox (Moid `mi-<n>`, amount 1000 + n won). */
async function authenticate(sandbox: Sandbox, tids: number): Promise<AuthReturn[]> {
  const auths: AuthReturn[] = [];
  for (let n = 0; n < tids; n++) auths.push(await sandbox.authenticate({ moid: `mi-${n}`, amount: 1_000 + n, method: 'CARD' }));
  return auths;
}

/** Posts every auth return `copies` times, alternating instances, shuffled, all at once. */
async function postDuplicates(instances: Instance[], auths: AuthReturn[], copies: number): Promise<Answer[]> {
  const jobs = Array.from({ length: auths.length * copies }, (_, i) => ({
    auth: auths[i % auths.length]!,
    instance: instances[Math.floor(i / auths.length) % instances.length]!,
  }));
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j]!, jobs[i]!];
  }
  return Promise.all(
    jobs.map(async ({ auth, instance }) => {
      const res = await instance.pool.request({
        method: 'POST',
        path: '/pay/return',
        headers: { 'content-type': auth.contentType },
        body: auth.body,
      });
      const body = (await res.body.json()) as Answer['body'];
      return { statusCode: res.statusCode, body, tid: auth.fields.TxTid! };
    }),
  );
}

/**
 * The guarantee, not which instance won each race: every TID has exactly one approval call at
 * the gateway and is committed once, onApproved ran once per TID across the processes, and
 * exactly one answer per TID is not a duplicate.
 */
async function expectOncePerTid(sandbox: Sandbox, instances: Instance[], auths: AuthReturn[], answers: Answer[]): Promise<void> {
  const failures = answers.filter((a) => a.statusCode !== 200 || a.body.status !== 'approved' || a.body.tid !== a.tid);
  expect(failures.slice(0, 5), `${failures.length} failed:\n${instances.map((i) => i.log).join('\n')}`).to.deep.equal([]);
  expect(answers.filter((a) => a.body.duplicate === false)).to.have.length(auths.length);

  const entries = sandbox.ledger.entries();
  expect(entries).to.have.length(auths.length);
  expect(entries.reduce((sum, e) => sum + e.approvalCalls, 0), 'approval calls at the gateway').to.equal(auths.length);
  expect(sandbox.ledger.committed()).to.have.length(auths.length);

  const all = await approvedAcross(instances);
  expect(all, 'onApproved calls across both instances').to.have.length(auths.length);
  expect([...new Set(all)].sort()).to.deep.equal(auths.map((a) => a.fields.TxTid!).sort());
  for (const e of entries) expect(e.approvalCalls, e.tid).to.equal(1);
}

/** Every TID onApproved saw, across the instances (a TID twice if it ran twice). */
async function approvedAcross(instances: Instance[]): Promise<string[]> {
  const stats = await Promise.all(instances.map((i) => i.ask<{ approved: string[] }>('stats')));
  return stats.flatMap((s) => s.approved);
}

describe('two shop processes on one Redis', function () {
  this.timeout(120_000);
  let redis: RedisServer;
  let sandbox: Sandbox;
  const instances: Instance[] = [];

  before(async function () {
    this.timeout(60_000);
    redis = await startRedisServer();
    sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    const env = { SANDBOX_URL: url, REDIS_URL: redis.url, MID, MERCHANT_KEY };
    instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await sandbox?.close();
    await redis?.stop();
  });

  it('1,000 concurrent duplicate returns over 100 TxTids: 100 approvals at the gateway, 100 onApproved calls', async () => {
    const auths = await authenticate(sandbox, 100);
    await expectOncePerTid(sandbox, instances, auths, await postDuplicates(instances, auths, 10));
  });
});

describe('two shop processes on a three-master Redis Cluster', function () {
  this.timeout(120_000);
  let cluster: RedisCluster;

  before(async function () {
    this.timeout(60_000);
    cluster = await startRedisCluster();
  });

  after(async () => {
    await cluster?.stop();
  });

  for (const library of ['node-redis', 'ioredis'] as RedisLibrary[]) {
    describe(`${library} cluster clients, passed as they are`, () => {
      let sandbox: Sandbox;
      const instances: Instance[] = [];

      before(async function () {
        this.timeout(60_000);
        sandbox = createSandbox();
        const { url } = await sandbox.listen(0);
        const env = { SANDBOX_URL: url, REDIS_CLUSTER: cluster.rootNodes.map((n) => `${n.host}:${n.port}`).join(','), REDIS_LIBRARY: library, MID, MERCHANT_KEY };
        instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
      });

      after(async () => {
        await Promise.all(instances.splice(0).map((i) => i.stop()));
        await sandbox?.close();
      });

      it('300 concurrent duplicate returns over 60 TxTids: 60 approvals at the gateway, 60 onApproved calls', async () => {
        const auths = await authenticate(sandbox, 60);
        await expectOncePerTid(sandbox, instances, auths, await postDuplicates(instances, auths, 5));
      });
    });
  }
});
