/**
 * The sandbox's billing and receipt rules both ways: laxer than merchants' code nowhere the
 * documents speak (a charge's Moid is unique), stricter nowhere they are silent (a registration
 * or removal Moid reused, receipt parts all 0). Raw requests over loopback, built here from the
 * facts' formulas with node:crypto; then the billing client meeting the duplicate-Moid refusal.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createNicepay, NicepayGatewayError } from '../src/index.js';
import { BILLING_CODES, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { billingEncPlaintext } from '../src/wire/billing-fields.js';
import { encryptEncData } from '../src/wire/enc-data.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp12, kstTimestamp14 } from '../src/wire/kst.js';
import { startFrozenSandbox } from './helpers/frozen-sandbox.js';
import { parseReply, postBytes } from './helpers/gateway-form.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const sha = (...parts: string[]): string => createHash('sha256').update(parts.join(''), 'utf8').digest('hex');
const START = fromKst(2026, 11, 21, 10, 30, 0);

describe('sandbox billing and receipt rules, both ways', () => {
  let sandbox: Sandbox;
  let seq = 0;
  beforeEach(async () => {
    sandbox = await startFrozenSandbox(START);
  });
  afterEach(() => sandbox.close());

  const edi = (): string => kstTimestamp14(sandbox.clock.now());
  const newTid = (kind = '0116'): string =>
    `${MID}${kind}${kstTimestamp12(sandbox.clock.now())}${String(++seq).padStart(4, '0')}`;
  const post = async (path: string, fields: Record<string, string>): Promise<Record<string, string>> =>
    parseReply(
      await postBytes(
        sandbox.url + path,
        encodeForm(fields, 'euc-kr'),
        'application/x-www-form-urlencoded; charset=euc-kr',
      ),
    );

  function register(moid: string, card = '4111111111111111'): Promise<Record<string, string>> {
    const e = edi();
    return post('/webapi/billing/billing_regist.jsp', {
      MID,
      EdiDate: e,
      Moid: moid,
      SignData: sha(MID, e, moid, KEY),
      EncData: encryptEncData(billingEncPlaintext({ number: card, expYear: '29', expMonth: '12' }), KEY),
    });
  }
  function remove(moid: string, bid: string): Promise<Record<string, string>> {
    const e = edi();
    return post('/webapi/billing/billkey_remove.jsp', {
      BID: bid,
      MID,
      EdiDate: e,
      Moid: moid,
      SignData: sha(MID, e, moid, bid, KEY),
    });
  }
  function charge(moid: string, bid: string, tid = newTid()): Promise<Record<string, string>> {
    const e = edi();
    return post('/webapi/billing/billing_approve.jsp', {
      BID: bid,
      MID,
      TID: tid,
      EdiDate: e,
      Moid: moid,
      Amt: '9900',
      GoodsName: '정기구독',
      SignData: sha(MID, e, moid, '9900', bid, KEY),
      CardInterest: '0',
      CardQuota: '00',
    });
  }

  describe('a charge Moid is unique per charge (billing-facts §1b)', () => {
    it('refuses a second charge of a Moid an approved charge holds with 1681, booking nothing', async () => {
      const { BID: bid } = await register('reg-1');
      const first = await charge('sub-2026-11', bid!);
      expect(first.ResultCode).to.equal('3001');
      const tid = newTid();
      const again = await charge('sub-2026-11', bid!, tid);
      expect(again).to.include({ ResultCode: BILLING_CODES.duplicateMoid.code, TID: tid, Moid: 'sub-2026-11' });
      expect(again.ResultCode).to.equal('1681');
      expect(sandbox.ledger.get(tid)).to.equal(undefined);
      expect(sandbox.ledger.byMoid(MID, 'sub-2026-11').map((e) => e.status)).to.deep.equal(['approved']);
      expect((await charge('sub-2026-12', bid!)).ResultCode, 'another Moid is another charge').to.equal('3001');
    });

    it('still refuses it after the charge was cancelled, and charges again a Moid whose charge was declined', async () => {
      const { BID: bid } = await register('reg-2');
      const paid = await charge('sub-c', bid!);
      const e = edi();
      const cancel = await post('/webapi/cancel_process.jsp', {
        TID: paid.TID!,
        MID,
        Moid: 'sub-c-cancel',
        CancelAmt: '9900',
        CancelMsg: '해지',
        PartialCancelCode: '0',
        EdiDate: e,
        SignData: sha(MID, '9900', e, KEY),
      });
      expect(cancel.ResultCode).to.equal('2001');
      expect((await charge('sub-c', bid!)).ResultCode).to.equal('1681');
      const { BID: limited } = await register('reg-3', '4000000000009995');
      expect((await charge('sub-d', limited!)).ResultCode).to.equal('F104');
      expect((await charge('sub-d', bid!)).ResultCode, 'a declined charge holds no Moid').to.equal('3001');
    });
  });

  it('registers and removes with one constant Moid, as public merchant code does', async () => {
    const a = await register('nice_bill_constant');
    const b = await register('nice_bill_constant');
    expect([a.ResultCode, b.ResultCode]).to.deep.equal(['F100', 'F100']);
    expect(a.BID).to.not.equal(b.BID);
    expect((await remove('nice_bill_constant', a.BID!)).ResultCode).to.equal('F101');
    expect((await remove('nice_bill_constant', b.BID!)).ResultCode).to.equal('F101');
    // What a removal is about is still checked: the same Moid does not remove a removed BID twice.
    expect((await remove('nice_bill_constant', a.BID!)).ResultCode).to.equal('F112');
  });

  describe('cash receipt amount parts (billing-facts §2)', () => {
    function receipt(parts: [string, string, string, string], amt = '11000'): Promise<Record<string, string>> {
      const moid = `bank-${++seq}`;
      const e = edi();
      return post('/webapi/cash_receipt.jsp', {
        MID,
        TID: newTid('0401'),
        EdiDate: e,
        Moid: moid,
        SignData: sha(MID, amt, e, moid, KEY),
        GoodsName: '무통장 주문',
        ReceiptAmt: amt,
        ReceiptType: '1',
        ReceiptTypeNo: '01012345678',
        ReceiptSupplyAmt: parts[0],
        ReceiptVAT: parts[1],
        ReceiptServiceAmt: parts[2],
        ReceiptTaxFreeAmt: parts[3],
      });
    }

    it('issues a receipt whose four parts are all 0 (not split) for its ReceiptAmt', async () => {
      const r = await receipt(['0', '0', '0', '0']);
      expect(r.ResultCode).to.equal('7001');
      expect(sandbox.dataHost.cashReceipts(MID).find((c) => c.tid === r.TID)).to.include({ goodsAmt: 11000 });
    });

    it('refuses non-zero parts that do not add up, and issues parts that do', async () => {
      expect((await receipt(['10000', '0', '0', '0'])).ResultCode).to.equal('7011');
      expect((await receipt(['0', '0', '0', '1'])).ResultCode).to.equal('7011');
      expect((await receipt(['10000', '1000', '0', '1'])).ResultCode).to.equal('7011');
      expect((await receipt(['10000', '1000', '0', '0'])).ResultCode).to.equal('7001');
      expect((await receipt(['0', '0', '0', '11000'])).ResultCode, 'all tax-free').to.equal('7001');
    });
  });

  it("the billing client reports the gateway's duplicate-Moid refusal as NICEPAY_MOID_CHARGED_BEFORE naming the order, never as a decline", async () => {
    // Two shops without a shared store: the second one's own Moid guard cannot see the first charge.
    const options = { mid: MID, merchantKey: KEY, baseUrl: sandbox.url, clock: () => sandbox.clock.now() };
    const first = createNicepay(options);
    const second = createNicepay(options);
    try {
      const reg = await first.billing.register({
        moid: 'reg-client',
        card: { number: '4111111111111111', expYear: '2029', expMonth: '12' },
      });
      if (reg.status !== 'registered') throw new Error(`not registered: ${reg.code}`);
      const month = { bid: reg.bid, moid: 'sub-client-11', amount: 9_900, goodsName: '월간 구독' };
      expect((await first.billing.charge(month)).status).to.equal('approved');
      const again = await second.billing.charge(month).catch((e: unknown) => e as NicepayGatewayError);
      expect(again).to.be.instanceOf(NicepayGatewayError);
      expect(again).to.include({
        code: 'NICEPAY_MOID_CHARGED_BEFORE',
        status: 409,
        moid: 'sub-client-11',
        resultCode: '1681',
      });
      expect((again as Error).message)
        .to.match(/charged before/)
        .and.to.match(/nothing was charged now/);
      // Nothing recorded: the same charge asked again meets the gateway's refusal again.
      expect(await second.billing.charge(month).catch((e: unknown) => (e as NicepayGatewayError).code)).to.equal(
        'NICEPAY_MOID_CHARGED_BEFORE',
      );
      expect(sandbox.ledger.byMoid(MID, 'sub-client-11').filter((e) => e.status === 'approved')).to.have.length(1);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
