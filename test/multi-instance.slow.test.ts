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
import { setTimeout as pause } from 'node:timers/promises';
import { expect } from 'chai';
import type { AuthReturn, Sandbox } from '../src/sandbox/index.js';
import { MID } from './helpers/shop.js';
import { startRedisCluster, type RedisCluster } from './helpers/redis-cluster.js';
import { expireLeases } from './helpers/redis-leases.js';
import type { RedisLibrary } from './helpers/redis-targets.js';
import type { Instance } from './helpers/shop-instance.js';
import { startTwoShops, startTwoShopsOnRedis, type TwoShops, type TwoShopsOnRedis } from './helpers/two-shops.js';

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
  let shops: TwoShopsOnRedis;

  before(async function () {
    this.timeout(60_000);
    shops = await startTwoShopsOnRedis();
  });

  after(async () => {
    await shops?.stop();
  });

  it('1,000 concurrent duplicate returns over 100 TxTids: 100 approvals at the gateway, 100 onApproved calls', async () => {
    const { sandbox, instances } = shops;
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
      let shops: TwoShops;

      before(async function () {
        this.timeout(60_000);
        shops = await startTwoShops({ REDIS_CLUSTER: cluster.rootNodes.map((n) => `${n.host}:${n.port}`).join(','), REDIS_LIBRARY: library });
      });

      after(async () => {
        await shops?.stop();
      });

      it('300 concurrent duplicate returns over 60 TxTids: 60 approvals at the gateway, 60 onApproved calls', async () => {
        const { sandbox, instances } = shops;
        const auths = await authenticate(sandbox, 60);
        await expectOncePerTid(sandbox, instances, auths, await postDuplicates(instances, auths, 5));
      });
    });
  }
});

/** The codes a return may be refused with while the store fails over: each one says what happened. */
const DEFINED: Record<number, string | undefined> = {
  409: 'NICEPAY_IN_PROGRESS',
  502: 'NICEPAY_OUTCOME_UNKNOWN',
  503: 'NICEPAY_STORE_UNAVAILABLE',
  // The payment is kept and onApproved has not resolved yet: a repeat or settlement runs it.
  500: 'NICEPAY_HOOK_FAILED',
};

/**
 * Whether `a` is a defined answer: approved for its own TID, a decline of a TID the gateway does
 * not hold (its approval was reversed, so a later duplicate is refused), or a refusal that names
 * what happened; never an unexplained 500, a decline of a paid TID, or a hang.
 */
function defined(a: Answer, held: Set<string>): boolean {
  if (a.statusCode === 200 && a.body.status === 'declined') return !held.has(a.tid);
  if (a.statusCode === 200) return a.body.status === 'approved' && a.body.tid === a.tid;
  return DEFINED[a.statusCode] === a.body.code;
}

/**
 * What a buyer tries again: nothing final was said (the store could not answer, another request
 * held the TID, or onApproved is still to run). A conflict that is final (already processed, a
 * repeat that does not match its first request) and an outcome being settled are not retried.
 */
const RETRIED = new Set(['NICEPAY_STORE_UNAVAILABLE', 'NICEPAY_IN_PROGRESS', 'NICEPAY_HOOK_FAILED']);

