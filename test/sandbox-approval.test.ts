import { expect } from 'chai';
import iconv from 'iconv-lite';
import { request } from 'undici';
import { withHeldTimers } from './helpers/fake-deadline.js';
import { createSandbox, type AuthReturn, type Sandbox } from '../src/sandbox/index.js';
import type { PayMethod } from '../src/types/payment.js';
import { padAmount } from '../src/wire/amount.js';
import { type Charset, decodeBytes } from '../src/wire/charset.js';
import { decodeForm, encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp14 } from '../src/wire/kst.js';
import { parseKv } from '../src/wire/kv.js';
import {
  approvalResponseSignature,
  approvalSignData,
  authReturnSignature,
  cancelResponseSignature,
  windowSignData,
} from '../src/wire/signatures.js';

const MID = 'nicepay00m';
const KEY = 'EYzu8jGGMfqaDEp76gSckuvnaHHu+bC4opsSN6lHv3b2lurNYkVXrZ7Z1AoqQnXI3eLuaUFyoRNC6FkrzVjceg==';
/** 2025-01-31 23:30:00 KST: the sandbox clock is frozen here, so dates roll over month ends. */
const NOW = fromKst(2025, 1, 31, 23, 30, 0);

interface Reply {
  status: number;
  contentType: string;
  bytes: Buffer;
}
interface GatewayCall {
  amt?: string;
  signData?: string;
  authToken?: string;
  tid?: string;
  charset?: Charset;
  ediType?: 'JSON' | 'KV';
  mallReserved?: string;
  netCancel?: boolean;
  signal?: AbortSignal;
}

let sandbox: Sandbox;
let moidSeq = 0;
const nextMoid = (): string => `order-${++moidSeq}`;

async function post(url: string, body: Buffer, contentType: string, signal?: AbortSignal): Promise<Reply> {
  const res = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
    ...(signal ? { signal } : {}),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, contentType: String(res.headers['content-type']), bytes };
}

/** POSTs an approval (or with netCancel, a net cancel) for an auth return, EUC-KR like the spec says. */
function callGateway(auth: AuthReturn, o: GatewayCall = {}): Promise<Reply> {
  const f = auth.fields;
  const amt = o.amt ?? f.Amt!;
  const token = o.authToken ?? f.AuthToken!;
  const ediDate = kstTimestamp14(sandbox.clock.now());
  const fields = {
    TID: o.tid ?? f.TxTid!,
    AuthToken: token,
    MID,
    Amt: amt,
    EdiDate: ediDate,
    SignData: o.signData ?? approvalSignData(token, MID, amt, ediDate, KEY),
    CharSet: o.charset,
    EdiType: o.ediType,
    MallReserved: o.mallReserved,
    NetCancel: o.netCancel ? '1' : undefined,
  };
  const url = o.netCancel ? f.NetCancelURL! : f.NextAppURL!;
  return post(url, encodeForm(fields, 'euc-kr'), 'application/x-www-form-urlencoded; charset=euc-kr', o.signal);
}

function parse(r: Reply, charset: Charset = 'euc-kr', ediType: 'JSON' | 'KV' = 'JSON'): Record<string, string> {
  return ediType === 'KV'
    ? { ...parseKv(r.bytes, charset) }
    : (JSON.parse(decodeBytes(r.bytes, charset)) as Record<string, string>);
}

const auth = (
  method: PayMethod = 'CARD',
  extra: Partial<Parameters<Sandbox['authenticate']>[0]> = {},
): Promise<AuthReturn> => sandbox.authenticate({ moid: nextMoid(), amount: 1004, method, ...extra });

const statusOf = (a: AuthReturn): string | undefined => sandbox.ledger.get(a.fields.TxTid!)?.status;

/** Resolves when the sandbox takes its next queued `delay` fault: the call has reached it and stalls. */
function stalled(): Promise<void> {
  const faults = sandbox.faults;
  const take = faults.take;
  return new Promise((resolve) => {
    faults.take = (target) => {
      const fault = take.call(faults, target);
      if (fault?.kind === 'delay') {
        faults.take = take;
        setImmediate(resolve); // after the handler returns and the stall has begun
      }
      return fault;
    };
  });
}

