/**
 * The long fuzz run: `npm run fuzz` (`--runs N` for the total, default 100000). Runs every
 * property of test/fuzz/properties.ts, split by weight, and prints the number of cases.
 * Exits non-zero on the first counterexample (fast-check prints its seed and path).
 */
import fc from 'fast-check';
import { allProperties } from './properties.js';

const arg = process.argv.indexOf('--runs');
const total = arg > 0 ? Number(process.argv[arg + 1]) : 100_000;
const seedArg = process.argv.indexOf('--seed');
const seed = seedArg > 0 ? Number(process.argv[seedArg + 1]) : Date.now() % 2_147_483_647;

const { props, close } = await allProperties();
const weights = props.reduce((s, p) => s + p.weight, 0);
let cases = 0;
let failed = false;
const started = Date.now();
try {
  for (const p of props) {
    const numRuns = Math.ceil((total * p.weight) / weights);
    const t = Date.now();
    const details = await fc.check(p.prop, { numRuns, seed });
    cases += details.numRuns;
    console.log(`${p.name}: ${details.numRuns} cases, ${details.failed ? 'FAILED' : 'ok'} (${Date.now() - t} ms)`);
    if (details.failed) {
      failed = true;
      console.log(fc.defaultReportMessage(details));
      break;
    }
  }
} finally {
  await close();
}
console.log(
  `fuzz: ${cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${seed}: ${failed ? 'FAILED' : 'all properties hold'}`,
);
process.exit(failed ? 1 : 0);
