/**
 * Bytes that are not EUC-KR reach the sandbox as they reach the gateway, which reads every
 * request as EUC-KR: the text is kept garbled, the request is not refused, and the sandbox's log
 * (a `SandboxWarning` process warning) names the fields, never their values. A form that cannot
 * be read one way (a malformed escape, a field sent twice) is still refused.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { approvalSignData, cancelSignData } from '../src/wire/signatures.js';
import { billingEncPlaintext } from '../src/wire/billing-fields.js';
import { encryptEncData } from '../src/wire/enc-data.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp12, kstTimestamp14 } from '../src/wire/kst.js';
import { startFrozenSandbox } from './helpers/frozen-sandbox.js';
import { parseReply, postBytes } from './helpers/gateway-form.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const BILLING_MID = 'nictest04m';
const BILLING_KEY = TEST_MERCHANTS.find((m) => m.mid === BILLING_MID)!.merchantKey;
const START = fromKst(2026, 3, 2, 10, 0);
const sha = (...parts: string[]): string => createHash('sha256').update(parts.join(''), 'utf8').digest('hex');

/** Collects the sandbox's log lines (code and message) while `fn` runs. */
async function sandboxLog(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const listener = (w: Error & { code?: string }): void => {
    if (w.name === 'SandboxWarning') lines.push(`${w.code} ${w.message}`);
  };
  process.on('warning', listener);
  try {
    await fn();
  } finally {
    process.off('warning', listener);
  }
  return lines;
}