describe('failover: a Redis Cluster master killed while approvals are in flight', function () {
  this.timeout(300_000);

  for (const library of ['node-redis', 'ioredis'] as RedisLibrary[]) {
    describe(`${library} cluster clients`, () => {
      let cluster: RedisCluster;
      let shops: TwoShops;

      before(async function () {
        this.timeout(60_000);
        // A replica per master, so the cluster fails over instead of going down.
        cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
        shops = await startTwoShops({
          REDIS_CLUSTER: cluster.rootNodes.map((n) => `${n.host}:${n.port}`).join(','), REDIS_LIBRARY: library,
          // Short timeouts keep the wait behind a held TID short (2 × (connect + response) +
          // 2 × hook + 5 s = 17 s): a duplicate that finds a lease its holder could not give back
          // is answered "in progress" after that.
          COMMAND_TIMEOUT_MS: '1000', RESPONSE_MS: '3000', HOOK_TIMEOUT_MS: '1000',
          // Each ledger write waits for the master's replica: a failover loses none of them.
          WAIT_REPLICAS: '1',
        });
      });

      after(async () => {
        await shops?.stop();
        await cluster?.stop();
      });

      it('no TxTid approved twice, every return ends in a defined answer, the shop and the gateway agree on every payment', async () => {
        const { sandbox, instances } = shops;
        const auths = await authenticate(sandbox, 60);
        // The master of the first TID's ledger key dies at the first approval the gateway commits:
        // other approvals, leases and records are in flight on it then.
        const masterPort = await cluster.masterOf(`mi:{approval:${MID}:${auths[0]!.fields.TxTid!}}:lease`);
        const master = cluster.nodes.find((n) => n.port === masterPort)!;
        const approvals = new Map<string, number>();
        let killed: Promise<void> | undefined;
        let committedAtKill = -1;
        sandbox.ledger.onChange((entry) => {
          if (entry.status !== 'approved') return;
          approvals.set(entry.tid, (approvals.get(entry.tid) ?? 0) + 1);
          if (killed === undefined) {
            committedAtKill = sandbox.ledger.committed().length;
            killed = master.kill();
          }
        });

        const answers = await postDuplicates(instances, auths, 5);
        await killed;
        expect(master.alive).to.equal(false);
        expect(committedAtKill, 'approvals committed when the master died').to.be.lessThan(auths.length);
        const held = new Set(sandbox.ledger.committed().map((e) => e.tid));
        const undefinedAnswers = answers.filter((a) => !defined(a, held));
        expect(undefinedAnswers.slice(0, 5), `${undefinedAnswers.length} undefined answers:\n${instances.map((i) => i.log).join('\n')}`).to.deep.equal([]);
        // No TxTid approved twice at the gateway.
        for (const [tid, n] of approvals) expect(n, tid).to.equal(1);

        // The buyers try again what was not final. A holder whose last write went to the dying
        // master could not give its lease back, and the promoted replica has it: Redis frees it
        // 30 s later; the test expires such leases at once before each round (no holder runs
        // between rounds). A client may still route a slot to the dead master for a moment
        // (node-redis looks again 5 s after its first failed reconnection): a bounded number of
        // rounds, each after the buyer's pause.
        await cluster.settled();
        let pending = auths;
        for (let round = 0; pending.length > 0 && round < 30; round++) {
          if (round > 0) await pause(250);
          await expireLeases(cluster, 'mi:{*}:lease');
          const retries = await postDuplicates([instances[round % 2]!], pending, 1);
          const heldNow = new Set(sandbox.ledger.committed().map((e) => e.tid));
          for (const a of retries) expect(defined(a, heldNow), JSON.stringify(a)).to.equal(true);
          const again = new Set(retries.filter((a) => RETRIED.has(a.body.code ?? '')).map((a) => a.tid));
          pending = pending.filter((auth) => again.has(auth.fields.TxTid!));
        }
        expect(pending.map((a) => a.fields.TxTid), 'returns still refused after the retries').to.deep.equal([]);
        for (const [tid, n] of approvals) expect(n, `${tid} after the retries`).to.equal(1);

        // What the failover left open (an outcome the buyer was told is being settled) is settled
        // by passes until nothing is open, the leases of writes that failed expired first.
        let unsettled: string[] = [];
        for (let pass = 0; pass < 5; pass++) {
          await expireLeases(cluster, 'mi:{*}:lease');
          const report = await instances[pass % 2]!.ask<{ unsettled?: string[]; error?: string }>('settle');
          expect(report.error, 'a settlement pass').to.equal(undefined);
          unsettled = report.unsettled!;
          if (unsettled.length === 0) break;
        }
        expect(unsettled, 'records still open after settlement').to.deep.equal([]);
        // The shop and the gateway agree: onApproved ran for each committed TID and for no other,
        // and every TID answered "approved" is committed. (A hook whose "recorded" write failed
        // runs again for its TID: hooks run at least once, so runs are compared as a set.)
        const committed = sandbox.ledger.committed().map((e) => e.tid).sort();
        const recorded = await approvedAcross(instances);
        expect([...new Set(recorded)].sort(), 'TIDs onApproved recorded vs. payments committed at the gateway').to.deep.equal(committed);
        for (const a of answers) if (a.statusCode === 200 && a.body.status === 'approved') expect(committed, a.tid).to.include(a.tid);
      });
    });
  }
});
