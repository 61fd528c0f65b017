/**
 * `express-nicepay sandbox` takes merchant keys from the environment or a file, never from the
 * command line, where `ps` shows every argument to every local user (docs/cli.md).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { main } from '../src/cli/main.js';
import { SANDBOX_MERCHANTS_ENV, sandboxMerchants } from '../src/cli/sandbox-command.js';
import { memoryIo } from './helpers/cli-run.js';

const ROOT = resolve(import.meta.dirname, '..');
const KEY_A = 'a'.repeat(16) + 'keyA-secret';
const KEY_B = 'b'.repeat(16) + 'keyB-secret';

const io = memoryIo;

describe('CLI sandbox: merchant keys from the environment or a file, never argv', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nicepay-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses --merchant MID:KEY with exit 2, naming the safe ways, and starts nothing', async () => {
    const out = io();
    const code = await main(['sandbox', '--merchant', `abcdefghim:${KEY_A}`], out);
    expect(code).to.equal(2);
    expect(out.stderr).to.include('--merchant is refused').and.include(SANDBOX_MERCHANTS_ENV).and.include('--merchants-file');
    expect(out.stderr).to.not.include(KEY_A);
    expect(out.stdout).to.equal('');
  });

  it('reads MID:KEY entries from the environment and a file together; the help names both', async () => {
    const file = join(dir, 'merchants');
    writeFileSync(file, `# test merchants\nbcdefghijm:${KEY_B}\n\n`);
    chmodSync(file, 0o600);
    const warnings: string[] = [];
    const found = sandboxMerchants({ 'merchants-file': file }, { [SANDBOX_MERCHANTS_ENV]: `abcdefghim:${KEY_A}` }, (l) => warnings.push(l));
    expect(found).to.deep.equal([{ mid: 'abcdefghim', merchantKey: KEY_A }, { mid: 'bcdefghijm', merchantKey: KEY_B }]);
    expect(warnings).to.deep.equal([]);
    expect(sandboxMerchants({}, {}, () => {})).to.equal(undefined); // the published test merchants
    const help = io();
    await main(['sandbox', '--help'], help);
    expect(help.stdout).to.include('--merchants-file').and.include(SANDBOX_MERCHANTS_ENV).and.not.include('--merchant MID:KEY');
  });

  it('warns about a key file others can read, and refuses a malformed or empty one without echoing keys', () => {
    const open = join(dir, 'open');
    writeFileSync(open, `abcdefghim:${KEY_A}\n`);
    chmodSync(open, 0o644);
    const warnings: string[] = [];
    sandboxMerchants({ 'merchants-file': open }, {}, (l) => warnings.push(l));
    expect(warnings.join('')).to.include('readable by other users');
    const bad = join(dir, 'bad');
    writeFileSync(bad, `abcdefghim=${KEY_A}\n`);
    expect(() => sandboxMerchants({ 'merchants-file': bad }, {}, () => {})).to.throw(/MID:KEY/).with.property('message').that.does.not.include(KEY_A);
    const empty = join(dir, 'empty');
    writeFileSync(empty, '# nothing\n');
    expect(() => sandboxMerchants({ 'merchants-file': empty }, {}, () => {})).to.throw(/names no merchant/);
    expect(() => sandboxMerchants({ 'merchants-file': join(dir, 'missing') }, {}, () => {})).to.throw(/cannot be read \(ENOENT\)/);
    expect(() => sandboxMerchants({}, { [SANDBOX_MERCHANTS_ENV]: `abcdefghim:${KEY_A},abcdefghim:${KEY_B}` }, () => {})).to.throw(/given twice/);
  });

  it('a sandbox started with the environment accepts that merchant and never prints its key', async function () {
    this.timeout(30_000);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NICEPAY_')));
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'src/cli/index.ts'), 'sandbox'], {
      cwd: ROOT, env: { ...clean, [SANDBOX_MERCHANTS_ENV]: `abcdefghim:${KEY_A}` },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise((res) => child.once('exit', res));
    try {
      await new Promise<void>((res) => {
        const check = (): void => { if (stderr.includes(' pid ')) res(); };
        child.stderr.on('data', check);
      });
      expect(stderr).to.include('merchant abcdefghim;').and.not.include('nicepay00m').and.not.include(KEY_A);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
