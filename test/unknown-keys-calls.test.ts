/**
 * Every method that takes an input object refuses a key its type does not declare, nested
 * objects (card, buyer, refundAccount) included: 400 NICEPAY_FIELD_INVALID naming the key's
 * path and the method, with the nearest known name as a hint, and nothing sent to either host.
 * Over loopback against the sandbox, on its frozen virtual clock (Monday 2026-11-23 09:00 KST).
 */
import { expect } from 'chai';
import { NicepayRequestError } from '../src/index.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_MID, DATA_USR_ID, type DataHostRig, seller, startDataHost } from './helpers/data-host.js';
import { countGatewayCalls, expectUnknownInput, refusal, type UnknownKeyRefusal } from './helpers/unknown-key.js';

const CARD = { number: '4111111111111111', expiry: '2912' };
const BID = 'BIKYnictest04m2611230900000000';

/** Lets a test pass what a JavaScript caller could: any object where an input is typed. */
// biome-ignore lint/suspicious/noExplicitAny: the point is an input the type would refuse
const loose = (o: object): any => o;

describe('every method refuses an unknown key of its input, nothing sent', () => {
  let rig: DataHostRig;
  let calls: ReturnType<typeof countGatewayCalls>;
  before(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { settle: false });
    await rig.nicepay.payout.registerSubMerchant(seller('s1'));
  });
  after(() => rig.close());
  beforeEach(() => {
    calls = countGatewayCalls();
  });
  afterEach(() => calls.stop());

  /** The sandbox's books, to compare before and after: transactions, payouts, sub-merchants. */
  const books = () =>
    JSON.stringify({
      ledger: rig.sandbox.ledger.entries().length,
      payouts: rig.sandbox.dataHost.payouts(DATA_MID),
      subs: rig.sandbox.dataHost.subMerchants(DATA_MID),
    });
  /** Runs each call, expects each refusal, and that nothing reached the sandbox. */
  const refuses = async (cases: [() => unknown, UnknownKeyRefusal][]): Promise<void> => {
    const before = books();
    for (const [call, want] of cases) expectUnknownInput(await refusal(call), want);
    expect(calls.count(), 'gateway calls').to.equal(0);
    expect(books()).to.equal(before);
    expect(await rig.nicepay.unsettled(), 'ledger records').to.deep.equal([]);
  };

  it('key-in: keyin() and a keyinCharger() function (which takes no hook), their card and buyer', async () => {
    const order = { moid: 'k-1', amount: 1000, goodsName: '주문', card: CARD };
    const charge = rig.nicepay.keyinCharger({ name: 'unknown-keys-keyin', onApproved: () => undefined });
    await refuses([
      [
        () => rig.nicepay.keyin(loose({ ...order, amout: 1000 })),
        { field: 'amout', caller: 'keyin()', hint: 'amount' },
      ],
      [
        () => rig.nicepay.keyin(loose({ ...order, card: { ...CARD, buyerAuthNo: '800101' } })),
        { field: 'card.buyerAuthNo', caller: 'keyin()', hint: 'card.buyerAuthNum' },
      ],
      [
        () => rig.nicepay.keyin(loose({ ...order, buyer: { mail: 'a@b.kr' } })),
        { field: 'buyer.mail', caller: 'keyin()', hint: 'buyer.email' },
      ],
      [
        () => charge(loose({ ...order, mallReserve: 'x' })),
        { field: 'mallReserve', caller: 'keyinCharger()', hint: 'mallReserved' },
      ],
      // A charger's call has no hook of its own: onApproved is not a name to suggest.
      [() => charge(loose({ ...order, onApprove: () => undefined })), { field: 'onApprove', caller: 'keyinCharger()' }],
    ]);
  });

  it('billing: register() and its card, charge(), a charger() function, remove()', async () => {
    const charge = { bid: BID, moid: 'b-1', amount: 9900, goodsName: '구독' };
    const charger = rig.nicepay.billing.charger({ name: 'unknown-keys-billing', onApproved: () => undefined });
    await refuses([
      [
        () =>
          rig.nicepay.billing.register(
            loose({ moid: 'r-1', card: { number: CARD.number, expYaer: '2029', expMonth: '12' } }),
          ),
        { field: 'card.expYaer', caller: 'billing.register()', hint: 'card.expYear' },
      ],
      [
        () => rig.nicepay.billing.charge(loose({ ...charge, onApprove: () => undefined })),
        { field: 'onApprove', caller: 'billing.charge()', hint: 'onApproved' },
      ],
      [
        () => rig.nicepay.billing.charge(loose({ ...charge, buyer: { tell: '0101234' } })),
        { field: 'buyer.tell', caller: 'billing.charge()', hint: 'buyer.tel' },
      ],
      [
        () => charger(loose({ ...charge, goodName: 'x' })),
        { field: 'goodName', caller: 'billing.charger()', hint: 'goodsName' },
      ],
      [
        () => rig.nicepay.billing.remove(loose({ bid: BID, moid: 'rm-1', charSet: 'utf-8' })),
        { field: 'charSet', caller: 'billing.remove()', hint: 'charset' },
      ],
    ]);
  });

  it('cashReceipt.issue(): the receipt and its buyer; a key far from every name gets no hint', async () => {
    const receipt = {
      moid: 'c-1',
      amount: 11000,
      goodsName: '주문',
      type: 'income-deduction',
      identity: '01098765432',
      supply: 10000,
      vat: 1000,
    };
    await refuses([
      [
        () => rig.nicepay.cashReceipt.issue(loose({ ...receipt, taxfree: 0 })),
        { field: 'taxfree', caller: 'cashReceipt.issue()', hint: 'taxFree' },
      ],
      [
        () => rig.nicepay.cashReceipt.issue(loose({ ...receipt, buyer: { phoneNumber: '010' } })),
        { field: 'buyer.phoneNumber', caller: 'cashReceipt.issue()' },
      ],
    ]);
  });

  it('cancel(): the cancel and its refundAccount', async () => {
    const cancel = { tid: `${DATA_MID}01012611230900000001`, moid: 'o-1', amount: 1000, reason: '환불' };
    await refuses([
      [() => rig.nicepay.cancel(loose({ ...cancel, remaining: 1000 })), { field: 'remaining', caller: 'cancel()' }],
      [
        () =>
          rig.nicepay.cancel(
            loose({ ...cancel, refundAccount: { number: '1234', bankcode: '004', holder: '홍길동' } }),
          ),
        { field: 'refundAccount.bankcode', caller: 'cancel()', hint: 'refundAccount.bankCode' },
      ],
    ]);
  });

  it('payout: sub-merchant registration and update, request, cancel and results', async () => {
    await refuses([
      [
        () => rig.nicepay.payout.registerSubMerchant(loose({ ...seller('s2'), acntNo: '11-s2' })),
        { field: 'acntNo', caller: 'payout.registerSubMerchant()', hint: 'accntNo' },
      ],
      [
        () => rig.nicepay.payout.updateSubMerchant(loose({ ...seller('s1'), memmo: 'x' })),
        { field: 'memmo', caller: 'payout.updateSubMerchant()', hint: 'memo' },
      ],
      [
        () => rig.nicepay.payout.request(loose({ subId: 's1', amount: 700, settlementDt: '20261123' })),
        { field: 'settlementDt', caller: 'payout.request()', hint: 'settlmntDt' },
      ],
      [
        () => rig.nicepay.payout.cancel(loose({ subId: 's1', settlmntDt: '20261123', seq: '1', sq: '1' })),
        { field: 'sq', caller: 'payout.cancel()', hint: 'seq' },
      ],
      [
        () => rig.nicepay.payout.results(loose({ settlmntDt: '20261123', subid: 's1' })),
        { field: 'subid', caller: 'payout.results()', hint: 'subId' },
      ],
    ]);
  });

  it('recon.cashReceipts(): the query', async () => {
    const query = { usrId: DATA_USR_ID, dt: '20261123', orgSvcCd: '04', idCl: '2', searchId: DATA_MID };
    await refuses([
      [
        () => rig.nicepay.recon.cashReceipts(loose(query)),
        { field: 'searchId', caller: 'recon.cashReceipts()', hint: 'searchID' },
      ],
    ]);
  });

  it('paymentWindow(): the order and its buyer, thrown as it is called', () => {
    const order = { moid: 'w-1', amount: 1004, goodsName: '주문', returnUrl: 'https://shop.example/pay/return' };
    const thrown = (make: () => unknown): unknown => {
      try {
        make();
      } catch (err) {
        return err;
      }
      throw new Error('expected paymentWindow() to throw');
    };
    expectUnknownInput(
      thrown(() => rig.nicepay.paymentWindow(loose({ ...order, vbankExpDate: '20261130' }))),
      {
        field: 'vbankExpDate',
        caller: 'paymentWindow()',
        hint: 'vbankExpiry',
      },
    );
    expectUnknownInput(
      thrown(() => rig.nicepay.paymentWindow(loose({ ...order, buyer: { nme: '홍길동' } }))),
      {
        field: 'buyer.nme',
        caller: 'paymentWindow()',
        hint: 'buyer.name',
      },
    );
    expect(thrown(() => rig.nicepay.paymentWindow(loose({ ...order, buyer: '홍길동' })))).to.be.instanceOf(
      NicepayRequestError,
    );
    // The same order, spelt right, is a window.
    expect(rig.nicepay.paymentWindow({ ...order, vbankExpiry: '20261130' })).to.include({ Moid: 'w-1', Amt: '1004' });
  });

  it('the count of gateway calls sees a call that is sent, so its zero above means nothing was', async () => {
    await rig.nicepay.payout.balance();
    expect(calls.count()).to.equal(1);
  });
});
