import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { billingEncPlaintext } from '../src/wire/billing-fields.js';
import { encryptEncData } from '../src/wire/enc-data.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp12, kstTimestamp14 } from '../src/wire/kst.js';
import { startFrozenSandbox } from './helpers/frozen-sandbox.js';
import { parseReply, postBytes } from './helpers/gateway-form.js';

/*
 * The sandbox's billing and receipt endpoints over loopback, with forms built here by hand:
 * SignData is computed with node:crypto from the facts' rules, not with the package.
 */
const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const sha = (...parts: string[]): string => createHash('sha256').update(parts.join(''), 'utf8').digest('hex');
const START = fromKst(2026, 11, 21, 10, 30, 0);

describe('sandbox: recurring billing and cash receipts', () => {
  let sandbox: Sandbox;
  let seq = 0;
  beforeEach(async () => {
    sandbox = await startFrozenSandbox(START);
  });
  afterEach(() => sandbox.close());

  const edi = (): string => kstTimestamp14(sandbox.clock.now());
  const post = async (path: string, fields: Record<string, string>): Promise<Record<string, string>> =>
    parseReply(
      await postBytes(
        sandbox.url + path,
        encodeForm(fields, 'euc-kr'),
        'application/x-www-form-urlencoded; charset=euc-kr',
      ),
    );

  async function register(
    card = '4111111111111111',
    expiry = ['29', '12'] as [string, string],
    plaintext?: string,
  ): Promise<Record<string, string>> {
    const moid = `reg-${++seq}`;
    const e = edi();
    return post('/webapi/billing/billing_regist.jsp', {
      MID,
      EdiDate: e,
      Moid: moid,
      SignData: sha(MID, e, moid, KEY),
      EncData: encryptEncData(
        plaintext ?? billingEncPlaintext({ number: card, expYear: expiry[0], expMonth: expiry[1] }),
        KEY,
      ),
    });
  }
  const newTid = (kind = '0116'): string =>
    `${MID}${kind}${kstTimestamp12(sandbox.clock.now())}${String(++seq).padStart(4, '0')}`;
  async function charge(
    bid: string,
    o: { tid?: string; amt?: string; sign?: string } = {},
  ): Promise<Record<string, string>> {
    const moid = `sub-${++seq}`;
    const e = edi();
    const amt = o.amt ?? '9900';
    return post('/webapi/billing/billing_approve.jsp', {
      BID: bid,
      MID,
      TID: o.tid ?? newTid(),
      EdiDate: e,
      Moid: moid,
      Amt: amt,
      GoodsName: '정기구독',
      SignData: o.sign ?? sha(MID, e, moid, amt, bid, KEY),
      CardInterest: '0',
      CardQuota: '00',
    });
  }
  async function remove(bid: string): Promise<Record<string, string>> {
    const moid = `rm-${++seq}`;
    const e = edi();
    return post('/webapi/billing/billkey_remove.jsp', {
      BID: bid,
      MID,
      EdiDate: e,
      Moid: moid,
      SignData: sha(MID, e, moid, bid, KEY),
    });
  }

  it('registers a card (F100) into a 30-character BID bound to it; one card holds several BIDs, each usable', async () => {
    const a = await register();
    const b = await register();
    expect(a.ResultCode).to.equal('F100');
    expect(a.BID).to.match(/^BIKYnictest04m\d{16}$/);
    expect(a.AuthDate).to.equal('20261121');
    expect(a.BID).to.not.equal(b.BID);
    expect((await charge(a.BID!)).ResultCode).to.equal('3001');
    expect((await charge(b.BID!)).ResultCode).to.equal('3001');
  });

  it("approves a charge with 3001 and no BID in the answer; a reused TID, the registration's included, is refused", async () => {
    const { BID: bid, TID: regTid } = await register();
    const tid = newTid();
    const ok = await charge(bid!, { tid });
    expect(ok).to.include({ ResultCode: '3001', TID: tid, Amt: '000000009900' });
    expect(ok.CardNo).to.equal('411111******1111');
    expect(JSON.stringify(ok)).to.not.include(bid!);
    expect(sandbox.ledger.get(tid)).to.include({ status: 'approved', amount: 9900, method: 'CARD' });
    expect((await charge(bid!, { tid })).ResultCode).to.equal('1621');
    expect(sandbox.ledger.get(tid)!.approvalCalls).to.equal(2);
    expect((await charge(bid!, { tid: regTid })).ResultCode).to.equal('1621');
  });

  it('declines the limit-exceeded card with F104 and keeps its BID valid', async () => {
    const { BID: bid } = await register('4000000000009995');
    const first = await charge(bid!);
    expect(first.ResultCode).to.equal('F104');
    expect(sandbox.ledger.get(first.TID!)!.status).to.equal('declined');
    expect((await charge(bid!)).ResultCode, 'not F112: the BID survives a decline').to.equal('F104');
  });

  it('removes a BID (F101) for good: its charges and a second removal are refused', async () => {
    const { BID: bid } = await register();
    expect((await remove(bid!)).ResultCode).to.equal('F101');
    expect((await charge(bid!)).ResultCode).to.equal('F112');
    expect((await remove(bid!)).ResultCode).to.equal('F112');
  });

  it('refuses a BID once its card has expired (KST month), and registers no expired or lost card', async () => {
    const { BID: bid } = await register('4111111111111111', ['26', '11']);
    expect((await charge(bid!)).ResultCode).to.equal('3001');
    sandbox.clock.set(fromKst(2026, 12, 1, 0, 0, 0));
    expect((await charge(bid!)).ResultCode).to.equal('F112');
    expect((await register('4111111111111111', ['26', '11'])).ResultCode).to.equal('F113');
    expect((await register('4000000000009979')).ResultCode).to.equal('F114');
  });

  it("refuses key-in's EncData names and each SignData rule used for another call", async () => {
    const keyinNames = 'CardNo=4111111111111111&CardExpire=2912&BuyerAuthNum=&CardPwd=';
    expect((await register(undefined, undefined, keyinNames)).ResultCode).to.equal('3094');
    const { BID: bid } = await register();
    const e = edi();
    // The removal rule (no Amt) on a charge does not verify.
    expect((await charge(bid!, { sign: sha(MID, e, 'x', bid!, KEY) })).ResultCode).to.equal('1641');
  });

  it('injects faults like the other endpoints: a dropped charge is still committed', async () => {
    const { BID: bid } = await register();
    sandbox.faults.inject({ target: 'billing-charge', kind: 'drop', commit: true });
    const tid = newTid();
    const err = await charge(bid!, { tid }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
    sandbox.faults.inject({ target: 'billing-charge', kind: 'decline' });
    const declined = await charge(bid!);
    expect(declined.ResultCode).to.equal('F104');
    expect(sandbox.ledger.get(declined.TID!), 'a decline fault commits nothing').to.equal(undefined);
  });

  it("cancels a test merchant's charges at 23:30 KST the same day, as the gateway does", async () => {
    const { BID: bid } = await register();
    const ok = await charge(bid!);
    expect(sandbox.ledger.get(ok.TID!)!.status).to.equal('approved');
    sandbox.clock.set(fromKst(2026, 11, 21, 23, 29, 59));
    expect((await charge(bid!)).ResultCode).to.equal('3001');
    expect(sandbox.ledger.get(ok.TID!)!.status).to.equal('approved');
    sandbox.clock.set(fromKst(2026, 11, 21, 23, 30, 0));
    await remove(bid!);
    expect(sandbox.ledger.get(ok.TID!)!.status).to.equal('cancelled');
  });

  describe('cash receipts', () => {
    async function receipt(o: Record<string, string> = {}): Promise<Record<string, string>> {
      const moid = o.Moid ?? `bank-${++seq}`;
      const e = edi();
      const amt = o.ReceiptAmt ?? '11000';
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
        ReceiptSupplyAmt: '10000',
        ReceiptVAT: '1000',
        ReceiptServiceAmt: '0',
        ReceiptTaxFreeAmt: '0',
        ...o,
      });
    }

    it('issues (7001) and lists the receipt in the data host with orgSvcCd 04, masked, moving no money', async () => {
      const r = await receipt({ Moid: 'bank-1' });
      expect(r.ResultCode).to.equal('7001');
      expect(r.AuthCode).to.match(/^\d{9}$/);
      const listed = sandbox.dataHost.cashReceipts(MID);
      expect(listed).to.have.length(1);
      expect(listed[0]).to.include({
        tid: r.TID,
        orgSvcCd: '04',
        moid: 'bank-1',
        goodsAmt: 11000,
        stateCd: '0',
        reqFlg: '1',
      });
      expect(listed[0]!.identity).to.not.include('12345678');
      expect(sandbox.dataHost.balance(MID).remainAmt).to.equal(0);
      expect((await receipt({ Moid: 'bank-1' })).ResultCode, 'one live receipt per order').to.equal('7013');
    });

    it('refuses amounts that do not add up and an identity that does not fit the type', async () => {
      expect((await receipt({ ReceiptVAT: '999' })).ResultCode).to.equal('7011');
      expect((await receipt({ ReceiptType: '2' })).ResultCode, 'a mobile number is no business number').to.equal(
        '7012',
      );
      expect((await receipt({ ReceiptType: '2', ReceiptTypeNo: '1234567891' })).ResultCode).to.equal('7001');
      expect((await receipt({ GoodsName: '가'.repeat(21) })).ResultCode, '42 EUC-KR bytes').to.equal('3093');
      expect((await receipt({ GoodsName: '가'.repeat(20) })).ResultCode, '40 EUC-KR bytes').to.equal('7001');
      expect((await receipt({ CharSet: 'latin1' })).ResultCode, 'an answer encoding the facts do not name').to.equal(
        '3093',
      );
    });
  });
});
