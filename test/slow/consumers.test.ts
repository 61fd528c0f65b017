import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

/*
 * Proves the published package works for its three kinds of consumer (helmet's
 * test/project-setups habit): `npm pack` the repo (prepack builds), then unpack the tarball
 * into a temp node_modules whose other packages are symlinks to the repo's, so no network
 * is needed, and run an ESM, a CommonJS, a TypeScript (nodenext) and a CommonJS TypeScript consumer against it.
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test', 'consumers');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/**
 * What the tarball may hold: the built JS and declarations, README, LICENSE, package.json, and
 * the pages the README links to (docs/*.md, docs/spec/*.md, bench/RESULTS.md: the
 * README is the npm page and its links must resolve there).
 */
const ALLOWED = /^(?:dist\/.+\.(?:js|d\.ts)|README\.md|LICENSE|package\.json|docs\/(?:spec\/)?[\w-]+\.md|bench\/RESULTS\.md)$/;

describe('package consumers (npm pack)', function () {
  this.timeout(180_000);
  let tmp: string;
  let files: string[];
  /** The two tsc runs take ~15 s each: started together once the consumers are in place. */
  let compiled: { good: Promise<unknown>; bad: Promise<unknown>; cjs: Promise<unknown> };

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'express-nicepay-consumers-'));
    await run('npm', ['pack', '--pack-destination', tmp, '--silent'], { cwd: ROOT, maxBuffer: 16 << 20 });
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack left no tarball in ${tmp}`);
    const { stdout } = await run('tar', ['-tzf', join(tmp, tarball)]);
    files = stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));

    const modules = join(tmp, 'node_modules');
    mkdirSync(join(modules, 'express-nicepay'), { recursive: true });
    await run('tar', ['-xzf', join(tmp, tarball), '-C', join(modules, 'express-nicepay'), '--strip-components=1']);
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name === 'express-nicepay' || name === '.bin' || name.startsWith('.package-lock')) continue;
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
    }
    for (const app of readdirSync(FIXTURES)) cpSync(join(FIXTURES, app), join(tmp, app), { recursive: true });
    const tsc = (dir: string) => run(TSC, ['-p', join(tmp, dir)]).then(() => undefined, (e: { stdout?: string }) => e);
    compiled = { good: tsc('ts'), bad: tsc('ts-bad'), cjs: tsc('ts-cjs') };
  });

  after(async () => {
    await Promise.allSettled(compiled ? [compiled.good, compiled.bad, compiled.cjs] : []);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('holds only dist (JS and declarations), README.md and the docs it links to, LICENSE and package.json', () => {
    const stray = files.filter((f) => !ALLOWED.test(f));
    expect(stray, 'files outside the allow-list').to.deep.equal([]);
    for (const f of ['README.md', 'docs/lifecycle.md', 'bench/RESULTS.md', 'LICENSE', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/sandbox/index.d.ts', 'dist/store/redis-store.d.ts', 'dist/cli/index.js']) {
      expect(files, f).to.include(f);
    }
    // every entry of `exports` and `bin` points at a packed file
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>>; bin: Record<string, string> };
    const targets = Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)));
    for (const t of [...targets, ...Object.values(pkg.bin)]) expect(files, t).to.include(t.replace(/^\.\//, ''));
    // no two entries for one module: a stale dist would pack files src no longer has
    const src = new Set(readdirRecursive(join(ROOT, 'src')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '')));
    const orphans = files.filter((f) => f.endsWith('.js')).map((f) => f.replace(/^dist\//, '').replace(/\.js$/, '')).filter((f) => !src.has(f));
    expect(orphans, 'dist files without a source').to.deep.equal([]);
  });

  it('the CLI in the tarball starts with a shebang and runs from dist', async () => {
    const path = join(tmp, 'node_modules', 'express-nicepay', 'dist', 'cli', 'index.js');
    expect(readFileSync(path, 'utf8').startsWith('#!/usr/bin/env node\n')).to.equal(true);
    const { stdout } = await run(process.execPath, [path, 'payout', 'results', '--help'], { cwd: tmp });
    expect(stdout).to.match(/^Usage: express-nicepay payout results --date YYYYMMDD/);
  });

  it('ESM: import, mount checkoutReturn and approve a card on the sandbox', async () => {
    const { stdout } = await run(process.execPath, ['index.js'], { cwd: join(tmp, 'esm') });
    expect(JSON.parse(stdout)).to.deep.equal({ status: 'approved', method: 'CARD', amount: 1004 });
  });

  it('CommonJS: require() of every entry point works (require(esm), Node >= 20.19)', async () => {
    const { stdout, stderr } = await run(process.execPath, ['index.js'], { cwd: join(tmp, 'cjs') });
    expect(JSON.parse(stdout)).to.deep.equal({
      middleware: 'function', arity: 3, sandbox: 'function', redisStore: 'function', configError: 'NICEPAY_CONFIG_INVALID',
    });
    // Node 20 may warn that require(esm) is experimental; nothing else may be printed
    expect(stderr.replace(/^.*ExperimentalWarning.*$|^\(Use `node --trace-warnings.*$/gm, '').trim()).to.equal('');
  });

  it('TypeScript (nodenext): narrowing req.checkout by status and method compiles', async () => {
    const err = (await compiled.good) as { stdout?: string } | undefined;
    if (err) throw new Error(`tsc failed:\n${err.stdout}`);
  });

  it('TypeScript CommonJS (module nodenext, as the README says): compiles to require() and runs', async () => {
    const err = (await compiled.cjs) as { stdout?: string } | undefined;
    if (err) throw new Error(`tsc failed:\n${err.stdout}`);
    const dir = join(tmp, 'ts-cjs');
    expect(readFileSync(join(dir, 'out', 'index.js'), 'utf8')).to.include('require("express-nicepay")');
    const { stdout } = await run(process.execPath, ['out/index.js'], { cwd: dir });
    expect(JSON.parse(stdout)).to.deep.equal({ compiledTo: 'function', middleware: 'function', sandbox: 'function', configError: 'NICEPAY_CONFIG_INVALID baseUrl' });
  });

  it('TypeScript: reading payment of a declined result, card of any approval, or a message of an auth failure does not compile', async () => {
    const err = (await compiled.bad) as { stdout: string } | undefined;
    expect(err, 'ts-bad compiled').to.not.equal(undefined);
    expect(err!.stdout).to.include("Property 'payment' does not exist on type 'DeclinedCheckout'");
    expect(err!.stdout).to.match(/Property 'card' does not exist on type '(?:BankPayment|CellphonePayment)/);
    expect(err!.stdout).to.include("Property 'message' does not exist on type 'AuthFailedCheckout'");
    expect(err!.stdout.match(/error TS/g)).to.have.length(3);
  });
});

function readdirRecursive(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => f.split('\\').join('/'));
}
