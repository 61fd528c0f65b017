/**
 * The in-process benchmarks RESULTS.md quotes run as it documents them and print their figures:
 * a declaration rule added to the pipeline must reach them too (they build their calls by hand).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs a bench script under tsx in the repository and returns what it prints. */
function bench(script: string, ...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, encoding: 'utf8' }).trim();
}

describe('the in-process benchmarks run as bench/RESULTS.md documents them', function () {
  this.timeout(120_000);

  it('bench/ledger.ts prints CPU and bytes per ledger operation, with and without a hook', () => {
    expect(bench('bench/ledger.ts', '--n=300')).to.match(
      /^ledger: \d+\.\d\d µs CPU and \d+ bytes allocated per operation$/,
    );
    expect(bench('bench/ledger.ts', '--n=300', '--hook')).to.match(
      /^ledger with a hook: \d+\.\d\d µs CPU and \d+ bytes allocated per operation$/,
    );
  });

  it('bench/pipeline.ts prints each stage and the whole pipeline per approval', () => {
    const lines = bench('bench/pipeline.ts', '500').split('\n');
    expect(lines.at(-1)).to.match(/^whole pipeline +\d+\.\d\d us\/approval \(500 iterations\)$/);
    expect(lines.length).to.be.greaterThan(1);
  });
});
