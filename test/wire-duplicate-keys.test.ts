/**
 * hasDuplicateKeys (src/wire/duplicate-keys.ts) and what key-in makes of an answer that names
 * a field twice: the outcome is unknown, and the charge is reversed.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNicepay } from '../src/index.js';
import { hasDuplicateKeys } from '../src/wire/duplicate-keys.js';
import { WireFormatError } from '../src/wire/charset.js';
import { parseGatewayBody } from '../src/wire/response-body.js';
import { decodeForm } from '../src/wire/form-codec.js';
import { padAmount } from '../src/wire/amount.js';
import { parseDataResponse } from '../src/data-api/parse-response.js';

describe('hasDuplicateKeys', () => {
  const twice = (text: string): boolean => hasDuplicateKeys(text, JSON.parse(text));
  it('finds a JSON key named twice at any depth, escapes resolved', () => {
    expect(twice('{"ResultCode":"3001","ResultCode":"9999"}')).to.equal(true);
    expect(twice('{"A":"1", "B" : {"x":1,"x":2}}')).to.equal(true);
    expect(twice('{"A":"1","\\u0041":"2"}')).to.equal(true);
    expect(twice('{"A":[{"y":1},{"y":2,"y":3}]}')).to.equal(true);
    expect(twice('[{"A":1},{"A":2}]')).to.equal(false);
    expect(twice('{"A":"\\"A\\":","B":"{\\"A\\":1}"}')).to.equal(false);
    expect(twice('{"A":"x\\\\","B":"y"}')).to.equal(false);
    expect(twice('{"ResultCode":"3001","ResultMsg":"성공"}')).to.equal(false);
  });

  it('reads Korean bytes as latin1 without false alarms (EUC-KR and UTF-8)', () => {
    for (const bytes of [
      Buffer.from('{"Msg":"카드 결제 성공","A":"똠"}', 'utf8'),
      Buffer.from([0x7b, 0x22, 0x4d, 0x22, 0x3a, 0x22, 0xb0, 0x41, 0xc7, 0x22, 0x7d]),
    ]) {
      expect(twice(bytes.toString('latin1'))).to.equal(false);
    }
  });

  it("counts only the answer's own keys when Object.prototype has an enumerable member", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'x';
    try {
      expect(twice('{"A":"1","B":{"C":"2"}}')).to.equal(false);
    } finally {
      delete proto.polluted;
    }
  });
});

describe('parseGatewayBody refuses an answer that names a field twice (what approve relies on)', () => {
  const twice = [
    '{"ResultCode":"3001","ResultCode":"9999"}',
    '{"A":"1", "B" : {"x":1,"x":2}}',
    '{"A":"1","\\u0041":"2"}',
    '{"A":[{"y":1,"y":2}]}',
    '{"__proto__":"a","__proto__":"b"}',
  ];
  const once = [
    '[{"A":1},{"A":2}]',
    '{"A":"\\"A\\":","B":"{\\"A\\":1}"}',
    '{"A":{"x":1},"B":{"x":2}}',
    '{"A":"x\\\\","B":"y"}',
    '{ "A" :\t"1" ,\r\n"B":[{"A":1}] }',
  ];
  it('JSON: a name given twice in any object, at any depth, escapes resolved, is refused; names given once in different objects are read', () => {
    for (const text of twice) {
      expect(() => parseGatewayBody(Buffer.from(text), 'utf-8', 'JSON'), text).to.throw(
        WireFormatError,
        /names a field twice/,
      );
    }
    for (const text of once.slice(1))
      expect(() => parseGatewayBody(Buffer.from(text), 'utf-8', 'JSON'), text).not.to.throw();
  });

  it('KV: a repeated key is refused too; EUC-KR Korean values raise no false alarm', () => {
    expect(() => parseGatewayBody(Buffer.from('ResultCode=3001&ResultCode=9999'), 'utf-8', 'KV')).to.throw(
      WireFormatError,
      /names a field twice/,
    );
    const euckr = Buffer.concat([
      Buffer.from('{"ResultMsg":"'),
      Buffer.from([0xb0, 0x41, 0xc7, 0xd1]),
      Buffer.from('","A":"1"}'),
    ]);
    expect(parseGatewayBody(euckr, 'euc-kr', 'JSON').A).to.equal('1');
  });
});

describe('key-in: an answer that names a field twice', () => {
  let gateway: Server;
  let url = '';
  before(async () => {
    gateway = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = decodeForm(Buffer.concat(chunks), 'euc-kr');
        // The first ResultCode is a decline (what parseKv keeps), the second a payment.
        res.end(
          `ResultCode=3011&ResultMsg=refused&TID=${form.TID}&Amt=${padAmount(Number(form.Amt))}&ResultCode=3001&CardNo=411111******1111`,
        );
      });
    });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  after(() => new Promise((r) => gateway.close(r)));

  it('is NICEPAY_OUTCOME_UNKNOWN with the TID, never "declined", and a resubmission does not charge again', async () => {
    const nicepay = createNicepay({ mid: 'nictest04m', merchantKey: 'k'.repeat(64), baseUrl: url });
    try {
      const input = {
        moid: 'dup-kv',
        amount: 1_000,
        goodsName: 'g',
        card: { number: '4111111111111111', expiry: '9912' },
        ediType: 'KV' as const,
      };
      const err = await nicepay.keyin(input).catch((e: unknown) => e);
      expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', status: 502, moid: 'dup-kv' });
      expect((err as { tid?: string }).tid).to.match(/^nictest04m/);
      expect((err as Error).message).to.match(/twice/);
      const again = await nicepay.keyin(input).catch((e: unknown) => e);
      expect(again).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    } finally {
      await nicepay.close();
    }
  });
});

describe('data host: an answer that names a field twice', () => {
  it('is NICEPAY_OUTCOME_UNKNOWN for a state change and NICEPAY_GATEWAY_ERROR for a query, whichever copy is last', () => {
    const answer = '{"header":{"sid":"0102001","resCode":"9999","resCode":"0000"},"body":{"seq":"1"}}';
    expect(() => parseDataResponse(answer, '0102001', true))
      .to.throw()
      .with.property('code', 'NICEPAY_OUTCOME_UNKNOWN');
    expect(() => parseDataResponse(answer, '0101001', false))
      .to.throw()
      .with.property('code', 'NICEPAY_GATEWAY_ERROR');
    const body = '{"header":{"resCode":"0000"},"body":{"seq":"1","seq":"2"}}';
    expect(() => parseDataResponse(body, '0102001', true)).to.throw(/named twice/);
  });
});
