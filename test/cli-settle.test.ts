/**
 * `express-nicepay settle` and `unsettled`, spawned from source (test/helpers/cli-run.ts), on the
 * ledger file the example shop writes: its SQLite file (sqliteStore, table nicepay_ledger), which
 * the CLI opens through NICEPAY_SQLITE_PATH while the shop keeps running. The open records are a
 * shop's own: a payment whose answer was lost (a sandbox fault) and whose net cancel failed too.
 *
 * Refusals and usage run main() in this process (memoryIo), as the other CLI tests do.
 *
 * The shop runs on the sandbox's frozen virtual clock, two minutes behind real time, and the
 * spawned CLI on real time: its records are due for the CLI (their 30 s back-off has passed) and
 * two minutes old, which `--attention-after 1` finds too old.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import type { Logger, SettleReport, UnsettledItem } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { redisStore } from '../src/store/redis-store.js';
import { main } from '../src/cli/main.js';
import { memoryIo, runCli, type CliRun } from './helpers/cli-run.js';
import { startRedisServer } from './helpers/redis-server.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const KIMCHI = 23_000;

/** The report a `settle` printed on stdout. */
const reportOf = (r: CliRun): SettleReport => JSON.parse(r.stdout) as SettleReport;
/** Runs the CLI in this process: its exit code and what it printed. */
async function inProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const io = memoryIo(env);
  const code = await main(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}
/** The open payments an `unsettled` printed on stdout. */
const openOf = (r: CliRun): UnsettledItem[] => JSON.parse(r.stdout) as UnsettledItem[];

