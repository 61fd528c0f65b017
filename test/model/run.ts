/**
 * The long model run: `npm run fuzz:model -- --runs N --seed S [--stores memory,sqlite,redis]`.
 * Runs N random sequences (split over the stores; Redis on a throwaway redis-server) and prints
 * `N sequences, 0 violations`; on a violation, prints the shrunk sequence as a regression test
 * to paste into test/model/regressions.test.ts, and exits non-zero.
 */
import fc from 'fast-check';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { asRegression, modelProperty, totals } from './runner.js';
import { STORE_KINDS, type StoreKind } from './store-setup.js';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const runs = Number(option('runs') ?? 300);
const seed = Number(option('seed') ?? Date.now() % 2_147_483_647);
const stores = (option('stores') ?? STORE_KINDS.join(',')).split(',') as StoreKind[];
if (!Number.isSafeInteger(runs) || runs <= 0) throw new Error('--runs: a positive number of sequences');
if (!Number.isSafeInteger(seed)) throw new Error('--seed: an integer');
const unknown = stores.find((s) => !STORE_KINDS.includes(s));
if (unknown) throw new Error(`--stores: ${unknown} is not one of ${STORE_KINDS.join(', ')}`);

let redis: RedisServer | undefined;
let failed = false;
const started = Date.now();
try {
  if (stores.includes('redis')) redis = await startRedisServer();
  for (const [n, kind] of stores.entries()) {
    const numRuns = Math.floor(runs / stores.length) + (n < runs % stores.length ? 1 : 0);
    const t = Date.now();
    const details = await fc.check(modelProperty(kind, redis?.url), { numRuns, seed });
    console.log(
      `${kind}: ${details.numRuns} sequences, ${details.failed ? 'a violation' : 'no violation'} (${Date.now() - t} ms)`,
    );
    if (details.failed) {
      failed = true;
      console.log(fc.defaultReportMessage(details));
      console.log('\nAs a regression test (test/model/regressions.test.ts):\n');
      console.log(
        asRegression(kind, details.counterexample![0], (details.errorInstance as Error | undefined)?.message ?? ''),
      );
      break;
    }
  }
} finally {
  await redis?.stop();
}
console.log(
  `steps run ${totals.steps}; payments committed ${totals.committed}, recorded ${totals.recorded}; refunds ${totals.refunds}; deposits ${totals.deposits}; hooks hung ${totals.hung}, threw ${totals.threw}; instances killed ${totals.kills}; seed ${seed}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`${totals.sequences} sequences, ${failed ? '1 violation (shrunk above)' : '0 violations'}`);
process.exit(failed ? 1 : 0);
