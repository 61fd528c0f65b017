/**
 * Express is loaded only by what needs it at run time: the key-in router. Importing the package,
 * or running the CLI's commands, leaves it unloaded (a shop using only the clients, a cron job
 * asking the payout balance); making a key-in router loads it.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs `body` as an ES module under tsx in the repository and returns what it prints. */
function run(body: string): string {
  const script = `import { createRequire } from 'node:module';
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/express/'));
${body}`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim();
}

describe('express is loaded only by what needs it', function () {
  this.timeout(60_000);

  it('importing the package and creating a client does not load express; creating a key-in router does', () => {
    const out = run(`const { createNicepay } = await import('./src/index.ts');
const nicepay = createNicepay({ mid: 'nicepay00m', merchantKey: 'x'.repeat(32), baseUrl: 'http://127.0.0.1:1', settle: false });
nicepay.checkoutReturn({ expectedAmount: () => 1 });
console.log(loaded());
nicepay.keyinRouter({ expectedAmount: () => 1 });
console.log(loaded());
await nicepay.close();`);
    expect(out.split('\n')).to.deep.equal(['false', 'true']);
  });

  it('the CLI entry point does not load express', () => {
    expect(run(`await import('./src/cli/main.ts');\nconsole.log(loaded());`)).to.equal('false');
  });
});