describe('CLI: settle and unsettled on the shop\'s ledger store', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let dir: string;
  let dbFile: string;
  let shop: Shop;
  let env: Record<string, string>;

  before(async () => {
    sandbox = createSandbox({ clock: () => new Date(Date.now() - 2 * 60_000) });
    sandbox.clock.freeze();
    await sandbox.listen(0);
    dir = mkdtempSync(join(tmpdir(), 'cli-settle-'));
    dbFile = join(dir, 'shop.db');
    // The shop settles nothing itself here: cron's `express-nicepay settle` does.
    shop = createShop({
      mid: MID, merchantKey: KEY, baseUrl: sandbox.url, dbFile, logger: quiet, admin: { password: 'cli-settle-password' },
      nicepay: { clock: () => sandbox.clock.now(), settle: false },
    });
    env = { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: KEY, NICEPAY_BASE_URL: sandbox.url, NICEPAY_SQLITE_PATH: dbFile };
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A buyer pays a kimchi order; the approval's answer is lost (HTTP 500 after the gateway
   * committed) and the net cancel fails too: the gateway holds the money, the order is unpaid,
   * and the shop's ledger holds the record open ("reversing"), as a crash-free shop leaves it.
   */
  async function lostApproval(app = shop.app): Promise<{ moid: string; tid: string }> {
    const checkout = await request(app).post('/checkout').type('form').send({ productId: 'kimchi' });
    const moid = /^\/checkout\/(\w+)\?/.exec(checkout.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: KIMCHI, method: 'CARD' });
    sandbox.faults.inject({ target: 'approve', kind: 'status-500' });
    sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    const ret = await request(app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    expect(ret.status).to.equal(502);
    const tid = auth.fields.TxTid!;
    expect(sandbox.ledger.get(tid)?.status).to.equal('approved');
    return { moid, tid };
  }

  it('refuses to run without the shop\'s store, with two, or on a file that holds no ledger (exit 3), naming the variables', async () => {
    const creds = { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: KEY, NICEPAY_BASE_URL: sandbox.url };
    for (const cmd of ['settle', 'unsettled']) {
      const none = await inProcess([cmd], creds);
      expect(none.code, none.stderr).to.equal(3);
      expect(none.stderr).to.include('no ledger store').and.include('NICEPAY_SQLITE_PATH').and.include('NICEPAY_REDIS_URL');
      expect(none.stdout).to.equal('');
    }
    // Missing credentials and a missing store are reported together, in one run.
    const empty = await inProcess(['settle'], {});
    expect(empty.code).to.equal(3);
    expect(empty.stderr).to.include('missing environment variables NICEPAY_MID, NICEPAY_MERCHANT_KEY, NICEPAY_BASE_URL; no ledger store');
    const both = await inProcess(['settle'], { ...creds, NICEPAY_SQLITE_PATH: dbFile, NICEPAY_REDIS_URL: 'redis://127.0.0.1:1' });
    expect(both.code).to.equal(3);
    expect(both.stderr).to.include('both NICEPAY_SQLITE_PATH and NICEPAY_REDIS_URL are set');
    // A mistyped path or table would be a new, empty ledger with "nothing to settle": refused.
    const typo = await inProcess(['settle'], { ...creds, NICEPAY_SQLITE_PATH: join(dir, 'shpo.db') });
    expect(typo.code).to.equal(3);
    expect(typo.stderr).to.include('NICEPAY_SQLITE_PATH is invalid');
    // Reconciliation of receipts asks the data host: a login without one is refused.
    const login = await inProcess(['settle'], { ...creds, NICEPAY_SQLITE_PATH: dbFile, NICEPAY_USR_ID: `${MID}admin` });
    expect(login.code).to.equal(3);
    expect(login.stderr).to.include('NICEPAY_USR_ID (reconciliation of cash receipts) needs NICEPAY_DATA_URL');
    const table = await inProcess(['unsettled'], { ...creds, NICEPAY_SQLITE_PATH: dbFile, NICEPAY_SQLITE_TABLE: 'payments' });
    expect(table.code).to.equal(3);
    expect(table.stderr).to.include('has no ledger table "payments"');
  });

  it('a Redis URL that is not one is refused naming NICEPAY_REDIS_URL, never printing it (it may hold a password)', async () => {
    const r = await inProcess(['unsettled'], { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: KEY, NICEPAY_BASE_URL: sandbox.url, NICEPAY_REDIS_URL: 'http://shop:s3cret-pw@127.0.0.1:6379' });
    expect(r.code).to.equal(3);
    expect(r.stderr).to.include('NICEPAY_REDIS_URL is invalid');
    expect(r.stdout + r.stderr).to.not.include('s3cret-pw');
  });

  it('unsettled lists the payment the shop left open and sends nothing (exit 5); past --attention-after it exits 6', async () => {
    const { moid, tid } = await lostApproval();
    // Faults on every call settlement could make: still queued afterwards, nothing was sent.
    for (const target of ['status', 'cancel', 'net-cancel'] as const) sandbox.faults.inject({ target, kind: 'status-500' });
    const r = await runCli(['unsettled'], env);
    expect(r.code, r.stderr).to.equal(5);
    const item = openOf(r).find((u) => u.tid === tid);
    expect(item).to.include({ operation: 'approval', moid, amount: KIMCHI, state: 'reversing', needsAttention: false });
    expect(item!.reason).to.be.a('string').and.not.equal('');
    expect(new Date(item!.nextAttemptAt).toISOString()).to.equal(item!.nextAttemptAt);
    expect(r.stderr).to.include(`open approval TID ${tid} Moid ${moid} ${KIMCHI} won: reversing`).and.match(/next \d{4}-\d\d-\d\d \d\d:\d\d:\d\d KST/);
    expect(r.stderr).to.include('1 record still open');

    const old = await runCli(['unsettled', '--attention-after', '1', '--csv'], env);
    expect(old.code).to.equal(6);
    const lines = old.stdout.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).to.equal('operation,tid,moid,amount,state,reason,attempts,nextAttemptAt,needsAttention');
    expect(lines.find((l) => l.includes(tid))).to.match(new RegExp(`^approval,${tid},${moid},${KIMCHI},reversing,.*,true$`));
    expect(old.stderr).to.include(`NEEDS ATTENTION approval TID ${tid}`).and.include('1 needs attention');
    expect(sandbox.faults.pending().map((f) => f.target), 'unsettled sends nothing to the gateway').to.deep.equal(['status', 'cancel', 'net-cancel']);
    sandbox.faults.clear();
    expect(sandbox.ledger.get(tid)?.status).to.equal('approved');
  });

  it('settle reverses the payment the gateway holds and the shop never recorded: report and exit 0, the order stays unpaid as the gateway now has it', async () => {
    const open = await shop.nicepay.unsettled();
    expect(open).to.have.length(1);
    const { tid, moid } = open[0]!;
    const r = await runCli(['settle'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(reportOf(r)).to.deep.equal({ settled: [{ operation: 'approval', tid, moid, amount: KIMCHI, outcome: 'reversed' }], unsettled: [] });
    expect(r.stderr).to.include(`settled approval TID ${tid} Moid ${moid} ${KIMCHI} won: reversed`).and.include('settled 1 record; 0 records still open');
    expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
    expect(shop.db.order(moid)).to.include({ status: 'pending', tid: null });
    // The running shop reads what the CLI wrote: nothing open.
    expect(await shop.nicepay.unsettled()).to.deep.equal([]);
    const again = await runCli(['settle'], env);
    expect(again.code).to.equal(0);
    expect(reportOf(again)).to.deep.equal({ settled: [], unsettled: [] });
    for (const run of [r, again]) expect(run.stdout + run.stderr).to.not.include(KEY.slice(0, 16));
  });

  it('settle sends a full cancel whose answer was lost again: the gateway had done it, so it is kept (exit 0)', async () => {
    const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'haeng-mug' });
    const moid = /^\/checkout\/(\w+)\?/.exec(checkout.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: 8_900, method: 'CARD' });
    await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    const tid = auth.fields.TxTid!;
    expect(shop.db.order(moid)).to.include({ status: 'paid', tid });
    sandbox.faults.inject({ target: 'cancel', kind: 'status-500' });
    const lost = await shop.nicepay.cancel({ tid, moid, amount: 8_900, reason: '주문 취소' }).catch((e: unknown) => e as { outcomeUnknown?: boolean });
    expect(lost).to.include({ outcomeUnknown: true });
    expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
    const r = await runCli(['settle'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(reportOf(r).settled).to.deep.equal([{ operation: 'cancel', tid, moid, amount: 8_900, outcome: 'kept' }]);
    expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
  });

  it('settle leaves a payment open when the gateway cannot be asked (exit 5, why and when next), and says it needs attention past --attention-after (exit 6)', async () => {
    const { moid, tid } = await lostApproval();
    sandbox.faults.inject({ target: 'status', kind: 'status-500' });
    const r = await runCli(['settle'], env);
    expect(r.code, r.stderr).to.equal(5);
    const report = reportOf(r);
    expect(report.settled).to.deep.equal([]);
    expect(report.unsettled).to.have.length(1);
    expect(report.unsettled[0]).to.include({ tid, moid, state: 'reversing', attempts: 1, needsAttention: false });
    expect(r.stderr).to.include(`open approval TID ${tid}`).and.include('1 attempt, next');
    expect(sandbox.ledger.get(tid)?.status, 'nothing reversed without the gateway\'s word').to.equal('approved');

    const late = await runCli(['settle', '--attention-after', '1'], env);
    expect(late.code).to.equal(6);
    expect(reportOf(late).unsettled[0]).to.include({ tid, needsAttention: true });
  });

  it('bad option values are usage errors (exit 2) before anything is opened; --help prints each usage', async () => {
    for (const args of [['settle', '--batch', '0'], ['settle', '--attention-after', '1.5'], ['unsettled', '--batch', 'all'], ['settle', '--json']]) {
      const r = await inProcess(args, env);
      expect(r.code, args.join(' ')).to.equal(2);
    }
    for (const cmd of ['settle', 'unsettled']) {
      const help = await inProcess([cmd, '--help'], {});
      expect(help.code).to.equal(0);
      expect(help.stdout).to.match(new RegExp(`^Usage: express-nicepay ${cmd}`)).and.include('NICEPAY_SQLITE_PATH').and.include('Exit 0 when nothing is open, 5');
    }
    const top = await inProcess(['--help'], {});
    expect(top.stdout).to.include('settle').and.include('5 payments still open').and.include('6 some need attention');
  });

  it('runs on the Redis store a shop writes into (NICEPAY_REDIS_URL): lists the open payment, then reverses it', async () => {
    const redis = await startRedisServer();
    const store = redisStore({ url: redis.url, prefix: 'shop-a:' });
    const redisShop = createShop({
      mid: MID, merchantKey: KEY, baseUrl: sandbox.url, dbFile: ':memory:', logger: quiet, admin: { password: 'cli-settle-password' },
      nicepay: { clock: () => sandbox.clock.now(), settle: false, store },
    });
    try {
      const { tid, moid } = await lostApproval(redisShop.app);
      const redisEnv = { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: KEY, NICEPAY_BASE_URL: sandbox.url, NICEPAY_REDIS_URL: redis.url, NICEPAY_REDIS_PREFIX: 'shop-a:' };
      const list = await runCli(['unsettled'], redisEnv);
      expect(list.code, list.stderr).to.equal(5);
      expect(openOf(list).map((u) => u.tid)).to.deep.equal([tid]);
      // Another prefix is another shop's ledger: nothing of this one in it.
      const other = await runCli(['unsettled'], { ...redisEnv, NICEPAY_REDIS_PREFIX: 'shop-b:' });
      expect(other.code).to.equal(0);
      const r = await runCli(['settle'], redisEnv);
      expect(r.code, r.stderr).to.equal(0);
      expect(reportOf(r).settled).to.deep.equal([{ operation: 'approval', tid, moid, amount: KIMCHI, outcome: 'reversed' }]);
      expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
    } finally {
      await redisShop.close();
      await store.close?.();
      await redis.stop();
    }
  });
});
