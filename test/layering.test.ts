/**
 * The layers of issue 17 §1, checked on the source: data flows express -> client -> wire /
 * transport, never back. src/express only adapts (no wire import); the framework-free
 * clients never import Express or src/express; src/wire imports no other layer but the plain types.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(import.meta.dirname, '..', 'src');

/** Every .ts file under `dir`, with the relative module paths it imports. */
function importsUnder(dir: string): Array<{ file: string; imports: string[] }> {
  const out: Array<{ file: string; imports: string[] }> = [];
  for (const entry of readdirSync(join(SRC, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const text = readFileSync(path, 'utf8');
    const imports = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
    out.push({ file: relative(SRC, path), imports });
  }
  return out;
}

describe('layering', () => {
  it('src/express imports no src/wire module', () => {
    for (const { file, imports } of importsUnder('express')) {
      expect(imports.filter((i) => i.includes('/wire/')), file).to.deep.equal([]);
    }
  });

  it('the interface clients import neither Express nor src/express', () => {
    for (const dir of ['approval', 'keyin', 'payout', 'recon', 'data-api', 'store']) {
      for (const { file, imports } of importsUnder(dir)) {
        expect(imports.filter((i) => i === 'express' || i.includes('/express/')), file).to.deep.equal([]);
      }
    }
  });

  it('src/wire imports only src/wire, the shared types and libraries', () => {
    for (const { file, imports } of importsUnder('wire')) {
      expect(imports.filter((i) => i.startsWith('..') && !i.startsWith('../types/')), file).to.deep.equal([]);
    }
  });
});
