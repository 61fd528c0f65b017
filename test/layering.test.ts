/**
 * The layers, checked on the source for every folder and file of src/: data flows
 * express -> interface client -> pipeline -> store / wire / transport, never back. The pipeline
 * imports no interface folder; interfaces reach the store only through the pipeline; express
 * only adapts and uses the pipeline's public face; wire is pure; the sandbox reuses wire and
 * nothing else of the client.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = join(import.meta.dirname, '..', 'src');

/**
 * Each top-level folder or file of src/ with its rank: a module may import its own place and
 * places of a lower rank, and interface folders (rank 5) each other.
 */
const RANK: Readonly<Record<string, number>> = {
  types: 0,
  errors: 0,
  logger: 0,
  'gateway-endpoint': 0,
  'own-copy': 0,
  wire: 1,
  util: 2,
  redact: 3,
  'debug-logger': 3,
  'business-days': 3,
  validation: 3,
  transport: 3,
  store: 3,
  config: 4,
  context: 5,
  pipeline: 6,
  approval: 7,
  keyin: 7,
  billing: 7,
  'cash-receipt': 7,
  cancel: 7,
  status: 7,
  notify: 7,
  payout: 7,
  recon: 7,
  'data-api': 7,
  window: 7,
  express: 8,
  nicepay: 9,
  index: 10,
  sandbox: 10,
  cli: 11,
};
const INTERFACE = 7;

/** The place of a src-relative path: its top-level folder, or its file name without `.ts` (so `config.ts` and `config/` are one place). */
function placeOf(path: string): string {
  return path.split('/')[0]!.replace(/\.ts$/, '');
}

/** Every .ts file of src/ with the src-relative places it imports (its own place included). */
function sources(): Array<{ file: string; place: string; imports: Array<{ place: string; path: string }> }> {
  const out = [];
  for (const entry of readdirSync(SRC, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const file = relative(SRC, path);
    const text = readFileSync(path, 'utf8');
    const imports = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].map((m) => {
      const target = relative(SRC, resolve(dirname(path), m[1]!)).replace(/\.js$/, '.ts');
      return { place: placeOf(target), path: target };
    });
    out.push({ file, place: placeOf(file), imports });
  }
  return out;
}

describe('layering', () => {
  const all = sources();

  it('every place of src/ has a rank (a new folder must be placed in a layer)', () => {
    expect(all.map((s) => s.place).filter((p) => RANK[p] === undefined)).to.deep.equal([]);
  });

  it('no module imports a place of a higher rank (interfaces may import each other; the sandbox only wire and the plain types)', () => {
    const upward: string[] = [];
    for (const { file, place, imports } of all) {
      for (const target of imports) {
        if (target.place === place) continue;
        if (place === 'sandbox') {
          if (target.place !== 'wire' && target.place !== 'types') upward.push(`${file} -> ${target.path}`);
          continue;
        }
        const from = RANK[place]!;
        const to = RANK[target.place]!;
        if (to > from || (to === from && from !== INTERFACE)) upward.push(`${file} -> ${target.path}`);
      }
    }
    expect(upward).to.deep.equal([]);
  });

  it('src/pipeline imports no interface folder, and only the pipeline (and the store itself) reaches a store implementation', () => {
    const wrong: string[] = [];
    for (const { file, place, imports } of all) {
      for (const target of imports) {
        if (place === 'pipeline' && RANK[target.place] === INTERFACE) wrong.push(`${file} -> ${target.path}`);
        // The contract's types are shared; the stores themselves are the pipeline's (and the entries').
        const implementation = target.place === 'store' && target.path !== 'store/types.ts';
        if (implementation && !['store', 'pipeline', 'config', 'index'].includes(place))
          wrong.push(`${file} -> ${target.path}`);
        if (RANK[place] === INTERFACE && target.place === 'store') wrong.push(`${file} -> ${target.path}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('src/express only adapts: no wire module, and the pipeline only through its public face', () => {
    for (const { file, imports } of all.filter((s) => s.place === 'express')) {
      expect(
        imports.filter((i) => i.place === 'wire'),
        file,
      ).to.deep.equal([]);
      expect(
        imports.filter(
          (i) => i.place === 'pipeline' && i.path !== 'pipeline/index.ts' && i.path !== 'pipeline/public.ts',
        ),
        file,
      ).to.deep.equal([]);
    }
  });

  it('the interface clients import neither Express nor src/express', () => {
    for (const { file, place } of all.filter((s) => RANK[s.place]! <= INTERFACE)) {
      const text = readFileSync(join(SRC, file), 'utf8');
      expect(/from 'express'/.test(text), file).to.equal(false);
      expect(place).to.not.equal('express');
    }
  });

  it('src/wire imports only src/wire, the shared types and ownCopy', () => {
    for (const { file, imports } of all.filter((s) => s.place === 'wire')) {
      expect(
        imports.filter((i) => i.place !== 'wire' && i.place !== 'types' && i.place !== 'own-copy'),
        file,
      ).to.deep.equal([]);
    }
  });
});
