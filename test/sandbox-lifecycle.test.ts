import { expect } from 'chai';
import { request as httpRequest } from 'undici';
import { createNicepay } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { kstTimestamp14 } from '../src/wire/kst.js';
import { cancelSignData, statusSignData } from '../src/wire/signatures.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS[0]!.merchantKey;

/* The sandbox's cancel and status endpoints are at least as strict as the documents. */

async function post(
  url: string,
  path: string,
  body: Buffer,
  contentType = 'application/x-www-form-urlencoded; charset=euc-kr',
) {
  const res = await httpRequest(url + path, { method: 'POST', body, headers: { 'content-type': contentType } });
  return { status: res.statusCode, text: await res.body.text() };
}

describe('sandbox: plain cancel and status inquiry strictness', () => {
  let sandbox: Sandbox;
  let tid: string;
  let moid: string;
  before(async () => {
    sandbox = createSandbox({ merchants: [{ mid: MID, merchantKey: KEY, partialCancel: false }] });
    await sandbox.listen(0);
    // A card approval through the client, so the ledger has an approved TID.
    moid = `ORDER-S-${Date.now()}`;
    const auth = await sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
    // One EdiDate for the field and its SignData: two readings of the clock may straddle a second.
    const ediDate = kstTimestamp14(sandbox.clock.now());
    const approve = await post(
      sandbox.url,
      '/webapi/pay_process.jsp',
      encodeForm(
        {
          TID: auth.fields.TxTid!,
          AuthToken: auth.fields.AuthToken!,
          MID,
          Amt: '1004',
          EdiDate: ediDate,
          SignData: (await import('../src/wire/signatures.js')).approvalSignData(
            auth.fields.AuthToken!,
            MID,
            '1004',
            ediDate,
            KEY,
          ),
          CharSet: 'utf-8',
        },
        'euc-kr',
      ),
    );
    expect(JSON.parse(approve.text).ResultCode).to.equal('3001');
    tid = auth.fields.TxTid!;
  });
  after(async () => {
    await sandbox.close();
  });

  const cancelForm = (over: Record<string, string> = {}): Buffer => {
    const edi = over.EdiDate ?? kstTimestamp14(sandbox.clock.now());
    const amt = over.CancelAmt ?? '1004';
    return encodeForm(
      {
        TID: tid,
        MID,
        Moid: moid,
        CancelAmt: amt,
        CancelMsg: '취소',
        PartialCancelCode: '0',
        EdiDate: edi,
        SignData: cancelSignData(MID, amt, edi, KEY),
        CharSet: 'utf-8',
        ...over,
      },
      'euc-kr',
    );
  };
  const code = async (body: Buffer, path = '/webapi/cancel_process.jsp'): Promise<string> =>
    JSON.parse((await post(sandbox.url, path, body)).text).ResultCode;

  it('refuses upper-case SignData, a UTC EdiDate, a missing Moid and a too-long CancelMsg', async () => {
    const edi = kstTimestamp14(sandbox.clock.now());
    expect(
      await code(cancelForm({ EdiDate: edi, SignData: cancelSignData(MID, '1004', edi, KEY).toUpperCase() })),
    ).to.equal('A211');
    const utc = sandbox.clock.now().toISOString().replace(/\D/g, '').slice(0, 14);
    expect(await code(cancelForm({ EdiDate: utc }))).to.equal('W004');
    expect(await code(cancelForm({ Moid: '' }))).to.equal('W001');
    expect(await code(cancelForm({ CancelMsg: '가'.repeat(51) }))).to.equal('W002');
    expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
  });

  it('refuses a partial cancel without a partial-cancel contract (2028) and a refund account on a card (W002)', async () => {
    expect(await code(cancelForm({ CancelAmt: '500', PartialCancelCode: '1' }))).to.equal('2028');
    expect(
      await code(cancelForm({ RefundAcctNo: '1234567890', RefundBankCd: '004', RefundAcctNm: '홍길동' })),
    ).to.equal('W002');
  });

  it('refuses a cancel form that cannot be read one way (a malformed escape, a field sent twice) with W009, cancelling nothing', async () => {
    const form = cancelForm().toString('latin1');
    expect(await code(Buffer.from(form.replace('CancelMsg=', 'CancelMsg=%G1'), 'latin1'))).to.equal('W009');
    expect(await code(Buffer.from(`${form}&CancelAmt=1`, 'latin1'))).to.equal('W009');
    expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
  });

  it('status: refuses a wrong SignData and a UTC EdiDate, answers without amount or signature', async () => {
    const edi = kstTimestamp14(sandbox.clock.now());
    const form = (over: Record<string, string> = {}) =>
      encodeForm(
        { TID: tid, MID, EdiDate: edi, SignData: statusSignData(tid, MID, edi, KEY), CharSet: 'utf-8', ...over },
        'euc-kr',
      );
    expect(await code(form({ SignData: '0'.repeat(64) }), '/webapi/inquery/trans_status.jsp')).to.equal('A211');
    const utc = sandbox.clock.now().toISOString().replace(/\D/g, '').slice(0, 14);
    expect(
      await code(
        form({ EdiDate: utc, SignData: statusSignData(tid, MID, utc, KEY) }),
        '/webapi/inquery/trans_status.jsp',
      ),
    ).to.equal('W004');
    const ok = JSON.parse((await post(sandbox.url, '/webapi/inquery/trans_status.jsp', form())).text);
    expect(ok).to.include({ ResultCode: '0000', Status: '0', TID: tid });
    expect(ok).to.not.have.any.keys('Amt', 'Signature', 'CancelAmt');
  });

  it('opens its payment window with the fields paymentWindow() signs', async () => {
    const np = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: sandbox.url, clock: () => sandbox.clock.now() });
    const fields = np.paymentWindow({
      moid: 'ORDER-W',
      amount: 2500,
      goodsName: '한글 상품',
      returnUrl: 'https://shop.example/pay/return',
      buyer: { name: '홍길동' },
    });
    const res = await post(sandbox.url, '/window', encodeForm({ ...fields }, 'euc-kr'));
    expect(res.status).to.equal(200);
    expect(res.text).to.include('id="approve"');
    const forged = await post(sandbox.url, '/window', encodeForm({ ...fields, Amt: '1' }, 'euc-kr'));
    expect(forged.status).to.equal(400);
    await np.close();
  });

  it('refuses notice settings the merchant admin would not take', () => {
    expect(() => createSandbox({ merchants: [{ mid: MID, merchantKey: KEY, notificationUrl: '/relative' }] })).to.throw(
      /notificationUrl/,
    );
    expect(() =>
      createSandbox({
        merchants: [{ mid: MID, merchantKey: KEY, notificationRetry: { intervalMinutes: 0, count: 3 } }],
      }),
    ).to.throw(/1 to 10/);
    expect(() =>
      createSandbox({
        merchants: [{ mid: MID, merchantKey: KEY, notificationRetry: { intervalMinutes: 5, count: 11 } }],
      }),
    ).to.throw(/1 to 10/);
  });

  it('deposit() refuses what is not an unpaid virtual account', async () => {
    let message = '';
    try {
      await sandbox.deposit(tid);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.include('is not a virtual account');
  });
});
