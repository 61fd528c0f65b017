/**
 * The default logger, in a child process whose environment says DEBUG or not: with
 * DEBUG=express-nicepay one line per event on stderr, never a secret; without it nothing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';

/** A child that uses the library with no logger and makes one failing data host call. */
const CHILD = `
import { createNicepay } from './src/index.ts';
const np = createNicepay({ mid: 'nicepay00m', merchantKey: 'x'.repeat(20), baseUrl: 'http://127.0.0.1:1' });
await np.payout.balance().catch(() => {});
await np.close();
`;

function runChild(debug: string | undefined): string {
  const env = { ...process.env };
  delete env['DEBUG'];
  if (debug !== undefined) env['DEBUG'] = debug;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: join(import.meta.dirname, '..', '..'), env, encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).to.equal(0);
  return r.stderr;
}

describe('the default logger follows DEBUG', () => {
    it('is the default logger: DEBUG=express-nicepay prints to stderr, unset prints nothing', function () {
      this.timeout(40_000);
      const on = runChild('express-nicepay');
      expect(on).to.match(/express-nicepay warn payout\.balance not-sent \{"operation":"payout\.balance","sid":"0101001","failure":"connect","outcome":"not-sent","durationMs":\d+\}/);
      expect(on).not.to.include('xxxxxxxx');
      expect(runChild(undefined)).to.equal('');
      expect(runChild('express:*')).to.equal('');
    });
});
