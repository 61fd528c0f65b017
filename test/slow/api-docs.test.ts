import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import { expect } from 'chai';

/*
 * The API reference builds: TypeDoc with typedoc.json (every warning an error: an undocumented
 * export, a link or an anchor to something not in the reference) converts, validates and
 * renders every entry point, here into a temporary folder (`npm run docs` writes docs/api, and
 * CI runs that too). The built pages read as the package is used: modules by import path, the
 * README's guides as pages of the reference, headings with their code in the table of
 * contents, and members found by search as the README writes them (typedoc.plugin.mjs).
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/** One row of TypeDoc's search data, and the lunr index's terms with the rows each field holds them in. */
interface SearchData {
  rows: Array<{ name: string; parent?: string; url: string }>;
  index: { invertedIndex: Array<[term: string, fields: Record<string, Record<string, unknown>>]> };
}

describe('API reference (TypeDoc)', function () {
  this.timeout(180_000);
  let out: string;
  let output: string;

  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'nicepay-api-'));
    const typedoc = join(ROOT, 'node_modules', '.bin', 'typedoc');
    try {
      const { stdout, stderr } = await run(typedoc, ['--out', out], { cwd: ROOT, maxBuffer: 16 << 20 });
      output = stdout + stderr;
    } catch (err) {
      const e = err as { code?: unknown; stdout?: string; stderr?: string };
      expect.fail(`typedoc exited ${String(e.code)}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  const page = (path: string): string => readFileSync(join(out, path), 'utf8');

  it('converts, validates and renders every entry point without a warning', () => {
    expect(output).to.not.match(/\[warning\]|\[error\]/);
  });

  it('names each module by its import path (package.json exports), not by its source file', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
    const importPaths = Object.keys(pkg.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? pkg.name : `${pkg.name}${k.slice(1)}`));
    expect(importPaths).to.deep.equal(['express-nicepay', 'express-nicepay/sandbox', 'express-nicepay/redis', 'express-nicepay/sqlite']);
    const modules = readdirSync(join(out, 'modules')).sort();
    expect(modules).to.deep.equal(['express-nicepay.html', 'express-nicepay_redis.html', 'express-nicepay_sandbox.html', 'express-nicepay_sqlite.html']);
    const index = page('modules.html');
    for (const name of importPaths) expect(index).to.include(`>${name}<`);
    expect(index).to.not.match(/>(index|sandbox|store\/redis-store|store\/sqlite-store)</);
  });

  it("opens the README's guides as pages of the reference, never as raw Markdown", () => {
    const readme = page('index.html');
    const guides = [...readme.matchAll(/href="([^"#]+)(#[^"]*)?"/g)].map((m) => m[1]!).filter((h) => /^(documents|media)\//.test(h));
    expect(guides).to.include('documents/docs_lifecycle.html').and.include('documents/docs_cli.html').and.include('documents/bench_RESULTS.html');
    expect(guides.filter((h) => h.endsWith('.md')), 'links to raw Markdown').to.deep.equal([]);
    expect(page('documents/docs_cli.html')).to.include('<h2 id="exit-codes"');
  });

  it('keeps the inline code of a heading in the page, its anchor and the table of contents', () => {
    const readme = page('index.html');
    expect(readme).to.include('<h3 id="createnicepayoptions" class="tsd-anchor-link"><code>createNicepay(options)</code>');
    expect(readme).to.match(/href="#createnicepayoptions"><span>create(<wbr\/>)?Nicepay\(options\)<\/span>/);
    expect(readme).to.match(/href="#the-result-on-reqcheckout"><span>The result on req\.checkout<\/span>/);
    expect(readme).to.not.include('href="#_"');
  });

  it('finds checkoutReturn by its name and as the README writes it (nicepay.checkoutReturn, nicepay.billing.charge)', () => {
    const script = page('assets/search.js');
    const data = JSON.parse(inflateSync(Buffer.from(/window\.searchData = "([^"]+)"/.exec(script)![1]!, 'base64')).toString('utf8')) as SearchData;
    const rowOf = (term: string, field: string): string[] => {
      const entry = data.index.invertedIndex.find(([t]) => t === term);
      return Object.keys(entry?.[1][field] ?? {}).map((id) => `${data.rows[Number(id)]!.parent}.${data.rows[Number(id)]!.name}`);
    };
    expect(rowOf('checkoutreturn', 'name')).to.deep.equal(['express-nicepay.Nicepay.checkoutReturn']);
    expect(rowOf('nicepay.checkoutreturn', 'path')).to.deep.equal(['express-nicepay.Nicepay.checkoutReturn']);
    expect(rowOf('nicepay.billing.charge', 'path')).to.deep.equal(['express-nicepay.BillingClient.charge']);
    expect(rowOf('sandbox.deposit', 'path')).to.deep.equal(['express-nicepay/sandbox.Sandbox.deposit']);
  });

  it('is what `npm run docs` builds, and the README says how to build it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['docs']).to.equal('typedoc');
    const config = JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')) as { treatWarningsAsErrors: boolean; out: string };
    expect(config.treatWarningsAsErrors).to.equal(true);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).to.include('`npm run docs`').and.include(config.out);
  });
});
