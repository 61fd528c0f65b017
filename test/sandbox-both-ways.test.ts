/**
 * The sandbox behaves like the gateway both ways: never stricter than the real gateway (a
 * correct client passes) and never laxer than the documents (a client bug fails). Each block
 * is one finding of the sandbox review, sent over loopback HTTP as a merchant server, a browser
 * or the gateway's notice would send it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { request } from 'undici';
import { createNicepay } from '../src/index.js';
import {
  createSandbox,
  PUBLISHED_TEST_MIDS,
  TEST_AUTO_CANCEL_REASON,
  TEST_MERCHANTS,
  type Sandbox,
  type SandboxMerchant,
} from '../src/sandbox/index.js';
import { decodeForm, encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp14 } from '../src/wire/kst.js';
import {
  approvalSignData,
  cancelSignData,
  reconEncKey,
  statusSignData,
  windowSignData,
} from '../src/wire/signatures.js';
import { postBytes, type RawReply } from './helpers/gateway-form.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const KEYIN_MID = 'nictest04m';
const KEYIN_KEY = TEST_MERCHANTS.find((m) => m.mid === KEYIN_MID)!.merchantKey;
const FORM = 'application/x-www-form-urlencoded; charset=euc-kr';
const START = fromKst(2026, 3, 2, 10, 0);

const fieldsOf = (r: RawReply): Record<string, string> =>
  JSON.parse(iconv.decode(r.bytes, 'cp949')) as Record<string, string>;

/** A frozen sandbox at START (10:00 KST, 2 March 2026) on loopback. */
async function frozen(options: Parameters<typeof createSandbox>[0] = {}): Promise<Sandbox> {
  const sandbox = createSandbox({ clock: () => START, ...options });
  sandbox.clock.freeze();
  await sandbox.listen(0);
  return sandbox;
}

/** Client requests of the approval host, built from the documents' formulas. */
function client(sandbox: Sandbox, mid = MID, key = KEY) {
  const edi = (): string => kstTimestamp14(sandbox.clock.now());
  const post = async (path: string, f: Record<string, string>): Promise<Record<string, string>> =>
    fieldsOf(await postBytes(`${sandbox.url}${path}`, encodeForm(f, 'euc-kr'), FORM));
  return {
    async approve(tid: string, token: string, amt: string, over: Record<string, string> = {}) {
      const e = over.EdiDate ?? edi();
      return post('/webapi/pay_process.jsp', {
        TID: tid,
        AuthToken: token,
        MID: mid,
        Amt: amt,
        EdiDate: e,
        SignData: approvalSignData(token, mid, amt, e, key),
        CharSet: 'utf-8',
        ...over,
      });
    },
    async pay(
      moid: string,
      amount: number,
      method: 'CARD' | 'BANK' | 'VBANK' = 'CARD',
      extra: { cashReceipt?: { type: 'income-deduction'; identity: string } } = {},
    ) {
      const auth = await sandbox.authenticate({ mid, moid, amount, method, ...extra });
      const answer = await this.approve(auth.fields.TxTid!, auth.fields.AuthToken!, String(amount));
      return { tid: auth.fields.TxTid!, answer };
    },
    cancel(tid: string, moid: string, amt: string, partial = false, over: Record<string, string> = {}) {
      const e = edi();
      return post('/webapi/cancel_process.jsp', {
        TID: tid,
        MID: mid,
        Moid: moid,
        CancelAmt: amt,
        CancelMsg: '고객 요청',
        PartialCancelCode: partial ? '1' : '0',
        EdiDate: e,
        SignData: cancelSignData(mid, amt, e, key),
        CharSet: 'utf-8',
        ...over,
      });
    },
    status(tid: string) {
      const e = edi();
      return post('/webapi/inquery/trans_status.jsp', {
        TID: tid,
        MID: mid,
        EdiDate: e,
        SignData: statusSignData(tid, mid, e, key),
        CharSet: 'utf-8',
      });
    },
    post,
    edi,
  };
}