/** Calls the gateway like a client that gives up once the call stalls; undefined when it gave up. */
async function callAndGiveUp(a: AuthReturn, o: GatewayCall = {}): Promise<Reply | undefined> {
  const controller = new AbortController();
  void stalled().then(() => controller.abort());
  try {
    return await callGateway(a, { ...o, signal: controller.signal });
  } catch {
    return undefined;
  }
}

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
      expect(a.contentType, 'a browser names no charset').to.equal('application/x-www-form-urlencoded');
      expect({ ...decodeForm(a.body, 'euc-kr') }).to.deep.equal(f);
      expect(a.body.toString('latin1')).to.include('ReqReserved=%BF%B9%BE%E0%3D1');
      const e = sandbox.ledger.get(f.TxTid!)!;
      expect(e).to.include({
        status: 'authenticated',
        source: 'window',
        amount: 1004,
        method: 'CARD',
        buyerName: '김똠햏',
        approvalCalls: 0,
      });
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
      expect(a.contentType, 'a browser names no charset').to.equal('application/x-www-form-urlencoded');
      expect(decodeForm(a.body, 'utf-8').AuthResultMsg).to.equal('사용자가 결제를 취소하였습니다');
      expect(sandbox.ledger.entries().length).to.equal(before);
    });

    it('refuses a cash receipt for a card and an unknown MID', async () => {
      let err: unknown;
      try {
        await auth('CARD', { cashReceipt: { type: 'income-deduction', identity: '01012345678' } });
      } catch (e) {
        err = e;
      }
      expect(String(err)).to.match(/cashReceipt/);
      err = undefined;
      try {
        await auth('CARD', { mid: 'nosuchmid0' });
      } catch (e) {
        err = e;
      }
      expect(String(err)).to.match(/unknown MID/);
    });
  });

  describe('POST /webapi/pay_process.jsp', () => {
    const cases: Array<[PayMethod, string, string]> = [
      ['CARD', '3001', 'approved'],
      ['BANK', '4000', 'approved'],
      ['VBANK', '4100', 'awaiting-deposit'],
      ['CELLPHONE', 'A000', 'approved'],
    ];
    for (const [method, code, status] of cases) {
      it(`approves ${method} with ResultCode ${code}, a 12-digit Amt and a valid Signature`, async () => {
        const a = await auth(method, { goodsName: '테스트 상품', buyerName: '홍길동', mallReserved: 'window-spare' });
        const r = await callGateway(a, { mallReserved: 'approval-spare' });
        expect(r.status).to.equal(200);
        expect(r.contentType).to.equal('text/html;charset=euc-kr');
        const p = parse(r);
        expect(p.ResultCode).to.equal(code);
        expect(p.Amt).to.equal('000000001004');
        expect(p.TID).to.equal(a.fields.TxTid);
        expect(p.Signature).to.equal(approvalResponseSignature(p.TID!, MID, '000000001004', KEY));
        expect(p).to.include({
          MID,
          Moid: a.fields.Moid,
          PayMethod: method,
          GoodsName: '테스트 상품',
          BuyerName: '홍길동',
          AuthDate: '250131233000',
          MallReserved: 'approval-spare',
        });
        expect(p.SandboxTrace, 'an unlisted field').to.be.a('string').and.not.equal('');
        for (const k of ['ResultMsg', 'BuyerEmail', 'BuyerTel', 'AuthCode']) expect(p).to.have.property(k);
        if (method === 'CARD') {
          for (const k of [
            'CardCode',
            'CardName',
            'CardNo',
            'AcquCardCode',
            'CardCl',
            'CcPartCl',
            'CardType',
            'CouponAmt',
            'PointAppAmt',
            'MsgSource',
            'ApproveCardQuota',
          ])
            expect(p).to.have.property(k);
          expect(p.CardQuota).to.equal('00');
          expect(p.AuthCode).to.match(/^\d{8}$/);
        }
        if (method === 'BANK') expect(p).to.include({ BankCode: '004', RcptType: '0', RcptTID: '' });
        if (method === 'VBANK') {
          expect(p).to.include({ VbankExpDate: '20250207', VbankExpTime: '235959', AuthCode: '' });
          expect(p.VbankNum).to.match(/^\d{14}$/);
          expect(p.VbankBankName).to.equal('우리은행');
        }
        if (method === 'CELLPHONE') expect(p).to.not.have.property('CardNo');
        const e = sandbox.ledger.get(a.fields.TxTid!)!;
        expect(e.status).to.equal(status);
        expect(e.approvalCalls).to.equal(1);
      });
    }

    it('issues a cash receipt on a bank transfer that asked for one', async () => {
      const a = await auth('BANK', { cashReceipt: { type: 'expense-proof', identity: '1234567890' } });
      const p = parse(await callGateway(a));
      expect(p).to.include({ ResultCode: '4000', RcptType: '2' });
      expect(p.RcptTID).to.match(/^nicepay00m0401/);
      expect(p.RcptAuthCode).to.match(/^\d{9}$/);
    });

    it('round-trips CP949-only syllables (똠, 햏) in EUC-KR JSON', async () => {
      const a = await auth('CARD', { buyerName: '김똠햏', goodsName: '똠양꿍' });
      const r = await callGateway(a);
      expect(r.bytes.includes(Buffer.from([0x8c, 0x63])), '똠 as CP949 0x8C63').to.equal(true);
      expect(r.bytes.includes(Buffer.from('똠', 'utf8'))).to.equal(false);
      expect(parse(r)).to.include({ BuyerName: '김똠햏', GoodsName: '똠양꿍' });
    });

    it('answers UTF-8 KV when asked, with the same names', async () => {
      const a = await auth('CARD', { buyerName: '김똠햏' });
      const r = await callGateway(a, { charset: 'utf-8', ediType: 'KV' });
      expect(r.contentType).to.equal('text/html;charset=utf-8');
      expect(r.bytes.toString('utf8')).to.match(/^ResultCode=3001&/);
      const p = parse(r, 'utf-8', 'KV');
      expect(p).to.include({ ResultCode: '3001', BuyerName: '김똠햏', Amt: '000000001004' });
      expect(p.Signature).to.equal(approvalResponseSignature(a.fields.TxTid!, MID, '000000001004', KEY));
      expect(p).to.have.property('SandboxTrace');
    });

    it('answers EUC-KR KV and UTF-8 JSON too', async () => {
      const kv = await callGateway(await auth('CARD', { buyerName: '햏' }), { ediType: 'KV' });
      expect(iconv.decode(kv.bytes, 'cp949')).to.include('BuyerName=햏');
      const js = await callGateway(await auth('CARD', { buyerName: '햏' }), { charset: 'utf-8' });
      expect(JSON.parse(js.bytes.toString('utf8')).BuyerName).to.equal('햏');
    });

    it('declines a wrong SignData with A211 and changes nothing', async () => {
      const a = await auth();
      const p = parse(await callGateway(a, { signData: 'f'.repeat(64) }));
      expect(p.ResultCode).to.equal('A211');
      expect(p.ResultMsg).to.match(/SignData/);
      expect(p.Signature, 'signed like every answer').to.equal(
        approvalResponseSignature(a.fields.TxTid!, MID, '000000001004', KEY),
      );
      expect(statusOf(a)).to.equal('authenticated');
      expect(sandbox.ledger.get(a.fields.TxTid!)!.approvalCalls).to.equal(1);
      expect(parse(await callGateway(a)).ResultCode, 'token still usable').to.equal('3001');
    });

    it('answers 1682 to a second approval of the same TID and counts both calls', async () => {
      const a = await auth();
      expect(parse(await callGateway(a)).ResultCode).to.equal('3001');
      const again = parse(await callGateway(a));
      expect(again.ResultCode).to.equal('1682');
      expect(sandbox.ledger.get(a.fields.TxTid!)!.approvalCalls).to.equal(2);
      expect(statusOf(a)).to.equal('approved');
    });

    it('declines a tampered Amt with A123 and burns the token; a padded Amt is the same amount', async () => {
      const a = await auth();
      const p = parse(await callGateway(a, { amt: '4' }));
      expect(p.ResultCode).to.equal('A123');
      expect(statusOf(a)).to.equal('declined');
      expect(parse(await callGateway(a)).ResultCode, 'the token is burnt').to.equal('I003');
      expect(
        parse(await callGateway(await auth(), { amt: '000000001004' })).ResultCode,
        'padded Amt is the same amount',
      ).to.equal('3001');
    });

    it('declines an unknown TID or a token that was not issued for it with W010 (A127 is a duplicate Moid)', async () => {
      const a = await auth();
      const b = await auth();
      expect(parse(await callGateway(a, { tid: 'nicepay00m01012501312330009999' })).ResultCode).to.equal('W010');
      expect(parse(await callGateway(a, { authToken: b.fields.AuthToken! })).ResultCode).to.equal('W010');
      expect(statusOf(a)).to.equal('authenticated');
      expect(statusOf(b)).to.equal('authenticated');
    });

    it('declines an unknown MID and an undecodable body', async () => {
      const a = await auth();
      const body = encodeForm(
        {
          TID: a.fields.TxTid!,
          AuthToken: a.fields.AuthToken!,
          MID: 'nosuchmid0',
          Amt: '1004',
          EdiDate: '20250131233000',
          SignData: 'x',
        },
        'euc-kr',
      );
      const p = parse(await post(a.fields.NextAppURL!, body, 'application/x-www-form-urlencoded'));
      expect(p.ResultCode).to.not.equal('3001');
      expect(p.ResultMsg).to.match(/상점/);
      const bad = parse(await post(a.fields.NextAppURL!, Buffer.from('TID=%ZZ'), 'application/x-www-form-urlencoded'));
      expect(bad.ResultCode).to.equal('W009');
      expect(statusOf(a)).to.equal('authenticated');
    });
  });

  describe('approval faults', () => {
    const inject = (
      kind: Parameters<Sandbox['faults']['inject']>[0]['kind'],
      extra: { delayMs?: number; commit?: boolean } = {},
    ): void => sandbox.faults.inject({ target: 'approve', kind, ...extra });

    it('delay: commits, then stalls its answer (the client gives up first)', async () => {
      const a = await auth();
      inject('delay'); // 60 s by default
      expect(await callAndGiveUp(a), 'the client gave up first').to.equal(undefined);
      expect(statusOf(a)).to.equal('approved');
    });

    it('delay with commit:false: never commits, answers only once delayMs has passed; a retry approves', async () => {
      const a = await auth();
      inject('delay', { delayMs: 5_000, commit: false });
      const late = await withHeldTimers(async (timers) => {
        let answered = false;
        const call = callGateway(a).then((r) => {
          answered = true;
          return r;
        });
        await stalled();
        expect(answered, 'no answer before delayMs').to.equal(false);
        timers.jump(5_000);
        return parse(await call);
      });
      expect(late.ResultCode).to.not.equal('3001');
      expect(statusOf(a)).to.equal('authenticated');
      expect(parse(await callGateway(a)).ResultCode).to.equal('3001');
      expect(sandbox.ledger.get(a.fields.TxTid!)!.approvalCalls).to.equal(2);
    });

    it('status-500: a 500 answer after committing, or without it with commit:false', async () => {
      const a = await auth();
      inject('status-500', { commit: false });
      expect((await callGateway(a)).status).to.equal(500);
      expect(statusOf(a)).to.equal('authenticated');
      inject('status-500');
      expect((await callGateway(a)).status).to.equal(500);
      expect(statusOf(a)).to.equal('approved');
      expect(sandbox.ledger.get(a.fields.TxTid!)!.approvalCalls).to.equal(2);
    });

    it('html: a 200 HTML page instead of JSON', async () => {
      const a = await auth();
      inject('html');
      const r = await callGateway(a);
      expect(r.status).to.equal(200);
      expect(iconv.decode(r.bytes, 'cp949')).to.match(/^<!DOCTYPE html>[\s\S]*시스템/);
      expect(() => parse(r)).to.throw();
      expect(statusOf(a)).to.equal('approved');
    });

    it('bad-signature: a 3001 whose Signature does not verify', async () => {
      const a = await auth();
      inject('bad-signature');
      const p = parse(await callGateway(a));
      expect(p.ResultCode).to.equal('3001');
      expect(p.Signature).to.match(/^[0-9a-f]{64}$/);
      expect(p.Signature).to.not.equal(approvalResponseSignature(p.TID!, MID, p.Amt!, KEY));
      expect(statusOf(a)).to.equal('approved');
    });

    it('drop: the socket dies after the commit, or before it with commit:false', async () => {
      const a = await auth();
      inject('drop');
      let err: unknown;
      try {
        await callGateway(a);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(Error);
      expect(statusOf(a)).to.equal('approved');
      const b = await auth();
      inject('drop', { commit: false });
      err = undefined;
      try {
        await callGateway(b);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(Error);
      expect(statusOf(b)).to.equal('authenticated');
      expect(sandbox.ledger.get(b.fields.TxTid!)!.approvalCalls).to.equal(1);
    });

    it('alter-amount: reports Amt + 1000 with a Signature that matches the altered Amt', async () => {
      const a = await auth();
      inject('alter-amount');
      const p = parse(await callGateway(a));
      expect(p.Amt).to.equal(padAmount(2004));
      expect(p.Signature).to.equal(approvalResponseSignature(p.TID!, MID, padAmount(2004), KEY));
      expect(sandbox.ledger.get(a.fields.TxTid!)).to.include({ status: 'approved', amount: 1004 });
    });

    it('truncate: half a body after committing', async () => {
      const a = await auth();
      const full = (await callGateway(await auth())).bytes.length;
      inject('truncate');
      const r = await callGateway(a);
      expect(r.bytes.length)
        .to.be.below(full * 0.6)
        .and.above(0);
      expect(() => parse(r)).to.throw();
      expect(statusOf(a)).to.equal('approved');
    });
  });

  describe('POST /webapi/cancel_process.jsp (net cancel)', () => {
    it('net-cancels an approved TID with 2001 and a valid Signature, idempotently', async () => {
      const a = await auth('CARD', { amount: 52_000 });
      expect(parse(await callGateway(a)).ResultCode).to.equal('3001');
      const p = parse(await callGateway(a, { netCancel: true }));
      expect(p).to.include({
        ResultCode: '2001',
        TID: a.fields.TxTid,
        CancelAmt: '000000052000',
        CancelDate: '20250131',
        CancelTime: '233000',
        RemainAmt: '000000000000',
      });
      expect(p.CancelNum).to.match(/^\d{8}$/);
      expect(p.Signature).to.equal(cancelResponseSignature(a.fields.TxTid!, MID, '000000052000', KEY));
      expect(p).to.have.property('SandboxTrace');
      expect(statusOf(a)).to.equal('net-cancelled');
      const again = parse(await callGateway(a, { netCancel: true }));
      expect(again).to.include({ ResultCode: '2001', CancelNum: p.CancelNum });
    });

    it('net-cancels a TID that was only authenticated, so a later approval is refused', async () => {
      const a = await auth('VBANK');
      expect(parse(await callGateway(a, { netCancel: true, ediType: 'KV' }), 'euc-kr', 'KV').ResultCode).to.equal(
        '2001',
      );
      expect(statusOf(a)).to.equal('net-cancelled');
      expect(parse(await callGateway(a)).ResultCode).to.equal('I003');
      expect(statusOf(a)).to.equal('net-cancelled');
    });

    it('refuses an unknown TID, a wrong SignData and a plain cancel', async () => {
      const a = await auth();
      expect(
        parse(await callGateway(a, { netCancel: true, tid: 'nicepay00m01012501312330000000' })).ResultCode,
      ).to.equal('2012');
      expect(parse(await callGateway(a, { netCancel: true, signData: '0'.repeat(64) })).ResultCode).to.equal('A211');
      const plain = parse(
        await post(
          a.fields.NetCancelURL!,
          encodeForm({ TID: a.fields.TxTid!, MID }, 'euc-kr'),
          'application/x-www-form-urlencoded',
        ),
      );
      expect(plain.ResultCode).to.not.equal('2001');
      expect(plain.ResultCode).to.equal('W001'); // a plain cancel is served (test/cancel.test.ts): this one lacks Moid
      expect(statusOf(a)).to.equal('authenticated');
    });

    for (const kind of ['status-500', 'drop', 'delay', 'html', 'truncate'] as const) {
      const commits = kind !== 'status-500' && kind !== 'html';
      it(`fault ${kind}: the answer is lost; the net cancel ${commits ? 'is' : 'is not'} committed`, async () => {
        const a = await auth();
        await callGateway(a);
        sandbox.faults.inject({ target: 'net-cancel', kind });
        let r: Reply | undefined;
        if (kind === 'delay') r = await callAndGiveUp(a, { netCancel: true });
        else
          try {
            r = await callGateway(a, { netCancel: true });
          } catch {
            r = undefined;
          }
        if (kind === 'drop' || kind === 'delay') expect(r).to.equal(undefined);
        if (kind === 'status-500') expect(r?.status).to.equal(500);
        if (kind === 'html' || kind === 'truncate') expect(() => parse(r!)).to.throw();
        expect(statusOf(a)).to.equal(commits ? 'net-cancelled' : 'approved');
      });
    }

    it('net-cancel faults obey an explicit commit', async () => {
      const b = await auth();
      await callGateway(b);
      sandbox.faults.inject({ target: 'net-cancel', kind: 'html', commit: true });
      const rb = await callGateway(b, { netCancel: true });
      expect(() => parse(rb)).to.throw();
      expect(statusOf(b)).to.equal('net-cancelled');
      const a = await auth();
      await callGateway(a);
      sandbox.faults.inject({ target: 'net-cancel', kind: 'truncate', commit: false });
      const r = await callGateway(a, { netCancel: true });
      expect(() => parse(r)).to.throw();
      expect(statusOf(a)).to.equal('approved');
    });
  });

  describe('payment window', () => {
    const windowFields = (over: Record<string, string> = {}): Record<string, string> => {
      const ediDate = '20250131233000';
      const amt = over.Amt ?? '1004';
      return {
        MID,
        Amt: amt,
        Moid: nextMoid(),
        GoodsName: '똠양꿍 세트',
        BuyerName: '김햏',
        BuyerEmail: 'buyer@example.com',
        BuyerTel: '01012345678',
        ReturnURL: 'https://shop.example/pay/return?x=1&y=2',
        EdiDate: ediDate,
        SignData: windowSignData(ediDate, MID, amt, KEY),
        ReqReserved: '예약',
        MallReserved: 'mall',
        ...over,
      };
    };
    const page = (r: Reply): string => r.bytes.toString('utf8');
    const sessionOf = (html: string): string => /name="SessionId" value="([^"]+)"/.exec(html)![1]!;
    const unescapeHtml = (t: string): string =>
      t.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
    const hiddenFields = (html: string): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
        out[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
      return out;
    };
    const confirm = (fields: Record<string, string>): Promise<Reply> =>
      post(`${sandbox.url}/window/confirm`, encodeForm(fields, 'utf-8'), 'application/x-www-form-urlencoded');
    const openWindow = async (over: Record<string, string> = {}): Promise<string> => {
      const r = await post(
        `${sandbox.url}/window`,
        encodeForm(windowFields(over), 'euc-kr'),
        'application/x-www-form-urlencoded',
      );
      expect(r.status).to.equal(200);
      return page(r);
    };

    it('GET /window renders the order in Korean with the method radios and buttons', async () => {
      const q = encodeForm(windowFields({ Amt: '1234567', PayMethod: 'VBANK' }), 'euc-kr').toString('latin1');
      const res = await request(`${sandbox.url}/window?${q}`);
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
      const html = await res.body.text();
      expect(html).to.include('1,234,567원').and.include('똠양꿍 세트').and.include('김햏');
      // PayMethod=VBANK offers only the virtual account (lifecycle-facts 1: the methods offered).
      expect(html).to.match(/id="method-VBANK" value="VBANK" checked/);
      for (const m of ['CARD', 'BANK', 'CELLPHONE']) expect(html).not.to.include(`id="method-${m}"`);
      const all = await (
        await request(
          `${sandbox.url}/window?${encodeForm(windowFields({ PayMethod: '' }), 'euc-kr').toString('latin1')}`,
        )
      ).body.text();
      for (const m of ['CARD', 'BANK', 'VBANK', 'CELLPHONE'])
        expect(all).to.match(new RegExp(`<input type="radio" name="PayMethod" id="method-${m}" value="${m}"`));
      expect(html)
        .to.match(/id="approve">결제하기</)
        .and.match(/id="cancel">취소</);
      expect(html)
        .to.include('현금영수증')
        .and.not.match(/<(script|link|img)[^>]+src=/);
    });

    it("POST /window decodes an EUC-KR form with CP949-only syllables, also with CharSet=utf-8 (the answers' charset)", async () => {
      const html = await openWindow({ GoodsName: '똠 세트', BuyerName: '햏햏' });
      expect(html).to.include('똠 세트').and.include('햏햏').and.include('1,004원');
      const utf = await post(
        `${sandbox.url}/window`,
        encodeForm(windowFields({ CharSet: 'utf-8', GoodsName: '똠얌' }), 'euc-kr'),
        'application/x-www-form-urlencoded',
      );
      expect(page(utf)).to.include('똠얌');
    });

    it('rejects a bad SignData, Amt or ReturnURL with a Korean 400 page naming the field', async () => {
      const cases: Array<[Record<string, string>, string]> = [
        [{ SignData: 'a'.repeat(64) }, 'SignData'],
        [{ Amt: '0', SignData: windowSignData('20250131233000', MID, '0', KEY) }, 'Amt'],
        [{ ReturnURL: '/relative/return' }, 'ReturnURL'],
        [{ MID: 'nosuchmid0' }, 'MID'],
      ];
      for (const [over, name] of cases) {
        const r = await post(
          `${sandbox.url}/window`,
          encodeForm(windowFields(over), 'euc-kr'),
          'application/x-www-form-urlencoded',
        );
        expect(r.status, name).to.equal(400);
        expect(r.contentType).to.equal('text/html; charset=utf-8');
        expect(page(r)).to.include(`<strong id="error-field">${name}</strong>`).and.include('결제 요청 오류');
      }
    });

    it('confirm posts an EUC-KR auth return whose hidden fields decode and verify, then approval works', async () => {
      const html = await openWindow();
      const r = await confirm({
        SessionId: sessionOf(html),
        PayMethod: 'BANK',
        Action: 'approve',
        RcptType: 'income-deduction',
        RcptIdentity: '010-1234-5678',
      });
      expect(r.status).to.equal(200);
      expect(r.contentType).to.equal('text/html; charset=euc-kr');
      expect(r.bytes.includes(iconv.encode('인증 성공', 'cp949'))).to.equal(true);
      expect(r.bytes.includes(Buffer.from('인증 성공', 'utf8'))).to.equal(false);
      const text = iconv.decode(r.bytes, 'cp949');
      expect(text).to.include(
        '<form id="return-form" method="post" action="https://shop.example/pay/return?x=1&#38;y=2" accept-charset="euc-kr">',
      );
      expect(text).to.include("document.getElementById('return-form').submit()");
      const f = hiddenFields(text);
      expect(f).to.include({
        AuthResultCode: '0000',
        AuthResultMsg: '인증 성공',
        PayMethod: 'BANK',
        MID,
        Amt: '1004',
        ReqReserved: '예약',
      });
      expect(f.Signature).to.equal(authReturnSignature(f.AuthToken!, MID, '1004', KEY));
      expect(f.TxTid).to.match(/^nicepay00m0201/);
      const e = sandbox.ledger.get(f.TxTid!)!;
      expect(e).to.include({ status: 'authenticated', source: 'window', goodsName: '똠양꿍 세트', buyerName: '김햏' });
      expect(e.cashReceipt).to.deep.equal({ type: 'income-deduction', identity: '01012345678' });
      const p = parse(await callGateway({ fields: f, body: Buffer.alloc(0), contentType: '' }));
      expect(p).to.include({
        ResultCode: '4000',
        RcptType: '1',
        BuyerEmail: 'buyer@example.com',
        MallReserved: 'mall',
      });
      const reuse = await confirm({ SessionId: sessionOf(html), PayMethod: 'BANK', Action: 'approve' });
      expect(reuse.status, 'the session is single-use').to.equal(400);
    });

    it('confirm in a utf-8 window answers UTF-8; cancel returns a non-0000 code without a token', async () => {
      const html = await openWindow({ CharSet: 'utf-8' });
      const r = await confirm({ SessionId: sessionOf(html), PayMethod: 'CARD', Action: 'cancel' });
      expect(r.contentType).to.equal('text/html; charset=utf-8');
      const text = r.bytes.toString('utf8');
      expect(text).to.include('accept-charset="utf-8"');
      const f = hiddenFields(text);
      expect(f.AuthResultCode).to.not.equal('0000');
      expect(f.AuthResultMsg).to.equal('사용자가 결제를 취소하였습니다');
      expect(f).to.not.have.property('AuthToken');
      expect(f).to.not.have.property('TxTid');
    });

    it('confirm re-shows the window (400) for a cash receipt without a valid number', async () => {
      const html = await openWindow();
      const r = await confirm({
        SessionId: sessionOf(html),
        PayMethod: 'VBANK',
        Action: 'approve',
        RcptType: 'expense-proof',
        RcptIdentity: 'abc',
      });
      expect(r.status).to.equal(400);
      expect(page(r)).to.include('id="notice"').and.include('현금영수증');
      const ok = await confirm({ SessionId: sessionOf(html), PayMethod: 'CELLPHONE', Action: 'approve' });
      expect(hiddenFields(iconv.decode(ok.bytes, 'cp949')).TxTid).to.match(/^nicepay00m0501/);
    });
  });
});
