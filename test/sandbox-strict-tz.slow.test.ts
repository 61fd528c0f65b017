import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * The sandbox's approval-side rules compare KST timestamps with its virtual clock: they must
 * hold whatever TZ the process runs in. The strict-rule and official-sample tests run here in
 * child processes under TZ=UTC and TZ=America/Los_Angeles (daylight saving, 17 hours off KST).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const mocha = fileURLToPath(new URL('../node_modules/mocha/bin/mocha.js', import.meta.url));
const FILES = ['test/sandbox-strict.test.ts', 'test/sandbox-window.test.ts', 'test/sandbox-official-sample.test.ts'];
const ZONES: Array<[string, number]> = [['UTC', 0], ['America/Los_Angeles', 480]];

describe('sandbox approval rules under TZ=UTC and TZ=America/Los_Angeles (child processes)', function () {
  this.timeout(120_000);
  for (const [tz, offset] of ZONES) {
    it(`passes under TZ=${tz}`, () => {
      const env = { ...process.env, TZ: tz };
      const probe = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()))'], { env, encoding: 'utf8' });
      expect(probe.stdout, 'the child really runs in that zone').to.equal(String(offset));
      const run = spawnSync(process.execPath, [mocha, '--reporter', 'dot', ...FILES], { cwd: root, env, encoding: 'utf8' });
      const out = `${run.stdout}\n${run.stderr}`;
      expect(run.status, out).to.equal(0);
      expect(out).to.match(/\d+ passing/);
      expect(out).to.not.match(/failing|pending/);
    });
  }
});