/** A loopback receiver of payment notices that answers OK and keeps each notice's fields. */
async function noticeReceiver(): Promise<{
  url: string;
  notices: Array<Record<string, string>>;
  close(): Promise<void>;
}> {
  const notices: Array<Record<string, string>> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      notices.push({ ...decodeForm(Buffer.concat(chunks), 'euc-kr') });
      res.end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    notices,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('sandbox: a gateway both ways', () => {
  describe('a cancel carries a Moid of its own', () => {
    let sandbox: Sandbox;
    let receiver: Awaited<ReturnType<typeof noticeReceiver>>;
    before(async () => {
      receiver = await noticeReceiver();
      const merchant: SandboxMerchant = {
        mid: MID,
        merchantKey: KEY,
        notificationUrl: receiver.url,
        notifyCancels: true,
      };
      sandbox = await frozen({ merchants: [merchant] });
    });
    after(async () => {
      await sandbox.close();
      await receiver.close();
    });

    it("accepts a cancel whose Moid is not the order's (2001), echoes it, and the notice carries it as CancelMOID", async () => {
      const c = client(sandbox);
      const { tid } = await c.pay('order-a', 3000);
      const first = await c.cancel(tid, 'moid20260302100000', '1000', true);
      expect(first).to.include({ ResultCode: '2001', Moid: 'moid20260302100000', RemainAmt: '000000002000' });
      const second = await c.cancel(tid, 'moid20260302100001', '1000', true);
      expect(second).to.include({ ResultCode: '2001', Moid: 'moid20260302100001', RemainAmt: '000000001000' });
      await sandbox.notices.idle();
      expect(receiver.notices.map((n) => n.CancelMOID)).to.deep.equal(['moid20260302100000', 'moid20260302100001']);
      expect(receiver.notices.every((n) => n.MOID === 'order-a')).to.equal(true);
    });

    it("a bank transfer's cancel notice carries no CancelMOID (cards only), and a virtual account's refund posts no notice (only its deposit)", async () => {
      const c = client(sandbox);
      const bank = await c.pay('order-bank', 3000, 'BANK');
      const vbank = await c.pay('order-vbank', 3000, 'VBANK');
      await sandbox.deposit(vbank.tid);
      await sandbox.notices.idle();
      receiver.notices.length = 0;
      expect((await c.cancel(bank.tid, 'bank-c1', '1000', true)).ResultCode).to.equal('2001');
      const refund = await c.cancel(vbank.tid, 'vbank-c1', '3000', false, {
        RefundAcctNo: '1234567890',
        RefundBankCd: '004',
        RefundAcctNm: '홍길동',
      });
      expect(refund.ResultCode).to.be.oneOf(['2211', '2225']);
      await sandbox.notices.idle();
      expect(receiver.notices.map((n) => [n.MOID, n.PayMethod, n.CancelMOID])).to.deep.equal([
        ['order-bank', 'BANK', undefined],
      ]);
    });

    it('refuses the same Moid and amount as the previous partial cancel moments later (2060), not another Moid', async () => {
      const c = client(sandbox);
      const { tid } = await c.pay('order-b', 3000);
      expect((await c.cancel(tid, 'cancel-1', '500', true)).ResultCode).to.equal('2001');
      expect((await c.cancel(tid, 'cancel-1', '500', true)).ResultCode).to.equal('2060');
      expect((await c.cancel(tid, 'cancel-2', '500', true)).ResultCode).to.equal('2001');
    });
  });

  describe('the payment window', () => {
    let sandbox: Sandbox;
    before(async () => {
      sandbox = await frozen();
    });
    after(() => sandbox.close());

    const windowForm = (over: Record<string, string> = {}): Buffer => {
      const edi = kstTimestamp14(sandbox.clock.now());
      const amt = over.Amt ?? '10000';
      return encodeForm(
        {
          MID,
          Amt: amt,
          Moid: over.Moid ?? 'win-1',
          GoodsName: '상품',
          ReturnURL: 'https://shop.example/return',
          EdiDate: edi,
          SignData: windowSignData(edi, MID, amt, KEY),
          CharSet: 'utf-8',
          ...over,
        },
        'euc-kr',
      );
    };
    const open = (body: Buffer): Promise<RawReply> =>
      postBytes(`${sandbox.url}/window`, body, 'application/x-www-form-urlencoded');
    const confirm = (html: string, method: string, action = 'approve'): Promise<RawReply> => {
      const session = /name="SessionId" value="([^"]+)"/.exec(html)![1]!;
      return postBytes(
        `${sandbox.url}/window/confirm`,
        Buffer.from(`SessionId=${session}&PayMethod=${method}&Action=${action}`),
        'application/x-www-form-urlencoded',
      );
    };
    const hidden = (html: string): Record<string, string> =>
      Object.fromEntries(
        [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
      );

    it('offers exactly the methods of PayMethod=CARD,BANK and refuses another one at confirm', async () => {
      const page = (await open(windowForm({ PayMethod: 'CARD,BANK', Moid: 'multi-1' }))).bytes.toString('utf8');
      expect(page).to.include('id="method-CARD"').and.include('id="method-BANK"').and.not.include('id="method-VBANK"');
      expect((await confirm(page, 'CELLPHONE')).status).to.equal(400);
      const done = await confirm(page, 'BANK');
      expect(done.status).to.equal(200);
      expect(hidden(iconv.decode(done.bytes, 'utf8'))).to.include({ AuthResultCode: '0000', PayMethod: 'BANK' });
    });

    it("opens the window nicepay.paymentWindow({ payMethod: ['CARD', 'BANK'] }) signs, offering both", async () => {
      const nicepay = createNicepay({
        mid: MID,
        merchantKey: KEY,
        baseUrl: sandbox.url,
        clock: () => sandbox.clock.now(),
      });
      try {
        const fields = nicepay.paymentWindow({
          moid: 'client-multi',
          amount: 10000,
          goodsName: '상품',
          returnUrl: 'https://shop.example/return',
          payMethod: ['CARD', 'BANK'],
          buyer: { tel: '0'.repeat(40) },
        });
        const page = (await open(encodeForm({ ...fields }, 'euc-kr'))).bytes.toString('utf8');
        expect(page).to.include('id="method-CARD"').and.include('id="method-BANK"').and.not.include('id="error-field"');
      } finally {
        await nicepay.close();
      }
    });

    it('has a viewport meta tag, so a phone lays it out at its own width', async () => {
      const page = (await open(windowForm({ Moid: 'phone-1' }))).bytes.toString('utf8');
      expect(page).to.include('<meta name="viewport" content="width=device-width, initial-scale=1">');
    });

    it('gives the virtual account the VbankExpDate the window asked for', async () => {
      const page = (
        await open(windowForm({ Moid: 'vbank-exp', PayMethod: 'VBANK', VbankExpDate: '202603051800' }))
      ).bytes.toString('utf8');
      const auth = hidden((await confirm(page, 'VBANK')).bytes.toString('utf8'));
      const answer = await client(sandbox).approve(auth.TxTid!, auth.AuthToken!, '10000');
      expect(answer).to.include({ ResultCode: '4100', VbankExpDate: '20260305', VbankExpTime: '180000' });
    });

    it('does not reopen a window request the buyer already used: Back and re-post says the order is paid', async () => {
      const body = windowForm({ Moid: 'back-1' });
      const page = (await open(body)).bytes.toString('utf8');
      const auth = hidden((await confirm(page, 'CARD')).bytes.toString('utf8'));
      expect((await client(sandbox).approve(auth.TxTid!, auth.AuthToken!, '10000')).ResultCode).to.equal('3001');
      const again = await open(body);
      expect(again.status).to.equal(409);
      const html = again.bytes.toString('utf8');
      expect(html).to.include('id="already-paid"').and.not.include('결제하기');
    });

    it('a request the buyer closed with 취소 can be opened again (the vendor page re-submits the same form)', async () => {
      const body = windowForm({ Moid: 'closed-1' });
      const page = (await open(body)).bytes.toString('utf8');
      expect((await confirm(page, 'CARD', 'cancel')).status).to.equal(200);
      const again = await open(body);
      expect(again.status).to.equal(200);
      expect(again.bytes.toString('utf8')).to.include('결제하기');
    });

    it("as goPay's PC layer, 취소 posts nothing: the page only tells the merchant page to close the layer", async () => {
      const res = await postBytes(
        `${sandbox.url}/window?layer=1&origin=${encodeURIComponent('http://shop.example:8080')}`,
        windowForm({ Moid: 'layer-1' }),
        'application/x-www-form-urlencoded',
      );
      const closed = (await confirm(res.bytes.toString('utf8'), 'CARD', 'cancel')).bytes.toString('utf8');
      expect(closed).to.include('parent.postMessage({"nicepay":"close"}, "http://shop.example:8080")');
      expect(closed).not.to.include('<form').and.not.include('AuthResultCode');
    });

    it('needs ReturnURL for the mobile window, not for goPay\'s PC layer (the vendor: "not needed for the PC window")', async () => {
      const form = windowForm({ Moid: 'no-return', ReturnURL: '' });
      const mobile = await open(form);
      expect(mobile.status).to.equal(400);
      expect(mobile.bytes.toString('utf8')).to.include('<strong id="error-field">ReturnURL</strong>');
      const layer = await postBytes(
        `${sandbox.url}/window?layer=1&origin=${encodeURIComponent('http://shop.example')}`,
        form,
        'application/x-www-form-urlencoded',
      );
      expect(layer.status).to.equal(200);
      const auth = (await confirm(layer.bytes.toString('utf8'), 'CARD')).bytes.toString('utf8');
      expect(auth)
        .to.match(/parent\.postMessage\(\{"nicepay":"auth","fields":\{"AuthResultCode":"0000"/)
        .and.include('"http://shop.example"');
    });

    it("serves the vendor's window script with goPay, calling nicepaySubmit and nicepayClose", async () => {
      const res = await request(`${sandbox.url}/v3/common/js/nicepay-pgweb.js`);
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/javascript/);
      const js = await res.body.text();
      expect(js)
        .to.include('window.goPay = function (form)')
        .and.include('window.nicepaySubmit()')
        .and.include('window.nicepayClose()');
    });
  });

  describe('rules the documents leave open are options', () => {
    it('ediDateToleranceMs widens the EdiDate window; the default refuses 30 minutes off (W004)', async () => {
      for (const [options, code] of [
        [{}, 'W004'],
        [{ ediDateToleranceMs: 60 * 60 * 1000 }, '3001'],
      ] as const) {
        const sandbox = await frozen({ ...options });
        try {
          const auth = await sandbox.authenticate({ moid: 'tol-1', amount: 1004, method: 'CARD' });
          const off = kstTimestamp14(new Date(START.getTime() + 30 * 60 * 1000));
          expect(
            (
              await client(sandbox).approve(auth.fields.TxTid!, auth.fields.AuthToken!, '1004', {
                EdiDate: off,
                SignData: approvalSignData(auth.fields.AuthToken!, MID, '1004', off, KEY),
              })
            ).ResultCode,
          ).to.equal(code);
        } finally {
          await sandbox.close();
        }
      }
    });

    it('burnTokenOnRefusal: false lets the merchant retry after a refusal it caused; the default answers I003', async () => {
      for (const [options, code] of [
        [{}, 'I003'],
        [{ burnTokenOnRefusal: false }, '3001'],
      ] as const) {
        const sandbox = await frozen({ ...options });
        try {
          const auth = await sandbox.authenticate({ moid: 'burn-1', amount: 1004, method: 'CARD' });
          const c = client(sandbox);
          expect(
            (
              await c.approve(auth.fields.TxTid!, auth.fields.AuthToken!, '1004', {
                EdiDate: '20000101000000',
                SignData: approvalSignData(auth.fields.AuthToken!, MID, '1004', '20000101000000', KEY),
              })
            ).ResultCode,
          ).to.equal('W004');
          expect((await c.approve(auth.fields.TxTid!, auth.fields.AuthToken!, '1004')).ResultCode).to.equal(code);
        } finally {
          await sandbox.close();
        }
      }
    });

    it('refuses a malformed option at creation, naming it', () => {
      expect(() => createSandbox({ ediDateToleranceMs: -1 })).to.throw(/ediDateToleranceMs/);
      expect(() => createSandbox({ burnTokenOnRefusal: 'no' as unknown as boolean })).to.throw(/burnTokenOnRefusal/);
    });
  });

  describe('a key-in transaction is net-cancelled in exactly the documented cancel shape', () => {
    let sandbox: Sandbox;
    before(async () => {
      sandbox = await frozen();
    });
    after(() => sandbox.close());

    async function keyinTid(moid: string): Promise<string> {
      const nicepay = createNicepay({
        mid: KEYIN_MID,
        merchantKey: KEYIN_KEY,
        baseUrl: sandbox.url,
        clock: () => sandbox.clock.now(),
      });
      try {
        const r = await nicepay.keyin({
          moid,
          amount: 1004,
          goodsName: '키인',
          card: { number: '4111111111111111', expiry: '2812' },
        });
        if (r.status !== 'approved') throw new Error(`key-in not approved: ${JSON.stringify(r)}`);
        return r.payment.tid;
      } finally {
        await nicepay.close();
      }
    }

    it('accepts TID, MID, Moid, CancelAmt, CancelMsg, PartialCancelCode=0, EdiDate, SignData(MID+CancelAmt+EdiDate+key), NetCancel=1', async () => {
      const tid = await keyinTid('keyin-net-1');
      const c = client(sandbox, KEYIN_MID, KEYIN_KEY);
      const answer = await c.cancel(tid, 'keyin-net-1', '1004', false, { NetCancel: '1' });
      expect(answer).to.include({ ResultCode: '2001', CancelAmt: '000000001004' });
      expect(sandbox.ledger.get(tid)!.status).to.equal('net-cancelled');
    });

    it("refuses every other shape: the approval's Amt and sha256(MID+Amt+EdiDate+key), an AuthToken, a partial code", async () => {
      const tid = await keyinTid('keyin-net-2');
      const c = client(sandbox, KEYIN_MID, KEYIN_KEY);
      const e = c.edi();
      const old = await c.post('/webapi/cancel_process.jsp', {
        TID: tid,
        MID: KEYIN_MID,
        Amt: '1004',
        EdiDate: e,
        SignData: cancelSignData(KEYIN_MID, '1004', e, KEYIN_KEY),
        NetCancel: '1',
      });
      expect(old.ResultCode).to.equal('W001');
      expect(
        (await c.cancel(tid, 'keyin-net-2', '1004', false, { NetCancel: '1', AuthToken: 'x'.repeat(40) })).ResultCode,
      ).to.equal('W002');
      expect((await c.cancel(tid, 'keyin-net-2', '1004', true, { NetCancel: '1' })).ResultCode).to.equal('W002');
      expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
    });
  });

  describe('the data host', () => {
    let sandbox: Sandbox;
    before(async () => {
      sandbox = await frozen();
    });
    after(() => sandbox.close());

    const envelope = (sid: string, body: Record<string, string>) => ({
      header: { sid, trDtm: kstTimestamp14(sandbox.clock.now()), gubun: 'S', resCode: '', resMsg: '' },
      body,
    });
    const postJson = async (
      path: string,
      value: unknown,
    ): Promise<{ header: Record<string, string>; body: Record<string, unknown> }> => {
      const r = await postBytes(
        `${sandbox.url}${path}`,
        Buffer.from(JSON.stringify(value), 'utf8'),
        'application/json',
      );
      return JSON.parse(r.bytes.toString('utf8')) as { header: Record<string, string>; body: Record<string, unknown> };
    };

    it('answers a refusal with reqInfo, the echo of the request', async () => {
      const sent = envelope('0101001', { mid: MID, encKey: '0'.repeat(64) });
      const answer = await postJson('/om/api', sent);
      expect(answer.header.resCode).to.equal('1000');
      expect(answer.body.reqInfo).to.deep.equal(sent);
      const missing = envelope('0101001', { mid: MID });
      const second = await postJson('/om/api', missing);
      expect(second.header.resCode).to.equal('0210');
      expect(second.body.reqInfo).to.deep.equal(missing);
    });

    it('reconciliation follows refunds and partial cancels, not only net cancels', async () => {
      const c = client(sandbox);
      const { tid, answer } = await c.pay('recon-1', 8900, 'BANK', {
        cashReceipt: { type: 'income-deduction', identity: '01012345678' },
      });
      expect(answer.ResultCode).to.equal('4000');
      expect((await c.cancel(tid, 'recon-1-c1', '5000', true)).ResultCode).to.equal('2001');
      const usrId = `${MID}admin`;
      const query = () => {
        const e = envelope('0301002', { usrId, encKey: '', dt: '20260302', orgSvcCd: '02', idCl: '2', searchID: MID });
        e.body.encKey = reconEncKey('0301002', usrId, e.header.trDtm, KEY);
        return postJson('/recon/api', e);
      };
      const afterPartial = (await query()).body.data as Array<Record<string, unknown>>;
      expect(afterPartial.map((r) => [r.stateCd, r.goodsAmt])).to.deep.equal([
        ['0', 8900],
        ['1', 5000],
      ]);
      expect((await c.cancel(tid, 'recon-1-c2', '3900', true)).ResultCode).to.equal('2001');
      const afterAll = (await query()).body.data as Array<Record<string, unknown>>;
      expect(afterAll.map((r) => [r.stateCd, r.goodsAmt])).to.deep.equal([
        ['0', 8900],
        ['1', 5000],
        ['1', 3900],
      ]);
    });

    it("lists a bank transfer's receipt under the RcptTID and RcptAuthCode its approval answered, under 02 and not under 04 (a receipt on its own)", async () => {
      const c = client(sandbox);
      const { tid, answer } = await c.pay('recon-ids', 6600, 'BANK', {
        cashReceipt: { type: 'income-deduction', identity: '01012345678' },
      });
      expect(answer.RcptTID).to.have.length(30);
      const usrId = `${MID}admin`;
      const rows = async (orgSvcCd: string) => {
        const e = envelope('0301002', { usrId, encKey: '', dt: '20260302', orgSvcCd, idCl: '2', searchID: MID });
        e.body.encKey = reconEncKey('0301002', usrId, e.header.trDtm, KEY);
        return ((await postJson('/recon/api', e)).body.data as Array<Record<string, unknown>>).filter(
          (r) => r.otid === tid,
        );
      };
      expect((await rows('02')).map((r) => [r.tid, r.appNo])).to.deep.equal([[answer.RcptTID, answer.RcptAuthCode]]);
      expect(await rows('04')).to.deep.equal([]);
    });

    it('a decline fault on reconciliation answers with the request sid, as every data host answer does', async () => {
      const usrId = `${MID}admin`;
      const e = envelope('0301002', { usrId, encKey: '', dt: '20260302', orgSvcCd: '02', idCl: '2', searchID: MID });
      e.body.encKey = reconEncKey('0301002', usrId, e.header.trDtm, KEY);
      sandbox.faults.inject({ target: 'data', kind: 'decline', resultCode: '9999' });
      expect((await postJson('/recon/api', e)).header).to.include({ sid: '0301002', resCode: '9999' });
    });

    it('a full cancel marks the receipt cancelled', async () => {
      const c = client(sandbox);
      const { tid } = await c.pay('recon-2', 7000, 'BANK', {
        cashReceipt: { type: 'income-deduction', identity: '01012345678' },
      });
      expect((await c.cancel(tid, 'recon-2-c', '7000')).ResultCode).to.equal('2001');
      const usrId = `${MID}admin`;
      const e = envelope('0301002', { usrId, encKey: '', dt: '20260302', orgSvcCd: '02', idCl: '2', searchID: MID });
      e.body.encKey = reconEncKey('0301002', usrId, e.header.trDtm, KEY);
      const rows = ((await postJson('/recon/api', e)).body.data as Array<Record<string, unknown>>).filter(
        (r) => r.otid === tid,
      );
      expect(rows.map((r) => [r.stateCd, r.goodsAmt, r.ccDt])).to.deep.equal([['1', 7000, '20260302']]);
    });
  });

  describe('state the sandbox reports', () => {
    it('an issued virtual account not yet paid is Status 9; paid it is 0', async () => {
      const sandbox = await frozen();
      try {
        const c = client(sandbox);
        const { tid, answer } = await c.pay('vbank-st', 10000, 'VBANK');
        expect(answer.ResultCode).to.equal('4100');
        expect((await c.status(tid)).Status).to.equal('9');
        await sandbox.deposit(tid);
        expect((await c.status(tid)).Status).to.equal('0');
      } finally {
        await sandbox.close();
      }
    });

    it('takes no deposit into a virtual account past its expiry: refused, no notice, still Status 9', async () => {
      const receiver = await noticeReceiver();
      const sandbox = await frozen({
        merchants: [{ mid: MID, merchantKey: KEY, notificationUrl: receiver.url }],
        testAutoCancel: false,
      });
      try {
        const c = client(sandbox);
        const { tid, answer } = await c.pay('vbank-late', 10000, 'VBANK');
        // The sandbox's own expiry: 7 days on, 23:59:59 KST.
        expect([answer.VbankExpDate, answer.VbankExpTime]).to.deep.equal(['20260309', '235959']);
        sandbox.clock.set(fromKst(2026, 3, 10, 0, 0, 0));
        let refused = '';
        await sandbox.deposit(tid).catch((err: Error) => {
          refused = err.message;
        });
        expect(refused).to.match(/expired at 20260309 235959 KST/);
        await sandbox.notices.idle();
        expect(receiver.notices).to.deep.equal([]);
        expect((await c.status(tid)).Status).to.equal('9');
      } finally {
        await sandbox.close();
        await receiver.close();
      }
    });

    it("cancels a published test MID's payments at 23:30 KST on the virtual clock, and only then", async () => {
      const sandbox = createSandbox({ clock: () => fromKst(2026, 3, 2, 23, 0) });
      sandbox.clock.freeze();
      await sandbox.listen(0);
      try {
        expect([...PUBLISHED_TEST_MIDS]).to.deep.equal(['nicepay00m', 'nictest04m']);
        const c = client(sandbox);
        const { tid } = await c.pay('late-1', 1004);
        sandbox.clock.advance(29 * 60 * 1000 + 59_000);
        expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
        sandbox.clock.advance(1000);
        const entry = sandbox.ledger.get(tid)!;
        expect(entry.status).to.equal('cancelled');
        expect(entry.cancels!.map((x) => [x.amount, x.reason, kstTimestamp14(x.at)])).to.deep.equal([
          [1004, TEST_AUTO_CANCEL_REASON, '20260302233000'],
        ]);
        expect((await c.status(tid)).Status).to.equal('1');
        expect((await c.cancel(tid, 'late-1', '1004')).ResultCode).to.equal('2015');
        // Approved after 23:30: it stands until 23:30 of the next day.
        const { tid: after } = await c.pay('late-2', 1004);
        sandbox.clock.set(fromKst(2026, 3, 3, 23, 29));
        expect(sandbox.ledger.get(after)!.status).to.equal('approved');
        // A ledger cleared meanwhile has nothing left to cancel, and moving the clock says so quietly.
        sandbox.ledger.clear();
        expect(() => sandbox.clock.set(fromKst(2026, 3, 4, 0, 0))).not.to.throw();
      } finally {
        await sandbox.close();
      }
    });

    it('keeps payments past 23:30 with testAutoCancel: false, and for a merchant that is not a published test MID', async () => {
      const other = { mid: 'shop00001m', merchantKey: 'k'.repeat(64) };
      for (const options of [{ testAutoCancel: false }, { merchants: [other] }]) {
        const sandbox = createSandbox({ clock: () => fromKst(2026, 3, 2, 23, 0), ...options });
        sandbox.clock.freeze();
        await sandbox.listen(0);
        try {
          const m = 'merchants' in options ? other : { mid: MID, merchantKey: KEY };
          const { tid } = await client(sandbox, m.mid, m.merchantKey).pay('kept-1', 1004);
          sandbox.clock.advance(60 * 60 * 1000);
          expect(sandbox.ledger.get(tid)!.status).to.equal('approved');
        } finally {
          await sandbox.close();
        }
      }
    });
  });
});