describe('sandbox: text in another charset than EUC-KR is read garbled, not refused', () => {
  let sandbox: Sandbox;
  let seq = 0;
  beforeEach(async () => {
    sandbox = await startFrozenSandbox(START);
  });
  afterEach(() => sandbox.close());
  const edi = (): string => kstTimestamp14(sandbox.clock.now());

  /** A window payment approved over the wire; its TID. */
  async function approved(): Promise<string> {
    const auth = await sandbox.authenticate({ moid: `garbled-${++seq}`, amount: 1004, method: 'CARD' });
    const e = edi();
    const token = auth.fields.AuthToken!;
    const answer = parseReply(
      await postBytes(
        `${sandbox.url}/webapi/pay_process.jsp`,
        encodeForm(
          {
            TID: auth.fields.TxTid!,
            AuthToken: token,
            MID,
            Amt: '1004',
            EdiDate: e,
            SignData: approvalSignData(token, MID, '1004', e, KEY),
          },
          'euc-kr',
        ),
        'application/x-www-form-urlencoded',
      ),
    );
    expect(answer.ResultCode).to.equal('3001');
    return auth.fields.TxTid!;
  }

  /** A full cancel of `tid` whose form is encoded in `charset`, posted with `contentType`. */
  function cancelBody(tid: string, charset: 'euc-kr' | 'utf-8', reason = '고객 요청 취소'): Buffer {
    const e = edi();
    return encodeForm(
      {
        TID: tid,
        MID,
        Moid: `c-${tid.slice(-4)}`,
        CancelAmt: '1004',
        CancelMsg: reason,
        PartialCancelCode: '0',
        EdiDate: e,
        SignData: cancelSignData(MID, '1004', e, KEY),
      },
      charset,
    );
  }

  it('cancels with a UTF-8 CancelMsg declared UTF-8: 2001, the reason kept garbled, a log line naming CancelMsg', async () => {
    const tid = await approved();
    let answer: Record<string, string> = {};
    const log = await sandboxLog(async () => {
      answer = parseReply(
        await postBytes(
          `${sandbox.url}/webapi/cancel_process.jsp`,
          cancelBody(tid, 'utf-8'),
          'application/x-www-form-urlencoded; charset=utf-8',
        ),
      );
    });
    expect(answer.ResultCode).to.equal('2001');
    const entry = sandbox.ledger.get(tid)!;
    expect(entry.status).to.equal('cancelled');
    const reason = entry.cancels![0]!.reason;
    expect(reason).to.not.equal('고객 요청 취소');
    expect(reason).to.not.match(/^[가-힣 ]+$/);
    expect(log).to.have.length(1);
    expect(log[0]).to.match(/^SANDBOX_NOT_EUC_KR \/webapi\/cancel_process\.jsp: CancelMsg not EUC-KR/);
    expect(log[0]).to.not.include('고객');
  });

  it('cancels with UTF-8 bytes under no charset label: invalid sequences read as U+FFFD, a log line', async () => {
    const tid = await approved();
    let answer: Record<string, string> = {};
    // '취' in UTF-8 is EC B7 A8: A8 cannot follow B7 in CP949, so this reason has an invalid sequence.
    const log = await sandboxLog(async () => {
      answer = parseReply(
        await postBytes(
          `${sandbox.url}/webapi/cancel_process.jsp`,
          cancelBody(tid, 'utf-8', '취'),
          'application/x-www-form-urlencoded',
        ),
      );
    });
    expect(answer.ResultCode).to.equal('2001');
    expect(sandbox.ledger.get(tid)!.cancels![0]!.reason).to.include('\uFFFD');
    expect(log).to.have.length(1);
    expect(log[0]).to.include('CancelMsg');
  });

  it('cancels with an EUC-KR CancelMsg without a log line, and keeps the reason as sent', async () => {
    const tid = await approved();
    let answer: Record<string, string> = {};
    const log = await sandboxLog(async () => {
      answer = parseReply(
        await postBytes(
          `${sandbox.url}/webapi/cancel_process.jsp`,
          cancelBody(tid, 'euc-kr'),
          'application/x-www-form-urlencoded; charset=euc-kr',
        ),
      );
    });
    expect(answer.ResultCode).to.equal('2001');
    expect(sandbox.ledger.get(tid)!.cancels![0]!.reason).to.equal('고객 요청 취소');
    expect(log).to.deep.equal([]);
  });

  it('still refuses a net cancel whose body is not EUC-KR (W009): the approval side reads strictly', async () => {
    const tid = await approved();
    const e = edi();
    const body = Buffer.concat([
      encodeForm({ TID: tid, MID, Amt: '1004', EdiDate: e, NetCancel: '1' }, 'euc-kr'),
      Buffer.from('&CancelMsg=%EC%B7%A8'),
    ]);
    expect(
      parseReply(await postBytes(`${sandbox.url}/webapi/cancel_process.jsp`, body, 'application/x-www-form-urlencoded'))
        .ResultCode,
    ).to.equal('W009');
    expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
  });

  it('charges a billing key whose GoodsName came as UTF-8: approved, the name garbled in the ledger, a log line', async () => {
    const e = edi();
    const reg = parseReply(
      await postBytes(
        `${sandbox.url}/webapi/billing/billing_regist.jsp`,
        encodeForm(
          {
            MID: BILLING_MID,
            EdiDate: e,
            Moid: 'reg-utf8',
            SignData: sha(BILLING_MID, e, 'reg-utf8', BILLING_KEY),
            EncData: encryptEncData(
              billingEncPlaintext({ number: '4111111111111111', expYear: '29', expMonth: '12' }),
              BILLING_KEY,
            ),
          },
          'euc-kr',
        ),
        'application/x-www-form-urlencoded',
      ),
    );
    const bid = reg.BID!;
    // Not the registration's own TID, which has the same stem and a random 4-digit suffix.
    const tid = `${BILLING_MID}0116${kstTimestamp12(sandbox.clock.now())}${reg.TID?.endsWith('0001') ? '0002' : '0001'}`;
    let answer: Record<string, string> = {};
    const log = await sandboxLog(async () => {
      answer = parseReply(
        await postBytes(
          `${sandbox.url}/webapi/billing/billing_approve.jsp`,
          encodeForm(
            {
              BID: bid,
              MID: BILLING_MID,
              TID: tid,
              EdiDate: e,
              Moid: 'sub-utf8',
              Amt: '9900',
              GoodsName: '취', // EC B7 A8: the last byte is no CP949 character
              SignData: sha(BILLING_MID, e, 'sub-utf8', '9900', bid, BILLING_KEY),
              CardInterest: '0',
              CardQuota: '00',
            },
            'utf-8',
          ),
          'application/x-www-form-urlencoded',
        ),
      );
    });
    expect(answer.ResultCode).to.equal('3001');
    expect(sandbox.ledger.get(tid)!.goodsName).to.include('\uFFFD');
    expect(log).to.have.length(1);
    expect(log[0]).to.match(/billing_approve\.jsp: GoodsName not EUC-KR/);
  });
});
