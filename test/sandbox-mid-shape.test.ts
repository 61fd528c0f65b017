/**
 * The sandbox checks the MID's shape (10 letters or digits ending in a lower-case m,
 * gateway-interface "TID format") before the merchant lookup at every endpoint of the approval
 * side, as key-in and the data host do: a mis-shaped MID is a field error (W002, a 400 page
 * naming MID at the window), a well-shaped unknown one is W005.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { kstTimestamp14 } from '../src/wire/kst.js';
import { cancelSignData, statusSignData, windowSignData } from '../src/wire/signatures.js';
import { parseReply, postBytes, sendHandForm } from './helpers/gateway-form.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const FORM = 'application/x-www-form-urlencoded';
/** Not the spec's shape: upper-case M, nine characters, a trailing space, eleven characters. */
const MISSHAPED = ['nicepay00M', 'nicepay0m', 'nicepay00m ', 'nicepay000m'];
/** The spec's shape, but no such merchant. */
const UNKNOWN = 'nosuchmidm';

describe('sandbox: the MID shape at the window, approval, net cancel, cancel and status', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
  });
  after(() => sandbox.close());

  const now = (): string => kstTimestamp14(sandbox.clock.now());

  it('the window answers a 400 page naming MID for a mis-shaped MID, and opens no session', async () => {
    for (const mid of [...MISSHAPED, UNKNOWN]) {
      const ediDate = now();
      const body = encodeForm(
        {
          MID: mid,
          Amt: '1004',
          EdiDate: ediDate,
          SignData: windowSignData(ediDate, mid, '1004', KEY),
          Moid: 'm-1',
          GoodsName: 'x',
          ReturnURL: 'http://127.0.0.1:1/return',
          CharSet: 'euc-kr',
        },
        'euc-kr',
      );
      const r = await postBytes(`${sandbox.url}/window`, body, FORM);
      expect(r.status, mid).to.equal(400);
      const html = r.bytes.toString('utf8');
      expect(html, mid).to.include('<strong id="error-field">MID</strong>');
      // The shape is named for a mis-shaped MID; a well-shaped one is simply not registered.
      expect(html.includes('형식'), mid).to.equal(mid !== UNKNOWN);
    }
  });

  for (const netCancel of [false, true]) {
    it(`${netCancel ? 'net cancel' : 'approval'} answers W002 for a mis-shaped MID and W005 for an unknown one, and books nothing`, async () => {
      const auth = await sandbox.authenticate({ moid: `mid-shape-${String(netCancel)}`, amount: 1004, method: 'CARD' });
      for (const mid of MISSHAPED) {
        const p = parseReply(await sendHandForm(sandbox, auth, KEY, { mid, netCancel }));
        expect(p.ResultCode, mid).to.equal('W002');
        expect(p.ResultMsg, mid).to.include('MID');
      }
      expect(parseReply(await sendHandForm(sandbox, auth, KEY, { mid: UNKNOWN, netCancel })).ResultCode).to.equal(
        'W005',
      );
      const entry = sandbox.ledger.get(auth.fields.TxTid!)!;
      expect(entry.status).to.equal('authenticated');
      // The token is not burnt: the merchant's own approval still works.
      expect(parseReply(await sendHandForm(sandbox, auth, KEY)).ResultCode).to.equal('3001');
    });
  }

  it('cancel and status answer W002 for a mis-shaped MID and W005 for an unknown one; the payment stands', async () => {
    const auth = await sandbox.authenticate({ moid: 'mid-shape-cancel', amount: 1004, method: 'CARD' });
    expect(parseReply(await sendHandForm(sandbox, auth, KEY)).ResultCode).to.equal('3001');
    const tid = auth.fields.TxTid!;
    const cancel = (mid: string) => {
      const ediDate = now();
      return postBytes(
        `${sandbox.url}/webapi/cancel_process.jsp`,
        encodeForm(
          {
            TID: tid,
            MID: mid,
            Moid: 'mid-shape-cancel',
            CancelAmt: '1004',
            CancelMsg: '고객 요청',
            PartialCancelCode: '0',
            EdiDate: ediDate,
            SignData: cancelSignData(mid, '1004', ediDate, KEY),
          },
          'euc-kr',
        ),
        FORM,
      );
    };
    const status = (mid: string) => {
      const ediDate = now();
      return postBytes(
        `${sandbox.url}/webapi/inquery/trans_status.jsp`,
        encodeForm(
          {
            TID: tid,
            MID: mid,
            EdiDate: ediDate,
            SignData: statusSignData(tid, mid, ediDate, KEY),
          },
          'euc-kr',
        ),
        FORM,
      );
    };
    for (const mid of MISSHAPED) {
      expect(parseReply(await cancel(mid)).ResultCode, `cancel ${mid}`).to.equal('W002');
      const s = parseReply(await status(mid));
      expect(s.ResultCode, `status ${mid}`).to.equal('W002');
      expect(s).to.not.have.property('Status');
    }
    expect(parseReply(await cancel(UNKNOWN)).ResultCode).to.equal('W005');
    expect(parseReply(await status(UNKNOWN)).ResultCode).to.equal('W005');
    expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
    expect(parseReply(await status(MID))).to.include({ ResultCode: '0000', Status: '0' });
  });

  it('createSandbox refuses a merchant whose MID no endpoint would accept, naming it', () => {
    expect(() => createSandbox({ merchants: [{ mid: 'nicepay00M', merchantKey: KEY }] })).to.throw(
      /nicepay00M.*lower-case m/,
    );
    // A Hangul MID is refused too (the shape is ASCII letters and digits).
    expect(() =>
      createSandbox({
        merchants: [{ mid: `${iconv.decode(Buffer.from('b0a1', 'hex'), 'cp949').repeat(9)}m`, merchantKey: KEY }],
      }),
    ).to.throw(/mid must be/);
  });
});
