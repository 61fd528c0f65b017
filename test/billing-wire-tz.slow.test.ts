import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * The billing and receipt vectors, TIDs and expiry rules read KST: they must hold whatever TZ
 * the process runs in. test/billing-wire.test.ts runs here in child processes under three
 * zones (UTC; Los Angeles, with daylight saving, 17 hours off KST; Kiritimati, UTC+14, a day
 * ahead of KST for part of every day).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const mocha = fileURLToPath(new URL('../node_modules/mocha/bin/mocha.js', import.meta.url));
const ZONES: Array<[string, number]> = [['UTC', 0], ['America/Los_Angeles', 480], ['Pacific/Kiritimati', -840]];

describe('billing wire rules under several TZ (child processes)', function () {
  this.timeout(120_000);
  for (const [tz, offset] of ZONES) {
    it(`passes under TZ=${tz}`, () => {
      const env = { ...process.env, TZ: tz };
      const probe = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()))'], { env, encoding: 'utf8' });
      expect(probe.stdout, 'the child really runs in that zone').to.equal(String(offset));
      const run = spawnSync(process.execPath, [mocha, '--reporter', 'dot', 'test/billing-wire.test.ts'], { cwd: root, env, encoding: 'utf8' });
      const out = `${run.stdout}\n${run.stderr}`;
      expect(run.status, out).to.equal(0);
      expect(out).to.match(/\d+ passing/);
      expect(out).to.not.match(/failing|pending/);
    });
  }
});
