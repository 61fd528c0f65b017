import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { fromKst, kstDate8 } from '../../src/wire/kst.js';
import { DATA_KEY, DATA_MID, startDataHost, type DataHostRig } from '../helpers/data-host.js';
import { MERCHANT_KEY, MID, startShop, type TestShop } from '../helpers/shop.js';

/*
 * The express-nicepay CLI as a script sees it: spawned from source (node --import tsx, the
 * same as `npx tsx src/cli/index.ts` without npx's extra process), stdout, stderr and the
 * documented exit codes (0 ok, 1 gateway, 2 usage, 3 configuration, 4 outcome unknown).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = ['--import', 'tsx', resolve(ROOT, 'src/cli/index.ts')];

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment without any NICEPAY_* or DEBUG variable of the developer's shell. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('NICEPAY_') && k !== 'DEBUG'),
  );
  return { ...env, ...extra };
}

function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

const creds = (url: string, mid = DATA_MID, key = DATA_KEY) => ({
  NICEPAY_MID: mid,
  NICEPAY_MERCHANT_KEY: key,
  NICEPAY_DATA_URL: url,
});

describe('CLI', function () {
  this.timeout(60_000);

  describe('help and usage', () => {
    it('--help lists every command and the exit codes (exit 0)', async () => {
      const r = await cli(['--help']);
      expect(r.code).to.equal(0);
      for (const c of ['sandbox', 'payout balance', 'payout results', 'recon cash-receipts', '4 outcome unknown'])
        expect(r.stdout).to.include(c);
    });

    for (const cmd of [['sandbox'], ['payout', 'balance'], ['payout', 'results'], ['recon', 'cash-receipts']]) {
      it(`${cmd.join(' ')} --help prints its usage (exit 0)`, async () => {
        const r = await cli([...cmd, '--help']);
        expect(r.code).to.equal(0);
        expect(r.stdout).to.match(new RegExp(`^Usage: express-nicepay ${cmd.join(' ')}`));
      });
    }

    it('--version, -V and -v print the package version (exit 0)', async () => {
      const { version } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
      for (const flag of ['--version', '-V', '-v']) {
        const r = await cli([flag]);
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout).to.equal(`${version}\n`);
      }
    });

    it('a group alone lists its commands instead of "unknown command" (exit 2)', async () => {
      const r = await cli(['payout']);
      expect(r.code).to.equal(2);
      expect(r.stderr)
        .to.include('"payout" needs a command')
        .and.include('payout balance')
        .and.include('payout results');
      expect(r.stderr).to.not.include('unknown command');
    });

    it('a group without its command, with --help, lists the group (exit 0)', async () => {
      const r = await cli(['payout', '--help']);
      expect(r.code).to.equal(0);
      expect(r.stdout).to.include('payout balance').and.include('payout results');
    });

    const usage: [string, string[], RegExp][] = [
      ['no command', [], /Usage: express-nicepay/],
      ['an unknown command', ['refund'], /unknown command "refund"/],
      ['an unknown option', ['payout', 'balance', '--verbose'], /Unknown option '--verbose'/],
      ['a missing --date', ['payout', 'results'], /--date is required/],
      ['a malformed --date', ['payout', 'results', '--date', '2026-11-20'], /--date must be a KST date YYYYMMDD/],
      [
        'an impossible --date',
        ['payout', 'results', '--date', '20261131'],
        /--date must be a real calendar date YYYYMMDD \(KST\), got "20261131"/,
      ],
      ['an option before any command', ['--foo'], /unknown option "--foo"/],
      [
        'a bad --org-svc-cd',
        ['recon', 'cash-receipts', '--date', '20261120', '--usr-id', 'u', '--org-svc-cd', '05'],
        /--org-svc-cd must be one of/,
      ],
      [
        'a bad --id-cl',
        ['recon', 'cash-receipts', '--date', '20261120', '--usr-id', 'u', '--org-svc-cd', '02', '--id-cl', '9'],
        /--id-cl must be one of/,
      ],
      [
        'a missing --usr-id',
        ['recon', 'cash-receipts', '--date', '20261120', '--org-svc-cd', '02'],
        /--usr-id is required/,
      ],
      ['a bad --port', ['sandbox', '--port', 'http'], /--port must be a port number/],
      ['a positional argument', ['payout', 'balance', 'now'], /Unexpected argument 'now'/],
    ];
    for (const [what, args, message] of usage) {
      it(`${what} is a usage error (exit 2)`, async () => {
        const r = await cli(args, creds('http://127.0.0.1:1'));
        expect(r.code, r.stderr).to.equal(2);
        expect(r.stderr).to.match(message);
        expect(r.stdout).to.equal('');
      });
    }
  });

  describe('configuration', () => {
    it('missing environment is exit 3, naming every missing variable', async () => {
      const r = await cli(['payout', 'balance'], { NICEPAY_MID: DATA_MID });
      expect(r.code).to.equal(3);
      expect(r.stderr).to.include('NICEPAY_MERCHANT_KEY, NICEPAY_DATA_URL');
    });

    it('an invalid NICEPAY_DATA_URL or NICEPAY_MID is exit 3, naming the variable', async () => {
      for (const url of ['not a url', 'notaurl', 'ftp://example.com']) {
        const r = await cli(['payout', 'balance'], creds(url));
        expect(r.code).to.equal(3);
        expect(r.stderr).to.include('NICEPAY_DATA_URL is invalid').and.not.include('baseUrl');
      }
      const mid = await cli(['payout', 'balance'], creds('http://127.0.0.1:1', 'short'));
      expect(mid.code).to.equal(3);
      expect(mid.stderr).to.include('NICEPAY_MID is invalid');
    });

    it('never prints the merchant key', async () => {
      const r = await cli(['payout', 'balance'], { ...creds('not a url'), DEBUG: 'express-nicepay' });
      expect(r.stdout + r.stderr).not.to.include(DATA_KEY);
    });
  });

  describe('sandbox command', () => {
    it('prints its URL, serves the data host and stops cleanly on SIGTERM and SIGINT', async () => {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const child = spawn(process.execPath, [...CLI, 'sandbox', '--port', '0'], { cwd: ROOT, env: cleanEnv() });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        const url = await new Promise<string>((res, rej) => {
          let out = '';
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString('utf8');
            const line = out.split('\n')[0];
            if (out.includes('\n') && line) res(line);
          });
          child.once('exit', (code) => rej(new Error(`sandbox exited ${code}: ${stderr}`)));
        });
        expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
        const balance = await cli(['payout', 'balance'], creds(url));
        expect(balance.code, balance.stderr).to.equal(0);
        expect(JSON.parse(balance.stdout)).to.deep.equal({ mid: DATA_MID, remainAmt: 0 });
        const window = await fetch(`${url}/window`);
        expect(window.status).to.be.below(500);
        await window.arrayBuffer();
        const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
        child.kill(signal);
        expect(await exited).to.equal(0);
        expect(stderr).to.include(`stopped (${signal})`);
      }
    });

    it('prints the test merchants with their published keys and its pid; the stop recipe of docs/cli.md stops it under a wrapper like npx', async () => {
      const doc = readFileSync(resolve(ROOT, 'docs/cli.md'), 'utf8');
      const recipe = /<!-- stop-recipe[^>]*-->\n```sh\n([\s\S]*?)```/.exec(doc)![1]!;
      // npx runs the CLI as a child and does not forward kill: a wrapper shell that stays the
      // parent (the trailing ":" keeps sh from exec-ing node) stands in for it.
      const wrapper = `sh -c '"${process.execPath}" --import "${pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href}" "${resolve(ROOT, 'src/cli/index.ts')}" "$@"; :' npx-like`;
      const script = `set -e; cd "$TMPDIR_"; ${recipe.replace('npx express-nicepay', wrapper).replace('# ... run your tests against $NICEPAY_DATA_URL ...', 'echo "$NICEPAY_DATA_URL $SANDBOX_PID"; cat sandbox.log >&2')}`;
      const tmp = (await import('node:fs')).mkdtempSync(resolve((await import('node:os')).tmpdir(), 'sandbox-recipe-'));
      const run = spawnSync('sh', ['-c', script], {
        cwd: ROOT,
        env: { ...cleanEnv(), TMPDIR_: tmp },
        encoding: 'utf8',
        // The recipe itself waits up to 30 s for the pid.
        timeout: 60_000,
      });
      expect(run.status, run.stderr).to.equal(0);
      const [url, pid] = run.stdout.trim().split(' ');
      expect(run.stderr).to.include(
        'merchant nicepay00m key EYzu8jGGMfqaDEp76gSckuvnaHHu+bC4opsSN6lHv3b2lurNYkVXrZ7Z1AoqQnXI3eLuaUFyoRNC6FkrzVjceg== (published test key)',
      );
      expect(run.stderr).to.include(
        'merchant nictest04m key b+zhZ4yOZ7FsH8pm5lhDfHZEb79tIwnjsdA0FBXh86yLc6BJeFVrZFXhAoJ3gEWgrWwN+lJMV0W4hvDdbe4Sjw==',
      );
      // Stopped: the process is gone and the URL no longer answers.
      const gone = async (): Promise<boolean> => {
        try {
          process.kill(Number(pid), 0);
          return false;
        } catch {
          return true;
        }
      };
      for (let i = 0; i < 100 && !(await gone()); i++) await new Promise((r) => setImmediate(r));
      let refused = false;
      for (let i = 0; i < 50 && !refused; i++)
        refused = await fetch(url!).then(
          () => false,
          () => true,
        );
      expect(refused, `sandbox at ${url} still answers`).to.equal(true);
    });

    it('accepts the merchants it is given in the environment, and never prints their keys', async () => {
      const child = spawn(process.execPath, [...CLI, 'sandbox'], {
        cwd: ROOT,
        env: { ...cleanEnv(), NICEPAY_SANDBOX_MERCHANTS: `abcdefghim:${'k'.repeat(32)}` },
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const url = await new Promise<string>((res) =>
        child.stdout.once('data', (c: Buffer) => res(c.toString('utf8').trim())),
      );
      try {
        expect((await cli(['payout', 'balance'], creds(url, 'abcdefghim', 'k'.repeat(32)))).code).to.equal(0);
        const refused = await cli(['payout', 'balance'], creds(url));
        expect(refused.code).to.equal(1);
        expect(stderr).to.include('merchant abcdefghim;').and.not.include('k'.repeat(32));
        expect(stderr).to.include(`pid ${child.pid}:`);
      } finally {
        const exited = new Promise((res) => child.once('exit', res));
        child.kill('SIGTERM');
        await exited;
      }
    });
  });

  describe('payout and recon against a sandbox with data', () => {
    let rig: DataHostRig;
    before(async () => {
      // Monday 2025-01-06 KST, in the past, so the CLI's real clock is after 16:00 that day.
      rig = await startDataHost(fromKst(2025, 1, 6, 9, 0));
      rig.sandbox.dataHost.deposit(DATA_MID, 70_000);
      const sub = (subId: string, accntNo: string) => ({
        subId,
        subNm: `상점 ${subId}`,
        subCoNo: '1234567890',
        bankCd: '004',
        accntNo,
        accntNm: '홍길동',
      });
      await rig.nicepay.payout.registerSubMerchant(sub('seller-a', '111-222'));
      await rig.nicepay.payout.registerSubMerchant(sub('seller-b', '333-444'));
      await rig.nicepay.payout.request({ subId: 'seller-a', amount: 30_000 });
      await rig.nicepay.payout.request({ subId: 'seller-b', amount: 12_000, accntDesc: '1월, "정산"' });
      // The CLI runs on the real clock, and the data host refuses a trDtm more than 10 minutes
      // off its own: move the sandbox to now (the 2025-01-06 payouts run at the next call).
      rig.sandbox.clock.set(new Date());
    });
    after(() => rig.close());

    it('payout balance prints the balance as JSON', async () => {
      const r = await cli(['payout', 'balance'], creds(rig.sandbox.url));
      expect(r.code, r.stderr).to.equal(0);
      expect(JSON.parse(r.stdout)).to.have.property('remainAmt', 28_000);
    });

    it('payout results prints the result as JSON, progress on stderr', async () => {
      const r = await cli(['payout', 'results', '--date', '20250106'], creds(rig.sandbox.url));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.include('fetched 2 records\n');
      const out = JSON.parse(r.stdout) as {
        totCnt: number;
        items: { subId: string; status: string; amount: number; raw?: unknown }[];
      };
      expect(out.totCnt).to.equal(2);
      expect(out.items.map((i) => [i.subId, i.status, i.amount])).to.deep.equal([
        ['seller-a', 'succeeded', 30_000],
        ['seller-b', 'succeeded', 12_000],
      ]);
      expect(out.items[0]).not.to.have.property('raw');
    });

    it('payout results --sub-id --csv prints one sub-merchant as CSV', async () => {
      const r = await cli(
        ['payout', 'results', '--date', '20250106', '--sub-id', 'seller-b', '--csv'],
        creds(rig.sandbox.url),
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout.startsWith('\uFEFF'), 'CSV starts with a UTF-8 BOM').to.equal(true);
      const lines = r.stdout.slice(1).split('\r\n');
      expect(lines[0]).to.equal(
        'rowNo,seq,settlmntDt,subId,subCoNo,subCoNm,status,statusNm,amount,bankCd,accntNm,accntNo,errReason',
      );
      expect(lines).to.have.length(3); // header, one row, '' after the last CRLF
      expect(lines[1]).to.match(
        /^1,\d{20},20250106,seller-b,1234567890,상점 seller-b,succeeded,성공,12000,004,홍길동,/,
      );
    });

    it("a gateway refusal is exit 1 with the resCode, also on the pipeline's debug line of the call", async () => {
      const r = await cli(['payout', 'results', '--date', '20250106'], {
        ...creds(rig.sandbox.url, DATA_MID, 'x'.repeat(88)),
        DEBUG: 'express-nicepay',
      });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/resCode \d{4}/);
      expect(r.stderr).to.match(/payout\.results refused .*"outcome":"refused","resultCode":"\d{4}"/);
      expect(r.stderr).to.not.include('x'.repeat(88));
    });

    it('an unreachable gateway is exit 1', async () => {
      const r = await cli(['payout', 'balance'], creds('http://127.0.0.1:1'));
      expect(r.code).to.equal(1);
      expect(r.stderr).to.include('NICEPAY_GATEWAY_UNREACHABLE');
    });

    it('a lost answer is exit 4 (outcome unknown)', async () => {
      rig.sandbox.faults.inject({ target: 'data', kind: 'drop' });
      const r = await cli(['payout', 'balance'], creds(rig.sandbox.url));
      expect(r.code, r.stderr).to.equal(4);
      expect(r.stderr).to.include('may have acted');
    });
  });

  describe('recon cash-receipts', () => {
    let shop: TestShop;
    const today = () => kstDate8(new Date());
    before(async () => {
      shop = await startShop();
      shop.orders.set('CLI-BANK-1', 12_000);
      const auth = await shop.sandbox.authenticate({
        moid: 'CLI-BANK-1',
        amount: 12_000,
        method: 'BANK',
        goodsName: '똠얌꿍, 밀키트',
        cashReceipt: { type: 'income-deduction', identity: '01012345678' },
      });
      const res = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(res.body).to.have.property('status', 'approved');
    });
    after(() => shop.close());

    it('--csv exports the receipts with a header, quoting as RFC 4180 wants', async () => {
      const r = await cli(
        ['recon', 'cash-receipts', '--date', today(), '--usr-id', `${MID}admin`, '--org-svc-cd', '02', '--csv'],
        creds(shop.sandbox.url, MID, MERCHANT_KEY),
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.include('fetched 1 record\n');
      expect(r.stdout.startsWith('\uFEFF')).to.equal(true);
      const [header, row] = r.stdout.slice(1).split('\r\n');
      expect(header).to.match(/^appDt,appTm,ccDt,ccTm,mid,/);
      expect(row).to.include('"똠얌꿍, 밀키트"').and.include(',CLI-BANK-1').and.include('income-deduction');
    });

    it('JSON by default; NICEPAY_USR_ID and NICEPAY_MID stand in for --usr-id and --search-id', async () => {
      const r = await cli(['recon', 'cash-receipts', '--date', today(), '--org-svc-cd', '02'], {
        ...creds(shop.sandbox.url, MID, MERCHANT_KEY),
        NICEPAY_USR_ID: `${MID}admin`,
      });
      expect(r.code, r.stderr).to.equal(0);
      const out = JSON.parse(r.stdout) as { count: number; items: { moid: string; goodsAmt: number }[] };
      expect(out.count).to.equal(1);
      expect(out.items[0]).to.include({ moid: 'CLI-BANK-1', goodsAmt: 12_000 });
    });

    it("the troubleshooting page's command runs as written (exit 0)", async () => {
      const doc = readFileSync(resolve(ROOT, 'docs/troubleshooting.md'), 'utf8');
      const line = /<!-- recon-command[^>]*-->\s*`npx express-nicepay ([^`]+)`/.exec(doc)![1]!;
      const args = line.replace('YYYYMMDD', today()).replace('YOUR_ADMIN_ID', `${MID}admin`).split(/\s+/);
      const r = await cli(args, creds(shop.sandbox.url, MID, MERCHANT_KEY));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.include('CLI-BANK-1');
    });

    it('an empty day still prints the CSV header', async () => {
      const r = await cli(
        ['recon', 'cash-receipts', '--date', '20200102', '--usr-id', `${MID}admin`, '--org-svc-cd', '03', '--csv'],
        creds(shop.sandbox.url, MID, MERCHANT_KEY),
      );
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout.split('\r\n')).to.have.length(2);
    });
  });
});
