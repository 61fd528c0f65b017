/**
 * Many instances (issue 5): two shop processes share one real Redis through redisStore; one
 * sandbox runs here. 1,000 concurrent returns over 100 TxTids (each posted 10 times, spread
 * over both instances and shuffled) must approve each TID exactly once at the gateway and call
 * onApproved exactly once per TID across both processes.
 */
import { expect } from 'chai';
import { createSandbox, type AuthReturn, type Sandbox } from '../src/sandbox/index.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { startInstance, type Instance } from './helpers/shop-instance.js';

const TIDS = 100;
const COPIES = 10;

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
    const auths: AuthReturn[] = [];
    for (let n = 0; n < TIDS; n++) {
      auths.push(await sandbox.authenticate({ moid: `mi-${n}`, amount: 1_000 + n, method: 'CARD' }));
    }
    // Every TID COPIES times, alternating instances, then shuffled.
    const jobs = Array.from({ length: TIDS * COPIES }, (_, i) => ({ auth: auths[i % TIDS]!, instance: instances[Math.floor(i / TIDS) % 2]! }));
    for (let i = jobs.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [jobs[i], jobs[j]] = [jobs[j]!, jobs[i]!];
    }
    const answers = await Promise.all(
      jobs.map(async ({ auth, instance }) => {
        const res = await instance.pool.request({
          method: 'POST',
          path: '/pay/return',
          headers: { 'content-type': auth.contentType },
          body: auth.body,
        });
        const body = (await res.body.json()) as { status?: string; tid?: string; duplicate?: boolean; code?: string };
        return { statusCode: res.statusCode, body, tid: auth.fields.TxTid! };
      }),
    );

    const failures = answers.filter((a) => a.statusCode !== 200 || a.body.status !== 'approved' || a.body.tid !== a.tid);
    expect(failures.slice(0, 5), `${failures.length} failed:\n${instances.map((i) => i.log).join('\n')}`).to.deep.equal([]);
    expect(answers.filter((a) => a.body.duplicate === false)).to.have.length(TIDS);

    const entries = sandbox.ledger.entries();
    expect(entries).to.have.length(TIDS);
    expect(entries.reduce((sum, e) => sum + e.approvalCalls, 0), 'approval calls at the gateway').to.equal(TIDS);
    expect(sandbox.ledger.committed()).to.have.length(TIDS);

    const stats = await Promise.all(instances.map((i) => i.ask<{ approved: string[] }>('stats')));
    const all = stats.flatMap((s) => s.approved);
    expect(all, 'onApproved calls across both instances').to.have.length(TIDS);
    // One onApproved per TID across both processes, for exactly the TIDs approved. Which
    // instance won each race is up to the scheduler: that is not part of the guarantee.
    expect([...new Set(all)].sort()).to.deep.equal(auths.map((a) => a.fields.TxTid!).sort());
    for (const e of entries) expect(e.approvalCalls, e.tid).to.equal(1);
  });
});
