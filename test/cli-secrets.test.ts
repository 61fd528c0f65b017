/**
 * The CLI as an operator's script meets it, run in this process (main() with an in-memory io)
 * against a real sandbox: secrets and personal identifiers come from the environment or
 * standard input and are refused on the command line; a charge whose answer was lost and
 * reversed is exit 1 (nothing charged), 4 only while the card may be charged; dates read as
 * dates; a status inquiry of a key-in or billing charge shows its approval number and time.
 */
import { expect } from 'chai';
import { main } from '../src/cli/main.js';
import { createNicepay, type Nicepay } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { kstDate8 } from '../src/wire/kst.js';
import { memoryIo } from './helpers/cli-run.js';
import {
  MERCHANT_KEY as SHOP_KEY,
  MID as SHOP_MID,
  startLifecycleShop,
  type LifecycleShop,
} from './helpers/lifecycle-shop.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const IDENTITY = '01012345678';
const ACCOUNT = '98765432101234';

describe('CLI: secrets from the environment or stdin, exit codes and what the gateway answered', () => {
  let sandbox: Sandbox;
  let np: Nicepay;
  let env: Record<string, string>;
  let bid = '';
  let seq = 0;
  const moid = (what: string): string => `cli-${what}-${++seq}`;

  before(async () => {
    sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    env = { NICEPAY_MID: MID, NICEPAY_MERCHANT_KEY: KEY, NICEPAY_BASE_URL: url, NICEPAY_DATA_URL: url };
    np = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: url });
    const reg = await np.billing.register({
      moid: 'cli-secrets-reg',
      card: { number: '4111111111111111', expYear: '2030', expMonth: '12' },
    });
    if (reg.status !== 'registered') throw new Error('registration refused');
    bid = reg.bid;
  });
  afterEach(() => sandbox.faults.clear());
  after(async () => {
    await np.close();
    await sandbox.close();
  });

  describe('cash-receipt issue: the identity', () => {
    const args = () => [
      'cash-receipt',
      'issue',
      '--moid',
      moid('rcpt'),
      '--amount',
      '11000',
      '--supply',
      '10000',
      '--vat',
      '1000',
      '--goods-name',
      '무통장',
      '--type',
      'income-deduction',
    ];

    it('is refused on the command line (exit 2), naming where it goes instead, and nothing is sent', async () => {
      const io = memoryIo(env);
      const before = sandbox.dataHost.cashReceipts(MID).length;
      expect(await main([...args(), '--identity', IDENTITY], io)).to.equal(2);
      expect(io.stderr)
        .to.include('--identity is refused')
        .and.include('NICEPAY_RECEIPT_IDENTITY')
        .and.include('--identity-stdin');
      expect(io.stderr + io.stdout).to.not.include(IDENTITY);
      expect(sandbox.dataHost.cashReceipts(MID).length).to.equal(before);
    });

    it('comes from NICEPAY_RECEIPT_IDENTITY, or from standard input with --identity-stdin', async () => {
      const fromEnv = memoryIo({ ...env, NICEPAY_RECEIPT_IDENTITY: IDENTITY });
      expect(await main(args(), fromEnv), fromEnv.stderr).to.equal(0);
      expect(fromEnv.stdinReads).to.equal(0);
      const piped = memoryIo(env, `${IDENTITY}\n`);
      expect(await main([...args(), '--identity-stdin'], piped), piped.stderr).to.equal(0);
      expect(JSON.parse(piped.stdout)).to.include({ status: 'issued' });
      const issued = sandbox.dataHost.cashReceipts(MID).slice(-2);
      // The sandbox keeps the identity masked: first 3 and last 2 digits of the one sent.
      expect(issued.map((r) => r.identity)).to.deep.equal([`010******78`, `010******78`]);
      expect(fromEnv.stdout + piped.stdout + fromEnv.stderr + piped.stderr).to.not.include(IDENTITY);
    });

    it('missing from both is exit 3, naming the variable and the flag', async () => {
      const io = memoryIo(env);
      expect(await main(args(), io)).to.equal(3);
      expect(io.stderr).to.include('NICEPAY_RECEIPT_IDENTITY').and.include('--identity-stdin');
      const empty = memoryIo(env, '\n');
      expect(await main([...args(), '--identity-stdin'], empty)).to.equal(3);
      expect(empty.stderr).to.include('standard input holds 0 of the 1 line expected');
    });
  });

  describe('billing', () => {
    it('charge takes the billing key from standard input with --bid-stdin; --bid on the command line is refused', async () => {
      const refused = memoryIo(env);
      expect(
        await main(
          ['billing', 'charge', '--moid', moid('bid'), '--amount', '9900', '--goods-name', 'x', '--bid', bid],
          refused,
        ),
      ).to.equal(2);
      expect(refused.stderr).to.include('--bid is refused').and.include('NICEPAY_BID').and.not.include(bid);
      const piped = memoryIo(env, `${bid}\n`);
      expect(
        await main(
          ['billing', 'charge', '--moid', moid('bid'), '--amount', '9900', '--goods-name', '구독', '--bid-stdin'],
          piped,
        ),
        piped.stderr,
      ).to.equal(0);
      expect(JSON.parse(piped.stdout)).to.include({ status: 'approved', amount: 9900 });
      expect(piped.stdout + piped.stderr).to.not.include(bid);
    });

    it('a charge whose answer was lost and reversed is exit 1 and says nothing was charged; while the card may be charged it is 4', async () => {
      sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
      const reversed = memoryIo({ ...env, NICEPAY_BID: bid });
      const m = moid('lost');
      expect(
        await main(['billing', 'charge', '--moid', m, '--amount', '9900', '--goods-name', 'x'], reversed),
      ).to.equal(1);
      expect(reversed.stderr).to.include('net cancel succeeded').and.include('nothing was charged');
      expect(sandbox.ledger.entries().find((e) => e.moid === m)!.status).to.equal('net-cancelled');

      sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
      sandbox.faults.inject({ target: 'net-cancel', kind: 'drop', commit: false });
      const unknown = memoryIo({ ...env, NICEPAY_BID: bid });
      const m2 = moid('lost');
      expect(
        await main(['billing', 'charge', '--moid', m2, '--amount', '9900', '--goods-name', 'x'], unknown),
      ).to.equal(4);
      expect(unknown.stderr).to.include('may have acted');
      expect(sandbox.ledger.entries().find((e) => e.moid === m2)!.status).to.equal('approved');
    });

    it('remove prints the KST date the gateway gave as YYYYMMDD, never as a midnight instant', async () => {
      const reg = await np.billing.register({
        moid: moid('reg'),
        card: { number: '5555555555554444', expYear: '2030', expMonth: '12' },
      });
      if (reg.status !== 'registered') throw new Error('registration refused');
      const io = memoryIo({ ...env, NICEPAY_BID: reg.bid });
      expect(await main(['billing', 'remove', '--moid', moid('rm')], io), io.stderr).to.equal(0);
      const out = JSON.parse(io.stdout) as { status: string; authDate: string };
      expect(out.status).to.equal('removed');
      expect(out.authDate).to.equal(kstDate8(sandbox.clock.now()));
    });
  });

  describe('cancel: a refund account', () => {
    let shop: LifecycleShop;
    before(async () => {
      shop = await startLifecycleShop();
    });
    after(() => shop.close());

    /** A paid virtual account of 5,000 won: issued through the shop's return, then deposited. */
    async function paidVbank(): Promise<{ tid: string; moid: string }> {
      const r = await shop.pay('VBANK', 5000);
      await shop.sandbox.deposit(r.tid);
      return { tid: r.tid, moid: r.moid };
    }
    const cancelArgs = (o: { tid: string; moid: string }) => [
      'cancel',
      '--tid',
      o.tid,
      '--moid',
      o.moid,
      '--amount',
      '5000',
      '--reason',
      '환불',
      '--refund-bank',
      '004',
    ];
    const web = () => ({ NICEPAY_MID: SHOP_MID, NICEPAY_MERCHANT_KEY: SHOP_KEY, NICEPAY_BASE_URL: shop.sandbox.url });

    it('--refund-account and --refund-holder are refused on the command line; the number and holder come from the environment', async () => {
      const o = await paidVbank();
      const refused = memoryIo(web());
      expect(
        await main([...cancelArgs(o), '--refund-account', ACCOUNT, '--refund-holder', '홍길동'], refused),
      ).to.equal(2);
      expect(refused.stderr)
        .to.include('--refund-account is refused')
        .and.include('NICEPAY_REFUND_ACCOUNT')
        .and.not.include(ACCOUNT);
      expect(shop.sandbox.ledger.get(o.tid)!.cancels ?? []).to.have.length(0);
      const io = memoryIo({ ...web(), NICEPAY_REFUND_ACCOUNT: ACCOUNT, NICEPAY_REFUND_HOLDER: '홍길동' });
      expect(await main(cancelArgs(o), io), io.stderr).to.equal(0);
      expect(JSON.parse(io.stdout)).to.include({ status: 'refund-pending', cancelledAmount: 5000 });
      expect(shop.sandbox.ledger.get(o.tid)!.cancels![0]!.refundAccount).to.include({
        bankCode: '004',
        holder: '홍길동',
      });
      expect(io.stdout + io.stderr).to.not.include(ACCOUNT);
    });

    it('--refund-account-stdin reads the number, then the holder, one per line', async () => {
      const o = await paidVbank();
      const io = memoryIo(web(), `${ACCOUNT}\r\n김철수\r\n`);
      expect(await main([...cancelArgs(o), '--refund-account-stdin'], io), io.stderr).to.equal(0);
      expect(shop.sandbox.ledger.get(o.tid)!.cancels![0]!.refundAccount).to.include({
        number: `****${ACCOUNT.slice(-4)}`,
        holder: '김철수',
      });
      const noBank = memoryIo(web(), `${ACCOUNT}\n김철수\n`);
      expect(
        await main(
          ['cancel', '--tid', o.tid, '--moid', o.moid, '--amount', '1', '--reason', 'r', '--refund-account-stdin'],
          noBank,
        ),
      ).to.equal(2);
      expect(noBank.stderr).to.include('--refund-bank');
    });
  });

  it('status of a key-in charge and of a billing charge prints its approval number and time', async () => {
    const keyin = await np.keyin({
      moid: moid('keyin'),
      amount: 1004,
      goodsName: 'g',
      card: { number: '4111111111111111', expiry: '3012' },
    });
    const charge = await np.billing.charge({ bid, moid: moid('charge'), amount: 2000, goodsName: 'g' });
    if (keyin.status !== 'approved' || charge.status !== 'approved') throw new Error('not approved');
    for (const r of [keyin, charge]) {
      const io = memoryIo(env);
      expect(await main(['status', '--tid', r.tid], io), io.stderr).to.equal(0);
      const s = JSON.parse(io.stdout) as { status: string; authCode: string; authDate: string };
      expect(s).to.include({ status: 'approved', authCode: r.payment.authCode });
      expect(new Date(s.authDate).getTime()).to.equal(r.payment.approvedAt!.getTime());
    }
  });

  it('payout balance with a wrong merchant key asks about the key, as the web API calls do (exit 1)', async () => {
    const io = memoryIo({ ...env, NICEPAY_MERCHANT_KEY: 'not-the-key-of-this-mid-0123456789' });
    expect(await main(['payout', 'balance'], io)).to.equal(1);
    expect(io.stderr).to.include('resCode 1000').and.include('is merchantKey the one of this MID?');
  });

  describe("usage errors name the option, in the option's words (exit 2)", () => {
    it('an impossible --date is refused before anything is said or sent, naming --date, not settlmntDt', async () => {
      const io = memoryIo(env);
      expect(await main(['payout', 'results', '--date', '20261131'], io)).to.equal(2);
      expect(io.stderr).to.include('--date must be a real calendar date YYYYMMDD (KST), got "20261131"');
      expect(io.stderr).to.not.include('querying').and.not.include('settlmntDt');
    });

    it('--amount -5 is a bad amount, not an "ambiguous" option', async () => {
      const io = memoryIo(env);
      expect(await main(['cancel', '--tid', 't', '--moid', 'm', '--amount', '-5', '--reason', 'r'], io)).to.equal(2);
      expect(io.stderr).to.include('--amount must be a whole number of won, got "-5"').and.not.include('ambiguous');
    });

    it('--foo before a command is an unknown option, not an unknown command', async () => {
      const io = memoryIo(env);
      expect(await main(['--foo'], io)).to.equal(2);
      expect(io.stderr).to.include('unknown option "--foo"').and.not.include('unknown command');
    });
  });
});
