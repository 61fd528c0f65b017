import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * DESIGN.md: "Gateway time is KST; tests pass under any TZ". The payout and recon tests build
 * every instant with fromKst, so they must pass unchanged whatever the process's TZ is. This
 * runs them in child processes under three zones: one equal to KST, one 9 hours behind, and
 * one 17 hours behind with daylight saving, where the KST date differs from the local date
 * for most of the payout day.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const mocha = fileURLToPath(new URL('../../node_modules/mocha/bin/mocha.js', import.meta.url));
const FILES = [
  'test/payout-schedule.test.ts',
  'test/payout-day.test.ts',
  'test/data-api.test.ts',
  'test/recon.test.ts',
];

/** Minutes returned by getTimezoneOffset() on 2026-01-01 under each zone. */
const ZONES: Array<[string, number]> = [
  ['UTC', 0],
  ['Asia/Seoul', -540],
  ['America/Los_Angeles', 480],
];

describe('payout and recon under three TZ settings (child processes)', function () {
  this.timeout(120_000);
  for (const [tz, offset] of ZONES) {
    it(`passes under TZ=${tz}`, () => {
      const env = { ...process.env, TZ: tz };
      // The child really runs in that zone.
      const probe = spawnSync(
        process.execPath,
        ['-e', 'process.stdout.write(String(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()))'],
        { env, encoding: 'utf8' },
      );
      expect(probe.stdout).to.equal(String(offset));
      const run = spawnSync(process.execPath, [mocha, '--reporter', 'dot', ...FILES], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
      const out = `${run.stdout}\n${run.stderr}`;
      expect(run.status, out).to.equal(0);
      expect(out).to.match(/\d+ passing/);
      expect(out).to.not.match(/failing|pending/);
    });
  }
});
