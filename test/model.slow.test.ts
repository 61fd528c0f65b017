/**
 * The money invariant, checked by a model (docs/reliability.md): random sequences of buyers,
 * the shop, the gateway's faults and notices, misbehaving hooks, killed instances and the
 * clock, against the sandbox over loopback, on each store, with a fixed seed. `npm run
 * fuzz:model -- --runs N --seed S` runs more; violations found are kept in
 * test/model/regressions.test.ts.
 */
import fc from 'fast-check';
import { startRedisServer, type RedisServer } from './helpers/redis-server.js';
import { modelProperty } from './model/runner.js';
import type { StoreKind } from './model/store-setup.js';

/** The fast suite's seed: the same sequences every run. */
const SEED = 20_260_302;
/** Sequences per store: memory is cheapest, so it gets the most. */
const RUNS: ReadonlyArray<[StoreKind, number]> = [['memory', 150], ['sqlite', 60], ['redis', 60]];

describe('the money invariant, checked by a model (fast-check, fixed seed)', function () {
  this.timeout(120_000);
  let redis: RedisServer | undefined;
  before(async function () {
    this.timeout(30_000);
    redis = await startRedisServer();
  });
  after(() => redis?.stop());

  for (const [kind, runs] of RUNS) {
    it(`${runs} random sequences on ${kind}: the gateway holds money for a TID if and only if the shop recorded it, no Moid is charged twice, nothing is recorded from unsigned input, no hook runs twice at once, no secret leaks`, async () => {
      await fc.assert(modelProperty(kind, redis?.url), { numRuns: runs, seed: SEED });
    });
  }
});
