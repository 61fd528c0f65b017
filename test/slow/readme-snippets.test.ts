import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

/*
 * The documentation's runnable snippets. Every ```ts block of README.md or docs/*.md
 * preceded by `<!-- snippet: <name> -->` is extracted, its package specifiers pointed at the repo's
 * source, written to test/.snippets/<name>.ts (inside the repo so node resolves its
 * node_modules; git-ignored, removed afterwards), type-checked the way a new project would
 * compile them (strict, NodeNext, and the *default* lib, which includes the DOM: a snippet
 * must not rely on the repo's ES-only lib) and run with `node --import tsx`. A snippet must exit 0 by itself (servers and
 * sandboxes closed) and print what EXPECTED says. Every other ```ts or ```js block is a
 * fragment: type-checked with the same settings against FRAGMENT_CONTEXT (what a fragment
 * takes as given), not run.
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const DIR = join(ROOT, 'test', '.snippets');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/**
 * Where each published specifier points in the repo: the absolute path of its .ts source,
 * spelled with .js as NodeNext wants (tsc and tsx both map it to the .ts file). That keeps a
 * left-over test/.snippets file valid for the repo's own `tsc --noEmit`, whose include
 * covers test/.
 */
const SPECIFIERS: Record<string, string> = {
  'express-nicepay': join(ROOT, 'src', 'index.js'),
  'express-nicepay/sandbox': join(ROOT, 'src', 'sandbox', 'index.js'),
  'express-nicepay/redis': join(ROOT, 'src', 'store', 'redis-store.js'),
};

/** What each snippet must print (stdout). A marked snippet not listed here must print something. */
const EXPECTED: Record<string, RegExp[]> = {
  'checkout-return': [/req\.checkout: approved CARD 15000 won/, /onApproved: order-0001 nicepay00m/],
  keyin: [/approved .*\*/, /declined 3051 유효기간이 만료된 카드입니다/, /duplicate: true/],
  'keyin-router': [/201 approved/, /404 NICEPAY_UNKNOWN_ORDER/],
  'payout-day': [/15:59 results-not-ready/, /payout \d{20}: succeeded \(성공\) 30000 won; balance 20000 won/],
  'recon-cash-receipts': [/cash receipts on 20261123: 1/, /approval 11000 won income-deduction/],
  billing: [
    /registered BIKY\*+\d{4} 신한/,
    /onApproved 0116/,
    /charged approved 9900/,
    /again approved duplicate: true same TID: true/,
    /removed declined F112/,
  ],
  'cash-receipt': [/issued 0401 11000/, /refused before sending: NICEPAY_FIELD_INVALID amount/, /cancel cancelled/],
  'testing-your-shop': [
    /200 approved/,
    /ledger: approved, 1 approval call/,
    /502 NICEPAY_OUTCOME_UNKNOWN netCancel=succeeded/,
    /ledger: net-cancelled/,
  ],
};

/**
 * What the documentation's fragments (code blocks that are not complete programs) take as
 * given: the package's exports without an import, a shop's `app`, `nicepay` and `orders`, and
 * the ids a handler has in hand. Declared once here, so every fragment is type-checked against
 * the real types while it stays short in the docs.
 */
