/**
 * The money invariant, checked by a model, in the fast suite: random sequences on the memory
 * store with a fixed seed (test/model.slow.test.ts runs the SQLite and Redis stores; `npm run
 * fuzz:model -- --runs N --seed S` runs more).
 */
import fc from 'fast-check';
import { modelProperty } from './model/runner.js';

/** The fast suite's seed: the same sequences every run. */
const SEED = 20_260_302;
const RUNS = 200;

describe('the money invariant, checked by a model on the memory store (fast-check, fixed seed)', function () {
  this.timeout(120_000);

  it(`${RUNS} random sequences: the gateway holds money for a TID if and only if the shop recorded it, no Moid is charged twice, nothing is recorded from unsigned input, no hook runs twice at once, no secret leaks`, async () => {
    await fc.assert(modelProperty('memory', undefined), { numRuns: RUNS, seed: SEED });
  });
});
