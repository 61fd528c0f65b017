import { expect } from 'chai';
import {
  AUTH_TOKEN_TTL_MS,
  GATEWAY_TIME_TOLERANCE_MS,
  NET_CANCEL_WINDOW_MS,
  type AuthReturn,
  type Sandbox,
} from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp14 } from '../src/wire/kst.js';
import {
  approvalResponseSignature,
  approvalSignData,
  cancelResponseSignature,
  windowSignData,
} from '../src/wire/signatures.js';
import { request } from 'undici';
import { handForm, parseReply, postBytes, sendHandForm, type RawReply } from './helpers/gateway-form.js';
import { MERCHANT_KEY as KEY, MID } from './helpers/shop.js';
import { startFrozenSandbox } from './helpers/frozen-sandbox.js';

/** 2026-11-24 14:00:00 KST, frozen: every rule below is measured on this virtual clock. */
const START = fromKst(2026, 11, 24, 14, 0, 0);
/** The same instant's digits written in UTC (what a UTC server's local time prints). */
const utcDigits = (d: Date): string => d.toISOString().replace(/\D/g, '').slice(0, 14);

describe('sandbox approval side: as strict as the documented gateway', () => {
  let sandbox: Sandbox;
  let seq = 0;
  const auth = (extra: Partial<Parameters<Sandbox['authenticate']>[0]> = {}): Promise<AuthReturn> =>
    sandbox.authenticate({ moid: `strict-${++seq}`, amount: 1004, method: 'CARD', ...extra });
  const send = (a: AuthReturn, o: Parameters<typeof sendHandForm>[3] = {}): Promise<RawReply> =>
    sendHandForm(sandbox, a, KEY, o);
  const answer = async (a: AuthReturn, o: Parameters<typeof sendHandForm>[3] = {}): Promise<Record<string, string>> =>
    parseReply(await send(a, o));
  const statusOf = (a: AuthReturn): string | undefined => sandbox.ledger.get(a.fields.TxTid!)?.status;
  /** Opens the payment window with this EdiDate and SignData: the status and the page. */
  const windowError = async (
    moid: string,
    ediDate: string,
    signData: string,
  ): Promise<{ status: number; html: string }> => {
    const form = {
      MID,
      Amt: '1004',
      Moid: moid,
      GoodsName: 'goods',
      ReturnURL: 'https://shop.example/r',
      EdiDate: ediDate,
      SignData: signData,
    };
    const r = await postBytes(`${sandbox.url}/window`, encodeForm(form, 'euc-kr'), 'application/x-www-form-urlencoded');
    return { status: r.status, html: r.bytes.toString('utf8') };
  };

  beforeEach(async () => {
    sandbox = await startFrozenSandbox(START);
  });
  afterEach(() => sandbox.close());

  describe('EdiDate: KST, within the tolerance of the sandbox clock', () => {
    it('approval refuses the same instant written in UTC with W004 and burns the token', async () => {
      const a = await auth();
      const p = await answer(a, { ediDate: utcDigits(sandbox.clock.now()) });
      expect(p.ResultCode).to.equal('W004');
      expect(p.ResultMsg).to.match(/EdiDate/);
      expect(statusOf(a)).to.equal('declined');
      expect((await answer(a)).ResultCode, 'a burnt token is a re-request').to.equal('I003');
    });

    it('approval accepts a KST time inside the tolerance and refuses one just outside it', async () => {
      const near = new Date(START.getTime() + GATEWAY_TIME_TOLERANCE_MS - 1000);
      const far = new Date(START.getTime() - GATEWAY_TIME_TOLERANCE_MS - 1000);
      expect((await answer(await auth(), { ediDate: kstTimestamp14(far) })).ResultCode).to.equal('W004');
      expect((await answer(await auth(), { ediDate: kstTimestamp14(near) })).ResultCode).to.equal('3001');
    });

    it('net cancel refuses a UTC EdiDate with W004 and cancels nothing; the KST one cancels', async () => {
      const a = await auth();
      expect((await answer(a)).ResultCode).to.equal('3001');
      const p = await answer(a, { netCancel: true, ediDate: utcDigits(sandbox.clock.now()) });
      expect(p.ResultCode).to.equal('W004');
      expect(statusOf(a)).to.equal('approved');
      expect((await answer(a, { netCancel: true })).ResultCode).to.equal('2001');
      expect(statusOf(a)).to.equal('net-cancelled');
    });

    it('the payment window refuses a UTC EdiDate with a 400 page naming EdiDate', async () => {
      const edi = utcDigits(sandbox.clock.now());
      const r = await windowError('w-1', edi, windowSignData(edi, MID, '1004', KEY));
      expect(r.status).to.equal(400);
      expect(r.html).to.include('<strong id="error-field">EdiDate</strong>');
    });
  });

  describe('values taken unmodified', () => {
    it('a TID or AuthToken with added white space is another value, too long for its field (W002), and the real token survives', async () => {
      const a = await auth();
      expect((await answer(a, { tid: `${a.fields.TxTid} ` })).ResultCode).to.equal('W002');
      expect((await answer(a, { authToken: ` ${a.fields.AuthToken}` })).ResultCode).to.equal('W002');
      expect(statusOf(a)).to.equal('authenticated');
      expect((await answer(a)).ResultCode).to.equal('3001');
    });

    it('a SignData with a trailing space fails (A211); an Amt with a leading space is not digits (W002)', async () => {
      const a = await auth();
      const edi = kstTimestamp14(sandbox.clock.now());
      const good = approvalSignData(a.fields.AuthToken!, MID, '1004', edi, KEY);
      expect((await answer(a, { ediDate: edi, signData: `${good} ` })).ResultCode).to.equal('A211');
      expect(statusOf(a), 'an unauthenticated attempt changes nothing').to.equal('authenticated');
      const p = await answer(a, { amt: ' 1004' });
      expect(p.ResultCode).to.equal('W002');
      expect(statusOf(a), 'a request that breaks the table burns nothing').to.equal('authenticated');
    });

    it('an EdiDate with a trailing space is not a 14-digit timestamp (W002), one of 14 digits off the clock is W004', async () => {
      const edi = `${kstTimestamp14(sandbox.clock.now())} `;
      expect((await answer(await auth(), { ediDate: edi })).ResultCode).to.equal('W002');
      expect((await answer(await auth(), { ediDate: '20000101000000' })).ResultCode).to.equal('W004');
    });
  });

  describe('SignData: lower-case hex only', () => {
    it('approval, net cancel and the window refuse the upper-case form of a correct SignData', async () => {
      const a = await auth();
      const edi = kstTimestamp14(sandbox.clock.now());
      const upper = approvalSignData(a.fields.AuthToken!, MID, '1004', edi, KEY).toUpperCase();
      expect((await answer(a, { ediDate: edi, signData: upper })).ResultCode).to.equal('A211');
      expect((await answer(a)).ResultCode).to.equal('3001');
      expect((await answer(a, { netCancel: true, ediDate: edi, signData: upper })).ResultCode).to.equal('A211');
      expect(statusOf(a)).to.equal('approved');
      const r = await windowError('w-2', edi, windowSignData(edi, MID, '1004', KEY).toUpperCase());
      expect(r.status).to.equal(400);
      expect(r.html).to.include('<strong id="error-field">SignData</strong>');
    });
  });

  describe('AuthToken lifetime and burning', () => {
    it('approves just inside the token lifetime', async () => {
      const a = await auth();
      sandbox.clock.advance(AUTH_TOKEN_TTL_MS);
      expect((await answer(a)).ResultCode).to.equal('3001');
    });

    it('refuses an expired token with W011 on every attempt, committing nothing', async () => {
      const a = await auth();
      sandbox.clock.advance(AUTH_TOKEN_TTL_MS + 1000);
      expect((await answer(a)).ResultCode).to.equal('W011');
      expect((await answer(a)).ResultCode).to.equal('W011');
      expect(sandbox.ledger.committed()).to.have.length(0);
    });

    it('a token offered for another TID burns neither (W010), so a third party cannot spoil a payment', async () => {
      const a = await auth();
      const b = await auth();
      expect((await answer(a, { authToken: b.fields.AuthToken! })).ResultCode).to.equal('W010');
      expect((await answer(a)).ResultCode).to.equal('3001');
      expect((await answer(b)).ResultCode).to.equal('3001');
    });
  });

  describe('net-cancel window', () => {
    it('net-cancels up to the window after the approval and answers 2020 after it, leaving the payment', async () => {
      const a = await auth();
      const b = await auth();
      expect((await answer(a)).ResultCode).to.equal('3001');
      expect((await answer(b)).ResultCode).to.equal('3001');
      sandbox.clock.advance(NET_CANCEL_WINDOW_MS);
      expect((await answer(a, { netCancel: true })).ResultCode).to.equal('2001');
      sandbox.clock.advance(1000);
      const late = await answer(b, { netCancel: true });
      expect(late.ResultCode).to.equal('2020');
      expect(statusOf(b)).to.equal('approved');
      const again = await answer(a, { netCancel: true });
      expect(again.ResultCode, 'a done net cancel is still reported as done').to.equal('2001');
    });
  });

  describe('duplicate Moid (gateway-facts: 1681 / A127)', () => {
    it('refuses a second approval of a Moid already approved for the merchant with A127 and burns its token', async () => {
      const first = await auth({ moid: 'same-order' });
      const second = await auth({ moid: 'same-order' });
      expect((await answer(first)).ResultCode).to.equal('3001');
      const p = await answer(second);
      expect(p.ResultCode).to.equal('A127');
      expect(p.ResultMsg).to.match(/Moid/);
      expect(statusOf(second)).to.equal('declined');
      expect(statusOf(first)).to.equal('approved');
    });

    it("a net cancel erases the approval, so the order may be paid again; another merchant's Moid is its own", async () => {
      const first = await auth({ moid: 'retry-order' });
      expect((await answer(first)).ResultCode).to.equal('3001');
      expect((await answer(first, { netCancel: true })).ResultCode).to.equal('2001');
      const retry = await auth({ moid: 'retry-order' });
      expect((await answer(retry)).ResultCode).to.equal('3001');
      const other = await sandbox.authenticate({
        mid: 'nictest04m',
        moid: 'retry-order',
        amount: 1004,
        method: 'CARD',
      });
      const otherKey = 'b+zhZ4yOZ7FsH8pm5lhDfHZEb79tIwnjsdA0FBXh86yLc6BJeFVrZFXhAoJ3gEWgrWwN+lJMV0W4hvDdbe4Sjw==';
      expect(parseReply(await sendHandForm(sandbox, other, otherKey)).ResultCode).to.equal('3001');
    });
  });

  describe('refusals are shaped like every answer', () => {
    it('a declined answer carries the 12-digit Amt and a Signature over TID + MID + Amt', async () => {
      const a = await auth();
      const p = await answer(a, { amt: '4' });
      expect(p).to.include({ ResultCode: 'A123', Amt: '000000000004', TID: a.fields.TxTid, MID });
      expect(p.Signature).to.equal(approvalResponseSignature(a.fields.TxTid!, MID, '000000000004', KEY));
    });

    it('a net-cancel refusal carries the 12-digit CancelAmt and its Signature', async () => {
      const a = await auth();
      const p = await answer(a, { netCancel: true, amt: '99999' });
      expect(p).to.include({ ResultCode: '2032', CancelAmt: '000000099999' });
      expect(p.Signature).to.equal(cancelResponseSignature(a.fields.TxTid!, MID, '000000099999', KEY));
      expect((await answer(a, { netCancel: true, amt: '4' })).ResultCode, 'a net cancel is never partial').to.equal(
        '2028',
      );
      expect(
        (await answer(a, { netCancel: true, tid: 'nicepay00m01012611241400000000' })).ResultCode,
        'lifecycle-facts: no such transaction',
      ).to.equal('2012');
    });

    it('W-code answers come in the CharSet and EdiType asked for', async () => {
      const a = await auth();
      const missing = encodeForm({ TID: a.fields.TxTid!, MID, Amt: '1004', CharSet: 'utf-8', EdiType: 'KV' }, 'euc-kr');
      const r = await postBytes(a.fields.NextAppURL!, missing, 'application/x-www-form-urlencoded');
      expect(r.contentType).to.equal('text/html;charset=utf-8');
      const p = parseReply(r, 'utf-8', 'KV');
      expect(p.ResultCode).to.equal('W001');
      expect(r.bytes.includes(Buffer.from('필수', 'utf8'))).to.equal(true);
      const broken = await postBytes(
        a.fields.NextAppURL!,
        Buffer.from('TID=%ZZ&CharSet=utf-8'),
        'application/x-www-form-urlencoded',
      );
      expect(parseReply(broken, 'utf-8').ResultCode).to.equal('W009');
      expect(
        broken.bytes.includes(Buffer.from('요청', 'utf8')),
        'an unreadable body is answered in its CharSet too',
      ).to.equal(true);
    });

    it('a KV approval whose MallReserved holds & or = is refused (W002 naming MallReserved), since its answer could not echo it as sent; without them it is approved', async () => {
      const a = await auth();
      const refused = parseReply(await send(a, { ediType: 'KV', mallReserved: 'cart=7&coupon=Y' }), 'euc-kr', 'KV');
      expect(refused).to.include({ ResultCode: 'W002' });
      expect(refused.ResultMsg).to.include('MallReserved');
      expect(statusOf(a)).to.equal('authenticated');
      const approved = parseReply(await send(a, { ediType: 'KV', mallReserved: 'cart 7, coupon Y' }), 'euc-kr', 'KV');
      expect(approved).to.include({ ResultCode: '3001', MallReserved: 'cart 7, coupon Y' });
    });

    it('a correctly signed form declared as another media type is refused (W009) and commits nothing; one with no Content-Type is read', async () => {
      const a = await auth();
      const body = handForm(sandbox, a, KEY);
      for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x']) {
        expect(parseReply(await postBytes(a.fields.NextAppURL!, body, type)).ResultCode, type).to.equal('W009');
        expect(statusOf(a), type).to.equal('authenticated');
      }
      const res = await request(a.fields.NextAppURL!, { method: 'POST', body });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      expect(parseReply({ status: res.statusCode, contentType: '', bytes }).ResultCode).to.equal('3001');
      expect(statusOf(a)).to.equal('approved');
    });

    it('a request that declares a charset other than EUC-KR, or repeats a field, is refused (W009)', async () => {
      const a = await auth();
      const body = encodeForm({ TID: a.fields.TxTid!, AuthToken: a.fields.AuthToken!, MID, Amt: '1004' }, 'utf-8');
      expect(
        parseReply(await postBytes(a.fields.NextAppURL!, body, 'application/x-www-form-urlencoded; charset=utf-8'))
          .ResultCode,
      ).to.equal('W009');
      const twice = Buffer.concat([body, Buffer.from('&Amt=4')]);
      expect(
        parseReply(await postBytes(a.fields.NextAppURL!, twice, 'application/x-www-form-urlencoded')).ResultCode,
      ).to.equal('W009');
      expect(statusOf(a)).to.equal('authenticated');
    });
  });
});