const FRAGMENT_CONTEXT = `import type { Express, RequestHandler } from 'express';
import type * as Nicepay from '${SPECIFIERS['express-nicepay']}';
import type * as Sandbox from '${SPECIFIERS['express-nicepay/sandbox']}';

/** An order as the docs' example shop keeps it. */
interface ShopOrder { moid: string; amount: number; title: string; tid: string; buyerName: string; email: string; phone: string; refundable: number }

declare global {
  const createNicepay: typeof Nicepay.createNicepay;
  const createSandbox: typeof Sandbox.createSandbox;
  const TEST_MERCHANTS: typeof Sandbox.TEST_MERCHANTS;
  const express: typeof import('express');
  const app: Express;
  const nicepay: Nicepay.Nicepay;
  const handler: RequestHandler;
  const expectedAmount: (moid: string) => number | undefined;
  const orders: {
    get(moid: string): ShopOrder;
    amountOf(moid: string): number | undefined;
    total(moid: string): number | undefined;
    markCommitted(moid: string, tid: string, status: string): Promise<void>;
    markDeclinedIfPending(moid: string, code: string, message: string): void;
    markPaid(moid: string, detail: unknown, options?: { signal?: AbortSignal }): Promise<void>;
  };
  const order: ShopOrder;
  const refundRequest: { id: string };
  const mid: string, merchantKey: string, baseUrl: string, tid: string, moid: string;
  const holidays: Set<string>;
  function isWeekday(yyyymmdd: string): boolean;
  const seller: Nicepay.SubMerchantInput;
  function show(...values: unknown[]): void;
}
export {};
`;

/** A ```ts or ```js block that is not a marked snippet: type-checked in {@link FRAGMENT_CONTEXT}, not run. */
interface Fragment {
  /** The file it is written to, e.g. `fragment-lifecycle-81.ts`. */
  file: string;
  code: string;
  where: string;
}

/** Every unmarked ```ts / ```js block of one markdown file. */
function extractFragments(file: string): Fragment[] {
  const markdown = readFileSync(file, 'utf8');
  const out: Fragment[] = [];
  const re = /^```(ts|js)\r?\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    const before = markdown.slice(0, m.index);
    if (/<!-- snippet: [\w-]+ -->\r?\n$/.test(before)) continue;
    const line = before.split('\n').length;
    const base = `fragment-${relative(ROOT, file)
      .replace(/\.md$/, '')
      .replace(/[^\w]+/g, '-')}-${line}`;
    // A CommonJS block (require) is checked as a .cjs file (allowJs, checkJs); the rest as ES modules.
    const commonJs = m[1] === 'js' && /\brequire\(/.test(m[2]!);
    const code = rewrite(m[2]!);
    out.push(
      commonJs
        ? { file: `${base}.cjs`, code, where: `${relative(ROOT, file)} line ${line}` }
        : { file: `${base}.ts`, code: `${code}\nexport {};\n`, where: `${relative(ROOT, file)} line ${line}` },
    );
  }
  return out;
}

interface Snippet {
  name: string;
  code: string;
  /** Where it is, e.g. `docs/keyin.md line 180`. */
  where: string;
}

/** Every marked ```ts block of one markdown file, in order. */
function extract(file: string): Snippet[] {
  const markdown = readFileSync(file, 'utf8');
  const out: Snippet[] = [];
  const re = /^<!-- snippet: ([\w-]+) -->\r?\n```ts\r?\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    const line = markdown.slice(0, m.index).split('\n').length;
    out.push({ name: m[1]!, code: m[2]!, where: `${relative(ROOT, file)} line ${line}` });
  }
  return out;
}

/** Points 'express-nicepay', '.../sandbox' and '.../redis' at the repo's source. */
function rewrite(code: string): string {
  return code.replace(/(['"])(express-nicepay(?:\/[\w-]+)?)\1/g, (_whole, _q: string, spec: string) => {
    const target = SPECIFIERS[spec];
    if (!target) throw new Error(`snippet imports ${spec}, which the package does not export`);
    return `'${target}'`;
  });
}

const docFiles = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => join(DOCS, f));
const readmeSnippets = extract(README);
const snippets = [...readmeSnippets, ...docFiles.flatMap(extract)];
const fragments = [README, ...docFiles].flatMap(extractFragments);
/** Every fenced block tagged ts or js, marked or not: each must be a snippet or a fragment. */
const codeBlocks = [README, ...docFiles].reduce(
  (n, f) => n + (readFileSync(f, 'utf8').match(/^```(?:ts|js)\r?$/gm)?.length ?? 0),
  0,
);

