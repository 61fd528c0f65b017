import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { ERROR_CODES } from '../src/errors/codes.js';
import * as errors from '../src/errors/index.js';

/*
 * The documentation's links and error table. README.md is also the npm page, so
 * every relative link of README.md and docs/ must resolve to a file of the repository that the
 * packed tarball holds too (package.json "files"), and every #anchor to a heading of its
 * target. The README's error table is the one list a shop reads: it names every code of
 * src/errors/codes.ts exactly once, with that code's class and status, and no page of docs/
 * names a NICEPAY_* code that does not exist.
 */

const ROOT = resolve(import.meta.dirname, '..');

/** README.md and every .md under docs/ (docs/api, TypeDoc's git-ignored output, excluded). */
function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (relative(ROOT, path) !== join('docs', 'api')) walk(path);
      } else if (name.endsWith('.md')) out.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file's headings give, with GitHub's -1, -2 suffixes for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  file: string;
  target: string;
}

function links(file: string): Link[] {
  const text = prose(readFileSync(file, 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ file, target: m[1]! }));
}

/** Whether package.json "files" puts a repository path in the tarball. */
function packed(path: string, files: readonly string[]): boolean {
  return files.some((entry) => {
    if (entry.includes('*')) {
      // U+E000 (private use) marks a globstar while the single stars are rewritten
      const re = new RegExp(
        `^${entry
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\/?/g, '\uE000')
          .replace(/\*/g, '[^/]*')
          .replace(/\uE000/g, '(?:.*/)?')}$`,
      );
      return re.test(path);
    }
    return path === entry || path.startsWith(`${entry}/`);
  });
}

const FILES = markdownFiles();
const PACKAGE_FILES = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('documentation links and error table', () => {
  it('finds the README and the docs pages, and links in them', () => {
    expect(FILES.map((f) => relative(ROOT, f))).to.include.members([
      'README.md',
      join('docs', 'lifecycle.md'),
      join('docs', 'sandbox.md'),
    ]);
    expect(FILES.flatMap(links).length).to.be.greaterThan(20);
  });

  it('every relative link resolves to a file of the repository, inside it, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const { file, target } of FILES.flatMap(links)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of the repo
      const [path = '', anchor] = target.split('#');
      const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(ROOT, file)} → ${target}`;
      if (relative(ROOT, dest).startsWith('..')) broken.push(`${where}: outside the repository`);
      else if (!existsSync(dest)) broken.push(`${where}: no such file`);
      else if (anchor !== undefined) {
        if (!dest.endsWith('.md')) broken.push(`${where}: an anchor into a file that is not markdown`);
        else if (!anchors(readFileSync(dest, 'utf8')).has(anchor)) broken.push(`${where}: no heading with that anchor`);
      }
    }
    expect(broken, broken.join('\n')).to.deep.equal([]);
  });

  it('every file the README and docs link to is in the packed tarball (the README is the npm page)', () => {
    const missing: string[] = [];
    for (const { file, target } of FILES.flatMap(links)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const path = target.split('#')[0]!;
      if (path === '') continue;
      const dest = relative(ROOT, resolve(dirname(file), decodeURIComponent(path)))
        .split('\\')
        .join('/');
      if (!packed(dest, PACKAGE_FILES) && dest !== 'package.json')
        missing.push(`${relative(ROOT, file)} → ${target} (${dest})`);
    }
    expect(missing, `not in package.json "files":\n${missing.join('\n')}`).to.deep.equal([]);
  });

  it('the README error table lists every code of ERROR_CODES exactly once, with its class and status', () => {
    const rows = [...README.matchAll(/^\| `(NICEPAY_[A-Z_]+)` \| `(Nicepay[A-Za-z]+)` \| (\d{3}) \|/gm)].map((m) => ({
      code: m[1]!,
      class: m[2]!,
      status: Number(m[3]),
    }));
    const codes = Object.keys(ERROR_CODES);
    expect(rows.map((r) => r.code).sort(), 'codes in the README table').to.deep.equal([...codes].sort());
    for (const row of rows) {
      const want = ERROR_CODES[row.code as keyof typeof ERROR_CODES];
      expect({ code: row.code, class: row.class, status: row.status }).to.deep.equal({
        code: row.code,
        class: want.class,
        status: want.status,
      });
    }
  });

  it("troubleshooting's error-class table lists every error class src/errors exports, each once", () => {
    const text = readFileSync(join(ROOT, 'docs', 'troubleshooting.md'), 'utf8');
    const start = text.indexOf('## Which error class, and what it holds');
    const table = text.slice(start, text.indexOf('\n## ', start + 1));
    const listed = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    const exported = Object.entries(errors)
      .filter(
        ([, value]) =>
          value === errors.NicepayError || (value as { prototype?: unknown }).prototype instanceof errors.NicepayError,
      )
      .map(([name]) => name);
    expect(exported).to.include.members(['NicepayError', 'NicepayScheduleError', 'NicepayDataApiError']);
    expect([...listed].sort()).to.deep.equal([...exported].sort());
  });

  it('no page names a NICEPAY_* error code that does not exist', () => {
    // The CLI's and the example shop's environment variables share the prefix.
    const ENV = new Set([
      'NICEPAY_MID',
      'NICEPAY_MERCHANT_KEY',
      'NICEPAY_BASE_URL',
      'NICEPAY_DATA_URL',
      'NICEPAY_USR_ID',
      'NICEPAY_WINDOW_URL',
      'NICEPAY_TRUSTED_HOSTS',
      'NICEPAY_SANDBOX_MERCHANTS',
      'NICEPAY_BID',
      'NICEPAY_RECEIPT_IDENTITY',
      'NICEPAY_REFUND_ACCOUNT',
      'NICEPAY_REFUND_HOLDER',
      'NICEPAY_SQLITE_PATH',
      'NICEPAY_SQLITE_TABLE',
      'NICEPAY_REDIS_URL',
      'NICEPAY_REDIS_PREFIX',
    ]);
    const unknown: string[] = [];
    for (const file of [...FILES, join(ROOT, 'example-app', 'README.md')]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bNICEPAY_[A-Z][A-Z_]*[A-Z]\b/g)) {
        if (!ENV.has(m[0]) && !(m[0] in ERROR_CODES)) unknown.push(`${relative(ROOT, file)}: ${m[0]}`);
      }
    }
    expect(unknown, unknown.join('\n')).to.deep.equal([]);
  });
});
