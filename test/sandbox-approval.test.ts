import { expect } from 'chai';
import iconv from 'iconv-lite';
import { request } from 'undici';
import { createSandbox, type AuthReturn, type Sandbox } from '../src/sandbox/index.js';
import type { PayMethod } from '../src/types/payment.js';
import { padAmount } from '../src/wire/amount.js';
import { type Charset, decodeBytes } from '../src/wire/charset.js';
import { decodeForm, encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp14 } from '../src/wire/kst.js';
import { parseKv } from '../src/wire/kv.js';
import {
  approvalResponseSignature, approvalSignData, authReturnSignature, netCancelResponseSignature, windowSignData,
} from '../src/wire/signatures.js';

const MID = 'nicepay00m';
const KEY = 'EYzu8jGGMfqaDEp76gSckuvnaHHu+bC4opsSN6lHv3b2lurNYkVXrZ7Z1AoqQnXI3eLuaUFyoRNC6FkrzVjceg==';
/** 2025-01-31 23:30:00 KST: the sandbox clock is frozen here, so dates roll over month ends. */
const NOW = fromKst(2025, 1, 31, 23, 30, 0);

interface Reply { status: number; contentType: string; bytes: Buffer }
interface GatewayCall {
  amt?: string; signData?: string; authToken?: string; tid?: string; charset?: Charset; ediType?: 'JSON' | 'KV';
  mallReserved?: string; netCancel?: boolean; headersTimeout?: number;
}

let sandbox: Sandbox;
let moidSeq = 0;
const nextMoid = (): string => `order-${++moidSeq}`;

async function post(url: string, body: Buffer, contentType: string, headersTimeout?: number): Promise<Reply> {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': contentType }, ...(headersTimeout ? { headersTimeout } : {}) });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, contentType: String(res.headers['content-type']), bytes };
}

/** POSTs an approval (or with netCancel, a net cancel) for an auth return, EUC-KR like the spec says. */
function callGateway(auth: AuthReturn, o: GatewayCall = {}): Promise<Reply> {
  const f = auth.fields;
  const amt = o.amt ?? f.Amt!;
  const token = o.authToken ?? f.AuthToken!;
  const ediDate = kstTimestamp14(new Date());
  const fields = {
    TID: o.tid ?? f.TxTid!, AuthToken: token, MID, Amt: amt, EdiDate: ediDate,
    SignData: o.signData ?? approvalSignData(token, MID, amt, ediDate, KEY),
    CharSet: o.charset, EdiType: o.ediType, MallReserved: o.mallReserved, NetCancel: o.netCancel ? '1' : undefined,
  };
  const url = o.netCancel ? f.NetCancelURL! : f.NextAppURL!;
  return post(url, encodeForm(fields, 'euc-kr'), 'application/x-www-form-urlencoded; charset=euc-kr', o.headersTimeout);
}

function parse(r: Reply, charset: Charset = 'euc-kr', ediType: 'JSON' | 'KV' = 'JSON'): Record<string, string> {
  return ediType === 'KV' ? { ...parseKv(r.bytes, charset) } : (JSON.parse(decodeBytes(r.bytes, charset)) as Record<string, string>);
}

const auth = (method: PayMethod = 'CARD', extra: Partial<Parameters<Sandbox['authenticate']>[0]> = {}): Promise<AuthReturn> =>
  sandbox.authenticate({ moid: nextMoid(), amount: 1004, method, ...extra });

const statusOf = (a: AuthReturn): string | undefined => sandbox.ledger.get(a.fields.TxTid!)?.status;

describe('sandbox interface A', () => {
  before(async () => {
    sandbox = createSandbox({ clock: () => NOW });
    sandbox.clock.freeze();
    await sandbox.listen(0);
  });
  after(() => sandbox.close());
  afterEach(() => {
    expect(sandbox.faults.pending(), 'every injected fault was used').to.have.length(0);
    sandbox.faults.clear();
  });

  describe('authenticate()', () => {
    it('returns a signed auth return, books an authenticated entry and encodes the body in EUC-KR', async () => {
      const a = await auth('CARD', { buyerName: '김똠햏', reqReserved: '예약=1' });
      const f = a.fields;
      expect(f.AuthResultCode).to.equal('0000');
      expect(f.AuthResultMsg).to.equal('인증 성공');
      expect(f.AuthToken).to.have.length(40);
      expect(f.Amt).to.equal('1004');
      expect(f.TxTid).to.match(/^nicepay00m0101250131233000[A-Z0-9]{4}$/);
      expect(f.NextAppURL).to.equal(`${sandbox.url}/webapi/pay_process.jsp`);
      expect(f.NetCancelURL).to.equal(`${sandbox.url}/webapi/cancel_process.jsp`);
      expect(f.Signature).to.equal(authReturnSignature(f.AuthToken!, MID, '1004', KEY));
      expect(a.contentType).to.equal('application/x-www-form-urlencoded; charset=euc-kr');
      expect({ ...decodeForm(a.body, 'euc-kr') }).to.deep.equal(f);
      expect(a.body.toString('latin1')).to.include('ReqReserved=%BF%B9%BE%E0%3D1');
      const e = sandbox.ledger.get(f.TxTid!)!;
      expect(e).to.include({ status: 'authenticated', source: 'window', amount: 1004, method: 'CARD', buyerName: '김똠햏', approvalCalls: 0 });
    });

    it('uses the TID method codes 02, 03, 05 and a fresh token each time', async () => {
      const codes: Record<string, string> = { BANK: '02', VBANK: '03', CELLPHONE: '05' };
      const tokens = new Set<string>();
      for (const [m, code] of Object.entries(codes)) {
        const a = await auth(m as PayMethod);
        expect(a.fields.TxTid!.slice(10, 14)).to.equal(`${code}01`);
        tokens.add(a.fields.AuthToken!);
      }
      expect(tokens.size).to.equal(3);
    });

    it('answers a cancelled window with a non-0000 code and no token, booking nothing', async () => {
      const before = sandbox.ledger.entries().length;
      const a = await auth('CARD', { cancel: true, charset: 'utf-8' });
      expect(a.fields.AuthResultCode).to.not.equal('0000');
      expect(a.fields.AuthResultMsg).to.equal('사용자가 결제를 취소하였습니다');
      expect(a.fields).to.not.have.property('AuthToken');
      expect(a.fields).to.not.have.property('TxTid');
      expect(a.contentType).to.equal('application/x-www-form-urlencoded; charset=utf-8');
      expect(decodeForm(a.body, 'utf-8').AuthResultMsg).to.equal('사용자가 결제를 취소하였습니다');
      expect(sandbox.ledger.entries().length).to.equal(before);
    });

    it('refuses a cash receipt for a card and an unknown MID', async () => {
      let err: unknown;
      try { await auth('CARD', { cashReceipt: { type: 'income-deduction', identity: '01012345678' } }); } catch (e) { err = e; }
      expect(String(err)).to.match(/cashReceipt/);
      err = undefined;
      try { await auth('CARD', { mid: 'nosuchmid0' }); } catch (e) { err = e; }
      expect(String(err)).to.match(/unknown MID/);
    });
  });
});

export { MID, KEY, NOW, auth, callGateway, parse, post, statusOf, sandbox };
