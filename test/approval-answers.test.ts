import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { padAmount } from '../src/wire/amount.js';
import { decodeForm, encodeForm } from '../src/wire/form-codec.js';
import { approvalResponseSignature, authReturnSignature, cancelResponseSignature } from '../src/wire/signatures.js';
import { MERCHANT_KEY, MID, startShop, type TestShop } from './helpers/shop.js';

/**
 * A scripted gateway on loopback: answers each approval with what the test says, so answers
 * the sandbox never gives (another method's success code, another order) can be checked.
 */
describe('checkoutReturn against answers the sandbox does not give', () => {
  let gateway: Server;
  let url = '';
  let shop: TestShop;
  let answer: (form: Record<string, string>) => Record<string, string> | string = () => ({});
  const calls: Array<{ path: string; form: Record<string, string> }> = [];

  before(async () => {
    gateway = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = { ...decodeForm(Buffer.concat(chunks), 'euc-kr') };
        calls.push({ path: req.url ?? '', form });
        const body = req.url?.endsWith('cancel_process.jsp')
          ? {
              ResultCode: '2001',
              ResultMsg: '취소 성공',
              TID: form.TID!,
              CancelAmt: padAmount(Number(form.Amt)),
              Signature: cancelResponseSignature(form.TID!, MID, padAmount(Number(form.Amt)), MERCHANT_KEY),
            }
          : answer(form);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      });
    });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    shop = await startShop({ nicepay: { baseUrl: url }, route: { responseCharset: 'utf-8' } });
  });
  after(async () => {
    await shop.close();
    await new Promise((r) => gateway.close(r));
  });

  function authReturn(moid: string, amount: number, method = 'CARD') {
    const tid = `${MID}0101261121120000${String(calls.length).padStart(4, '0')}`;
    const token = 'T'.repeat(40);
    const fields = {
      AuthResultCode: '0000',
      AuthResultMsg: '인증 성공',
      AuthToken: token,
      PayMethod: method,
      MID,
      Moid: moid,
      Amt: String(amount),
      TxTid: tid,
      NextAppURL: `${url}/webapi/pay_process.jsp`,
      NetCancelURL: `${url}/webapi/cancel_process.jsp`,
      Signature: authReturnSignature(token, MID, String(amount), MERCHANT_KEY),
    };
    shop.orders.set(moid, amount);
    return { tid, body: encodeForm(fields, 'euc-kr').toString('latin1') };
  }
  /** The gateway paths the shop posted for `tid`, in order. */
  const pathsOf = (tid: string): string[] => calls.filter((c) => c.form.TID === tid).map((c) => c.path);
  const signed = (f: Record<string, string>) => ({
    ...f,
    Signature: approvalResponseSignature(f.TID!, f.MID!, f.Amt!, MERCHANT_KEY),
  });

  it("another method's success code is an unknown outcome: net-cancelled, never 'declined'", async () => {
    // The answer omits PayMethod, so the (unsigned) auth return's VBANK is all there is, and
    // 3001 is not VBANK's success code: a buyer who edited PayMethod must not turn a charge
    // into "declined, nothing charged".
    const { tid, body } = authReturn('other-method', 5_000, 'VBANK');
    answer = (form) =>
      signed({
        ResultCode: '3001',
        ResultMsg: '성공',
        TID: form.TID!,
        MID,
        Moid: 'other-method',
        Amt: padAmount(5_000),
      });
    const res = await request(shop.app).post('/pay/return').type('form').send(body);
    expect(res.status).to.equal(502);
    expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
    expect(pathsOf(tid)).to.deep.equal(['/webapi/pay_process.jsp', '/webapi/cancel_process.jsp']);
  });

  it("an A127 refusal that names no order, or another, is nobody's (400 NICEPAY_DECLINE_ORDER_MISMATCH); one naming the return's Moid is 409 NICEPAY_MOID_CHARGED_BEFORE", async () => {
    for (const [named, status, code] of [
      [undefined, 400, 'NICEPAY_DECLINE_ORDER_MISMATCH'],
      ['someone-else', 400, 'NICEPAY_DECLINE_ORDER_MISMATCH'],
      ['a127-order', 409, 'NICEPAY_MOID_CHARGED_BEFORE'],
    ] as const) {
      const { tid, body } = authReturn('a127-order', 7_000);
      answer = (form) => ({
        ResultCode: 'A127',
        ResultMsg: '이미 승인된 주문번호(Moid)입니다.',
        TID: form.TID!,
        MID,
        ...(named ? { Moid: named } : {}),
      });
      const res = await request(shop.app).post('/pay/return').type('form').send(body);
      expect([res.status, res.body.code], String(named)).to.deep.equal([status, code]);
      // Nothing was charged for this TID: nothing to reverse.
      expect(pathsOf(tid)).to.deep.equal(['/webapi/pay_process.jsp']);
    }
  });

  for (const code of ['1620', '2056']) {
    it(`a card-company timeout (${code}) is an unknown outcome: net-cancelled, never declined`, async () => {
      const { tid, body } = authReturn(`timeout-${code}`, 6_100);
      answer = (form) => ({
        ResultCode: code,
        ResultMsg: '카드사 응답 지연',
        TID: form.TID!,
        MID,
        Moid: `timeout-${code}`,
      });
      const res = await request(shop.app).post('/pay/return').type('form').send(body);
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
      expect(pathsOf(tid)).to.deep.equal(['/webapi/pay_process.jsp', '/webapi/cancel_process.jsp']);
    });
  }

  it('an answer naming ResultCode twice (a signed 3001 and a 9999) is an unknown outcome: net-cancelled, never declined', async () => {
    const { tid, body } = authReturn('two-codes', 6_000);
    answer = (form) => {
      const ok = signed({
        ResultCode: '3001',
        ResultMsg: '성공',
        TID: form.TID!,
        MID,
        Moid: 'two-codes',
        Amt: padAmount(6_000),
        PayMethod: 'CARD',
      });
      // JSON.parse keeps the last ResultCode (a decline), a KV reader the first (a payment).
      return JSON.stringify(ok).replace(/}$/, ',"ResultCode":"9999"}');
    };
    const before = shop.approved.length;
    const res = await request(shop.app).post('/pay/return').type('form').send(body);
    expect(res.status).to.equal(502);
    expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
    expect(String((shop.errors.at(-1) as Error).message)).to.match(/twice/);
    expect(shop.approved.length).to.equal(before);
    expect(pathsOf(tid)).to.deep.equal(['/webapi/pay_process.jsp', '/webapi/cancel_process.jsp']);
  });

  for (const code of ['3001 ', ' 3001', '3001\t', 'a000']) {
    it(`a signed answer whose ResultCode is ${JSON.stringify(code)}, not exactly a documented code, is an unknown outcome: net-cancelled, never declined`, async () => {
      const moid = `near-${calls.length}`;
      const { tid, body } = authReturn(moid, 6_200);
      answer = (form) =>
        signed({
          ResultCode: code,
          ResultMsg: '?',
          TID: form.TID!,
          MID,
          Moid: moid,
          Amt: padAmount(6_200),
          PayMethod: 'CARD',
        });
      const before = shop.approved.length;
      const res = await request(shop.app).post('/pay/return').type('form').send(body);
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
      expect(String((shop.errors.at(-1) as Error).message)).to.match(/not exactly a documented code/);
      expect(shop.approved.length).to.equal(before);
      expect(pathsOf(tid)).to.deep.equal(['/webapi/pay_process.jsp', '/webapi/cancel_process.jsp']);
    });
  }

  it('a net-cancel answer whose ResultCode is "2001 " confirms nothing: netCancel failed', async () => {
    const { body } = authReturn('near-cancel', 6_300);
    answer = () => ({ ResultCode: '3001' }); // unsigned: net-cancelled
    const real = gateway.listeners('request')[0] as (req: unknown, res: unknown) => void;
    gateway.removeAllListeners('request');
    gateway.on('request', (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (!req.url?.endsWith('cancel_process.jsp')) return real(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = decodeForm(Buffer.concat(chunks), 'euc-kr');
        res.end(
          JSON.stringify({
            ResultCode: '2001 ',
            TID: form.TID!,
            CancelAmt: padAmount(6_300),
            Signature: cancelResponseSignature(form.TID!, MID, padAmount(6_300), MERCHANT_KEY),
          }),
        );
      });
    });
    try {
      const res = await request(shop.app).post('/pay/return').type('form').send(body);
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ netCancel: 'failed' });
    } finally {
      gateway.removeAllListeners('request');
      gateway.on('request', real);
    }
  });

  it('a net-cancel answer naming a field twice confirms nothing: netCancel failed, outcome unknown', async () => {
    const { body } = authReturn('two-cancel', 6_100);
    answer = () => ({ ResultCode: '3001' }); // unsigned: net-cancelled
    const real = gateway.listeners('request')[0] as (req: unknown, res: unknown) => void;
    gateway.removeAllListeners('request');
    gateway.on('request', (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (!req.url?.endsWith('cancel_process.jsp')) return real(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = decodeForm(Buffer.concat(chunks), 'euc-kr');
        const ok = {
          ResultCode: '2001',
          TID: form.TID!,
          CancelAmt: padAmount(6_100),
          Signature: cancelResponseSignature(form.TID!, MID, padAmount(6_100), MERCHANT_KEY),
        };
        // Last-wins JSON.parse would read the trailing 2001 and call the reversal confirmed.
        res.end(JSON.stringify(ok).replace(/^{/, '{"ResultCode":"9999",'));
      });
    });
    try {
      const res = await request(shop.app).post('/pay/return').type('form').send(body);
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ netCancel: 'failed' });
    } finally {
      gateway.removeAllListeners('request');
      gateway.on('request', real);
    }
  });

  it('an approval of another order (Moid) is net-cancelled, and the shop records nothing', async () => {
    const { tid, body } = authReturn('order-B', 7_000);
    answer = (form) =>
      signed({
        ResultCode: '3001',
        ResultMsg: '성공',
        TID: form.TID!,
        MID,
        Moid: 'order-A',
        Amt: padAmount(7_000),
        PayMethod: 'CARD',
      });
    const before = shop.approved.length;
    const res = await request(shop.app).post('/pay/return').type('form').send(body);
    expect(res.status).to.equal(502);
    expect(res.body).to.include({ code: 'NICEPAY_ANSWER_UNVERIFIED', netCancel: 'succeeded' });
    expect(shop.approved.length).to.equal(before);
    expect(calls.filter((c) => c.form.TID === tid)).to.have.length(2);
  });

  it('reads only what the answer carries: a polluted Object.prototype cannot supply a missing field', async () => {
    const { tid, body } = authReturn('polluted', 8_000);
    // An answer with no ResultCode and no Moid; something else in the process put both on
    // Object.prototype. Read as inherited members, they would make it "approved" for the order.
    answer = (form) => signed({ ResultMsg: '?', TID: form.TID!, MID, Amt: padAmount(8_000), PayMethod: 'CARD' });
    const proto = Object.prototype as Record<string, unknown>;
    proto.ResultCode = '3001';
    proto.Moid = 'polluted';
    try {
      const res = await request(shop.app).post('/pay/return').type('form').send(body);
      expect(res.status).to.equal(502);
      expect(res.body).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', netCancel: 'succeeded' });
    } finally {
      delete proto.ResultCode;
      delete proto.Moid;
    }
    expect(calls.filter((c) => c.form.TID === tid)).to.have.length(2);
  });

  it('a plain refusal code is declined and nothing is cancelled', async () => {
    const { tid, body } = authReturn('refused', 9_000);
    answer = (form) => ({
      ResultCode: 'A123',
      ResultMsg: '인증 금액과 승인 금액이 다릅니다',
      TID: form.TID!,
      MID,
      Moid: 'refused',
      Amt: form.Amt!,
    });
    const res = await request(shop.app).post('/pay/return').type('form').send(body);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'declined', code: 'A123' });
    expect(calls.filter((c) => c.form.TID === tid)).to.have.length(1);
  });
});
