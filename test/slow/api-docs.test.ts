import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

/*
 * The API reference builds: TypeDoc with typedoc.json (every warning an error: an undocumented
 * export, a link to something not in the reference) converts and validates every entry point.
 * `--emit none` checks without writing docs/api; `npm run docs` writes it, and CI runs that too.
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

describe('API reference (TypeDoc)', function () {
  this.timeout(120_000);

  it('converts and validates every entry point without a warning', async () => {
    const typedoc = join(ROOT, 'node_modules', '.bin', 'typedoc');
    let output: string;
    try {
      const { stdout, stderr } = await run(typedoc, ['--emit', 'none'], { cwd: ROOT, maxBuffer: 16 << 20 });
      output = stdout + stderr;
    } catch (err) {
      const e = err as { code?: unknown; stdout?: string; stderr?: string };
      expect.fail(`typedoc exited ${String(e.code)}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
    expect(output).to.not.match(/\[warning\]|\[error\]/);
  });

  it('is what `npm run docs` builds, and the README says how to build it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['docs']).to.equal('typedoc');
    const config = JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')) as { treatWarningsAsErrors: boolean; out: string };
    expect(config.treatWarningsAsErrors).to.equal(true);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).to.include('`npm run docs`').and.include(config.out);
  });
});
