/**
 * What a developer reads before the code: package.json's registry metadata, a CHANGELOG, and
 * the README's word on CommonJS (require on Node >= 20.19, the TypeScript settings that work,
 * proved by test/slow/consumers.test.ts) and on the example shop's ports.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

describe('package metadata and the front door', () => {
  it('package.json names the repository, homepage, issue tracker and keywords', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, unknown>;
    expect(pkg['repository'])
      .to.have.property('url')
      .that.matches(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    expect(pkg['homepage'])
      .to.be.a('string')
      .and.match(/^https:\/\//);
    expect(pkg['bugs'])
      .to.have.property('url')
      .that.matches(/\/issues$/);
    expect(pkg['keywords']).to.be.an('array').that.includes('nicepay').and.includes('express');
  });

  it('has a CHANGELOG with an Unreleased section and the released version', () => {
    expect(existsSync(join(ROOT, 'CHANGELOG.md'))).to.equal(true);
    const { version } = JSON.parse(read('package.json')) as { version: string };
    const changelog = read('CHANGELOG.md');
    expect(changelog).to.include('## [Unreleased]').and.include(`## [${version}]`);
  });

  it('the README documents CommonJS require(), the TypeScript module setting, and PORT/SANDBOX_PORT', () => {
    const readme = read('README.md');
    expect(readme).to.include("require('express-nicepay')").and.include('Node >= 20.19');
    expect(readme).to.include('"module": "nodenext"');
    expect(readme).to.match(/PORT=\d+ SANDBOX_PORT=\d+ npm start/);
    expect(readme.split('\n').length, 'the README stays a front door').to.be.below(350);
    // the setting the README names is the one the CommonJS TypeScript consumer compiles with
    const tsconfig = JSON.parse(read('test/consumers/ts-cjs/tsconfig.json')) as { compilerOptions: { module: string } };
    expect(tsconfig.compilerOptions.module).to.equal('nodenext');
    expect(JSON.parse(read('test/consumers/ts-cjs/package.json'))).to.include({ type: 'commonjs' });
  });
});
