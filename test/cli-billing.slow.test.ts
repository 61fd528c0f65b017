import { expect } from 'chai';
import { runCli } from './helpers/cli-run.js';
import { createNicepay } from '../src/nicepay.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

/* `express-nicepay billing charge|remove` and `cash-receipt issue`, spawned from source (test/helpers/cli-run.ts). */
const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;

describe('CLI: billing and cash receipts', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let env: Record<string, string>;
  let bid = '';
  before(async () => {
    sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    env = { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: KEY, NICEPAY_BASE_URL: url };
    const np = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: url });
    const reg = await np.billing.register({ moid: 'cli-reg', card: { number: '4111111111111111', expYear: '2030', expMonth: '12' } });
    await np.close();
    if (reg.status !== 'registered') throw new Error('registration refused');
    bid = reg.bid;
  });
  after(() => sandbox.close());

  it('billing charge: 0 and JSON without the BID; billing remove: 0; a charge after removal: 1 (declined); no BID: 3', async () => {
    const a = await runCli(['billing', 'charge', '--moid', 'cli-sub-1', '--amount', '9900', '--goods-name', '월간 구독'], { ...env, NICEPAY_BID: bid });
    expect(a.code, a.stderr).to.equal(0);
    expect(JSON.parse(a.stdout)).to.include({ status: 'approved', amount: 9900, moid: 'cli-sub-1' });
    expect(a.stdout + a.stderr).to.not.include(bid);
    expect(a.stdout).to.not.include(KEY);
    const r = await runCli(['billing', 'remove', '--moid', 'cli-rm-1'], { ...env, NICEPAY_BID: bid });
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.include({ status: 'removed' });
    const b = await runCli(['billing', 'charge', '--moid', 'cli-sub-2', '--amount', '9900', '--goods-name', 'x'], { ...env, NICEPAY_BID: bid });
    expect(b.code).to.equal(1);
    expect(JSON.parse(b.stdout)).to.include({ status: 'declined', code: 'F112' });
    const c = await runCli(['billing', 'charge', '--moid', 'cli-sub-3', '--amount', '9900', '--goods-name', 'x'], env);
    expect(c.code).to.equal(3);
    expect(c.stderr).to.include('NICEPAY_BID');
  });

  it('cash-receipt issue: 0 when issued, 2 when the amounts do not add up (nothing sent)', async () => {
    const args = ['cash-receipt', 'issue', '--moid', 'cli-bank-1', '--amount', '11000', '--supply', '10000', '--goods-name', '무통장 주문', '--type', 'income-deduction'];
    const bad = await runCli([...args, '--vat', '999'], { ...env, NICEPAY_RECEIPT_IDENTITY: '010-1234-5678' });
    expect(bad.code, bad.stderr).to.equal(2);
    // The identity on standard input, as a script pipes it from its secret store.
    const ok = await runCli([...args, '--vat', '1000', '--identity-stdin'], env, '010-1234-5678\n');
    expect(ok.code, ok.stderr).to.equal(0);
    expect(JSON.parse(ok.stdout)).to.include({ status: 'issued', amount: 11000 });
    expect(sandbox.dataHost.cashReceipts(MID)).to.have.length(1);
  });
});
