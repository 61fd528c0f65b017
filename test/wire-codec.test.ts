import { expect } from 'chai';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { byteLength, decodeBytes, encodeText, normalizeCharset } from '../src/wire/charset.js';
import { decodeForm, encodeForm } from '../src/wire/form-codec.js';
import { parseKv, serializeKv } from '../src/wire/kv.js';
import { parseGatewayBody } from '../src/wire/response-body.js';
import { mapPayment } from '../src/wire/payment-mapper.js';

describe('wire: EUC-KR (CP949) and UTF-8 form codec', () => {
  it('encodes CP949-only syllables as their CP949 bytes (똠 = 8C63, 햏 = C164)', () => {
    const body = encodeForm({ BuyerName: '똠햏' }, 'euc-kr').toString('latin1');
    expect(body).to.equal('BuyerName=%8Cc%C1d');
  });

  it('round-trips Korean, spaces and reserved characters in both charsets', () => {
    const fields = { GoodsName: '똠얌꿍 세트 & 햏', Moid: 'a=b&c', Empty: '' };
    for (const cs of ['euc-kr', 'utf-8'] as const) {
      const decoded = decodeForm(encodeForm(fields, cs), cs);
      expect({ ...decoded }).to.deep.equal(fields);
    }
  });

  it('decodes what a browser sends for an EUC-KR page (+ for space, upper or lower hex)', () => {
    const bytes = Buffer.from('BuyerName=%c8%ab%b1%e6%b5%bf+%8Cc&Amt=1004', 'latin1');
    expect({ ...decodeForm(bytes, 'euc-kr') }).to.deep.equal({ BuyerName: '홍길동 똠', Amt: '1004' });
  });

  it('decodes CP949-only syllables from their raw bytes', () => {
    expect(decodeBytes(Buffer.from([0x8c, 0x63, 0xc1, 0x64]), 'euc-kr')).to.equal('똠햏');
    expect(decodeBytes(iconv.encode('뷁 똠방각하', 'cp949'), 'euc-kr')).to.equal('뷁 똠방각하');
  });

  it('rejects malformed escapes, invalid CP949 and invalid UTF-8', () => {
    expect(() => decodeForm(Buffer.from('a=%G1'), 'euc-kr')).to.throw(/percent-escape/);
    expect(() => decodeForm(Buffer.from('a=%4'), 'utf-8')).to.throw(/percent-escape/);
    expect(() => decodeForm(Buffer.from('a=%FF%FF'), 'euc-kr')).to.throw(/EUC-KR/);
    expect(() => decodeForm(Buffer.from('a=%C3%28'), 'utf-8')).to.throw(/UTF-8/);
  });

  it('unescapes ASCII escapes, plus signs and mixed-case hex the same in both charsets', () => {
    const body = Buffer.from('NextAppURL=https%3A%2F%2Fh.example%2Fp%3Fa%3D1%2B2&Msg=a+b%2bc%20d&Mail=x%40y.kr');
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      expect({ ...decodeForm(body, charset) }).to.deep.equal({
        NextAppURL: 'https://h.example/p?a=1+2',
        Msg: 'a b+c d',
        Mail: 'x@y.kr',
      });
    }
    expect(() => decodeForm(Buffer.from('a=%2'), 'euc-kr')).to.throw(/percent-escape/);
    expect(() => decodeForm(Buffer.from('a=%g0'), 'utf-8')).to.throw(/percent-escape/);
  });

  it('decodes any body exactly as splitting, unescaping every part to bytes and decoding would', () => {
    // The reference: no shortcut for plain or ASCII-escaped parts, every part through bytes.
    const reference = (body: Buffer, charset: 'euc-kr' | 'utf-8'): unknown => {
      try {
        const out: Record<string, string> = {};
        for (const segment of body.toString('latin1').split('&')) {
          if (segment === '') continue;
          const eq = segment.indexOf('=');
          const [k, v] = eq === -1 ? [segment, undefined] : [segment.slice(0, eq), segment.slice(eq + 1)];
          const part = (p: string): string => {
            const bytes: number[] = [];
            for (let i = 0; i < p.length; i++) {
              if (p[i] === '+') bytes.push(0x20);
              else if (p[i] === '%') {
                if (!/^[0-9A-Fa-f]{2}$/.test(p.slice(i + 1, i + 3))) throw new Error('escape');
                bytes.push(parseInt(p.slice(i + 1, i + 3), 16));
                i += 2;
              } else bytes.push(p.charCodeAt(i));
            }
            return decodeBytes(Buffer.from(bytes), charset);
          };
          const key = part(k!);
          if (Object.hasOwn(out, key)) throw new Error('duplicate');
          out[key] = v === undefined ? '' : part(v);
        }
        return out;
      } catch {
        return 'error';
      }
    };
    const actual = (body: Buffer, charset: 'euc-kr' | 'utf-8'): unknown => {
      try {
        return { ...decodeForm(body, charset, { maxFields: 1_000 }) };
      } catch {
        return 'error';
      }
    };
    const piece = fc.constantFrom(
      'a',
      'Z',
      '9',
      '=',
      '&',
      '+',
      '%',
      '%4',
      '%41',
      '%2B',
      '%26',
      '%3D',
      '%7e',
      '%C8%AB',
      '%c8',
      '%8Cc',
      '%EA%B0%80',
      '%G1',
      '\xb0\xa1',
      '\xc8',
      '~',
      ' ',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }),
        fc.constantFrom('euc-kr', 'utf-8') as fc.Arbitrary<'euc-kr' | 'utf-8'>,
        (pieces, charset) => {
          const body = Buffer.from(pieces.join(''), 'latin1');
          expect(actual(body, charset)).to.deep.equal(reference(body, charset));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('rejects duplicate keys and too many fields, keeps __proto__ a plain key', () => {
    expect(() => decodeForm(Buffer.from('Amt=1&Amt=2'), 'utf-8')).to.throw(/more than once/);
    expect(() => decodeForm(Buffer.from('Amt=&Amt=2'), 'utf-8')).to.throw(/more than once/); // an empty first value is still there
    expect(() => decodeForm(Buffer.from('__proto__=a&__proto__=b'), 'utf-8')).to.throw(/more than once/);
    expect(() => decodeForm(Buffer.from('a=1&b=2&c=3'), 'utf-8', { maxFields: 2 })).to.throw(/more than 2/);
    const f = decodeForm(Buffer.from('__proto__=x&constructor=y'), 'utf-8');
    expect(Object.keys(f)).to.deep.equal(['__proto__', 'constructor']);
    // biome-ignore lint/suspicious/noProto: an own field named __proto__ is what is tested
    expect(f.__proto__).to.equal('x');
    expect(f.constructor).to.equal('y');
    const g = decodeForm(Buffer.from('a=1'), 'utf-8');
    // biome-ignore lint/suspicious/noProto: a form without the field must not reach Object.prototype's
    expect([g.constructor, g.toString, g.__proto__, g.hasOwnProperty]).to.deep.equal([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(Reflect.ownKeys(Object.getPrototypeOf(g) as object)).to.deep.equal([]);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(g) as object)).to.equal(null);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
  });

  it('refuses text EUC-KR cannot carry instead of sending "?"', () => {
    expect(() => encodeText('상품 😀', 'euc-kr', 'GoodsName')).to.throw(/cannot encode/);
    expect(encodeText('😀', 'utf-8').length).to.equal(4);
  });

  it('counts bytes in the wire encoding: 2 per Hangul in EUC-KR, 3 in UTF-8', () => {
    expect(byteLength('가나다abc', 'euc-kr')).to.equal(9);
    expect(byteLength('가나다abc', 'utf-8')).to.equal(12);
  });

  it('normalises charset labels', () => {
    expect(normalizeCharset('EUC-KR')).to.equal('euc-kr');
    expect(normalizeCharset('ks_c_5601-1987')).to.equal('euc-kr');
    expect(normalizeCharset('"UTF8"')).to.equal('utf-8');
    expect(normalizeCharset('latin1')).to.equal(undefined);
  });
});

describe('wire: KV and response bodies', () => {
  it('parses KV with Korean values and an & inside a value', () => {
    const body = serializeKv({ ResultCode: '3001', ResultMsg: '카드 결제 성공', MallReserved: 'a&b=c&d' }, 'euc-kr');
    const kv = parseKv(body, 'euc-kr');
    expect(kv.ResultCode).to.equal('3001');
    expect(kv.ResultMsg).to.equal('카드 결제 성공');
    // "b=c" looks like a pair; only segments without a valid key continue a value.
    expect(kv.MallReserved).to.equal('a');
    expect(kv.b).to.equal('c&d');
  });

  it('parses JSON by the charset asked for and stringifies scalars', () => {
    const body = iconv.encode('{"ResultCode":"3001","Amt":1004,"X":null,"BuyerName":"똠"}', 'cp949');
    const f = parseGatewayBody(body, 'euc-kr', 'JSON');
    expect({ ...f }).to.deep.equal({ ResultCode: '3001', Amt: '1004', X: '', BuyerName: '똠' });
  });

  it('keeps a JSON answer\'s "__proto__" as an own field and freezes the record', () => {
    const f = parseGatewayBody(
      Buffer.from('{"__proto__":{"polluted":"x"},"ResultCode":"3001","Amt":"000000001004"}'),
      'utf-8',
      'JSON',
    );
    expect(Object.getPrototypeOf(f)).to.equal(Object.prototype);
    expect(Object.hasOwn(f, '__proto__')).to.equal(true);
    // biome-ignore lint/suspicious/noProto: an own field named __proto__ is what is tested
    expect(f['__proto__']).to.equal('{"polluted":"x"}');
    expect((f as Record<string, unknown>).polluted).to.equal(undefined);
    expect(Object.isFrozen(f)).to.equal(true);
    const p = mapPayment(f, 'CARD', 1004);
    expect(p.raw).to.equal(f, 'the frozen answer is payment.raw as it is');
    expect(Object.keys(p.raw)).to.deep.equal(['__proto__', 'ResultCode', 'Amt']);
  });

  it("gives a KV answer's fields to payment.raw as a frozen plain copy", () => {
    const f = parseGatewayBody(Buffer.from('ResultCode=3001&Amt=000000001004'), 'utf-8', 'KV');
    expect(Object.getPrototypeOf(f)).to.not.equal(Object.prototype);
    const p = mapPayment(f, 'CARD', 1004);
    expect(Object.getPrototypeOf(p.raw)).to.equal(Object.prototype);
    expect(Object.isFrozen(p.raw)).to.equal(true);
    expect({ ...p.raw }).to.deep.equal({ ...f });
  });

  it('refuses HTML, arrays and truncated JSON', () => {
    expect(() => parseGatewayBody(Buffer.from('<html>error</html>'), 'utf-8', 'JSON')).to.throw(/not JSON/);
    expect(() => parseGatewayBody(Buffer.from('[1]'), 'utf-8', 'JSON')).to.throw(/not an object/);
    expect(() => parseGatewayBody(Buffer.from('{"ResultCode":"30'), 'utf-8', 'JSON')).to.throw(/not JSON/);
    expect(() => parseGatewayBody(Buffer.from('<html>'), 'utf-8', 'KV')).to.throw(/Key=value/);
  });
});
