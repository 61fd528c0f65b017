import { expect } from 'chai';
import { runCli } from './helpers/cli-run.js';
import { startLifecycleShop, MERCHANT_KEY, MID, type LifecycleShop } from './helpers/lifecycle-shop.js';

/* `express-nicepay cancel` and `status`, spawned from source (test/helpers/cli-run.ts). */

describe('CLI: cancel and status', function () {
  this.timeout(60_000);
  let shop: LifecycleShop;
  let env: Record<string, string>;
  before(async () => {
    shop = await startLifecycleShop();
    env = { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: MERCHANT_KEY, NICEPAY_BASE_URL: shop.sandbox.url };
  });
  after(async () => {
    await shop.close();
  });

  it('status, partial cancel, the rest, then one too many: exit codes 0, 0, 0, 1', async () => {
    const paid = await shop.pay('CARD', 1004);
    const s = await runCli(['status', '--tid', paid.tid], env);
    expect(s.code).to.equal(0);
    expect(JSON.parse(s.stdout)).to.include({ status: 'approved', tid: paid.tid });
    // dates print as ISO strings, never as the {} of a Date rebuilt from its entries
    const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    expect(JSON.parse(s.stdout).authDate).to.match(isoDate);
    const a = await runCli(['cancel', '--tid', paid.tid, '--moid', paid.moid, '--amount', '500', '--reason', '부분 취소', '--partial'], env);
    expect(a.code, a.stderr).to.equal(0);
    expect(JSON.parse(a.stdout)).to.include({ status: 'cancelled', cancelledAmount: 500, remainingAmount: 504 });
    expect(JSON.parse(a.stdout).cancelledAt).to.match(isoDate);
    expect(a.stdout + s.stdout).to.not.include('{}');
    expect(a.stdout).to.not.include('"raw"');
    const b = await runCli(['cancel', '--tid', paid.tid, '--moid', paid.moid, '--amount', '504', '--reason', 'rest', '--remaining', '504'], env);
    expect(b.code).to.equal(0);
    const c = await runCli(['cancel', '--tid', paid.tid, '--moid', paid.moid, '--amount', '1', '--reason', 'again', '--partial'], env);
    expect(c.code).to.equal(1);
    expect(JSON.parse(c.stdout)).to.include({ status: 'refused', code: '2015', reason: 'already-cancelled' });
    const after = await runCli(['status', '--tid', paid.tid], env);
    expect(JSON.parse(after.stdout).status).to.equal('cancelled');
    for (const r of [s, a, b, c, after]) expect(r.stdout + r.stderr).to.not.include(MERCHANT_KEY.slice(0, 16));
  });

  it('usage errors exit 2, a missing NICEPAY_BASE_URL exits 3, an unknown outcome exits 4', async () => {
    expect((await runCli(['cancel', '--tid', 'x', '--moid', 'm', '--amount', '12.5', '--reason', 'r'], env)).code).to.equal(2);
    expect((await runCli(['cancel', '--tid', 'x', '--moid', 'm', '--amount', '1'], env)).code).to.equal(2);
    expect((await runCli(['status'], env)).code).to.equal(2);
    const noBase = await runCli(['status', '--tid', 'x'], { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: MERCHANT_KEY });
    expect(noBase.code).to.equal(3);
    expect(noBase.stderr).to.include('NICEPAY_BASE_URL');
    // an empty environment is reported whole, in one run
    const none = await runCli(['cancel', '--tid', 'x', '--moid', 'm', '--amount', '1', '--reason', 'r'], {});
    expect(none.code).to.equal(3);
    expect(none.stderr).to.include('missing environment variables NICEPAY_MID, NICEPAY_MERCHANT_KEY, NICEPAY_BASE_URL');
    // a config refusal names the environment variable, not the client option behind it
    const withPath = await runCli(['status', '--tid', 'x'], { ...env, NICEPAY_BASE_URL: `${shop.sandbox.url}/webapi` });
    expect(withPath.code).to.equal(3);
    expect(withPath.stderr).to.include('NICEPAY_BASE_URL is invalid').and.not.include('baseUrl');
    const paid = await shop.pay('CARD', 2000);
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'bad-signature' });
    const unknown = await runCli(['cancel', '--tid', paid.tid, '--moid', paid.moid, '--amount', '2000', '--reason', 'x'], env);
    expect(unknown.code).to.equal(4);
    expect(unknown.stderr).to.include('[NICEPAY_ANSWER_UNVERIFIED]');
  });

  it('--help of both commands prints their usage', async () => {
    for (const c of ['cancel', 'status']) {
      const r = await runCli([c, '--help'], {});
      expect(r.code).to.equal(0);
      expect(r.stdout).to.match(new RegExp(`^Usage: express-nicepay ${c}`));
    }
  });
});