describe('README and docs snippets run as written', function () {
  this.timeout(90_000);
  let typecheck: Promise<string | undefined>;

  before(() => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(DIR, { recursive: true });
    for (const s of snippets) writeFileSync(join(DIR, `${s.name}.ts`), `// ${s.where}\n${rewrite(s.code)}`);
    for (const f of fragments) writeFileSync(join(DIR, f.file), `// ${f.where}\n${f.code}`);
    writeFileSync(join(DIR, 'fragment-context.d.ts'), FRAGMENT_CONTEXT);
    // A new project's compiler options: strict and NodeNext like the repo,
    // but no `lib`, so TypeScript's default lib (DOM included) is in scope, where e.g. a Buffer
    // is not a fetch BodyInit. The package.json beside them says "type": "module", as the
    // README tells readers to (top-level await).
    writeFileSync(
      join(DIR, 'tsconfig.json'),
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noUncheckedIndexedAccess: true,
            esModuleInterop: true,
            skipLibCheck: true,
            noEmit: true,
            types: ['node'],
            allowJs: true,
            checkJs: true,
          },
          include: ['./*.ts', './*.cjs'],
        },
        null,
        2,
      ),
    );
    writeFileSync(join(DIR, 'package.json'), JSON.stringify({ type: 'module', private: true }, null, 2));
    typecheck = run(TSC, ['-p', join(DIR, 'tsconfig.json')], { cwd: ROOT, maxBuffer: 16 << 20 }).then(
      () => undefined,
      (e: { stdout?: string; stderr?: string; message: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message,
    );
  });

  after(async () => {
    await typecheck?.catch(() => undefined);
    rmSync(DIR, { recursive: true, force: true });
  });

  it("finds the README's one complete program and the docs' snippets, uniquely named, each with its expectations", () => {
    expect(
      readmeSnippets.map((s) => s.name),
      'the README keeps one runnable snippet',
    ).to.deep.equal(['checkout-return']);
    const names = snippets.map((s) => s.name);
    expect(names.length, 'marked snippets in README.md and docs/*.md').to.be.at.least(6);
    expect(new Set(names).size, `duplicate snippet names: ${names.join(', ')}`).to.equal(names.length);
    expect(names, 'snippets the test expects to find').to.include.members(Object.keys(EXPECTED));
  });

  it('finds every ts and js block of README and docs/ as a runnable snippet or a fragment', () => {
    expect(snippets.length + fragments.length).to.equal(codeBlocks);
    expect(fragments.length, 'fragments').to.be.at.least(15);
    const files = fragments.map((f) => f.file);
    expect(
      files.filter((f) => /^fragment-README-\d+\.cjs$/.test(f)),
      "the README's require() block",
    ).to.have.length(1);
    expect(
      files.filter((f) => f.startsWith('fragment-docs-lifecycle-')),
      'docs/lifecycle.md fragments',
    ).to.have.length.at.least(4);
  });

  it('type-checks every snippet and every fragment with the strict settings', async () => {
    const errors = await typecheck;
    expect(errors, errors).to.equal(undefined);
  });

  for (const s of snippets) {
    it(`${s.name} (${s.where}) exits 0 and prints its result`, async () => {
      let stdout: string;
      try {
        ({ stdout } = await run(process.execPath, ['--import', 'tsx', join(DIR, `${s.name}.ts`)], {
          cwd: ROOT,
          timeout: 30_000,
          killSignal: 'SIGKILL',
          maxBuffer: 16 << 20,
        }));
      } catch (err) {
        const e = err as { code?: unknown; signal?: unknown; stdout?: string; stderr?: string };
        expect.fail(
          `snippet ${s.name} failed (exit ${String(e.code)}, signal ${String(e.signal)}):\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
        );
      }
      const want = EXPECTED[s.name] ?? [/\S/];
      for (const re of want) expect(stdout, `output of ${s.name}`).to.match(re);
    });
  }
});
