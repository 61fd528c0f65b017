/**
 * JSON gateway answers (src/wire/response-body.ts): parsed as latin1 with only the values
 * beyond ASCII decoded, or decoded whole first when that reading cannot be exact. What a shop
 * sees of an answer: Korean values (CP949's extra syllables too), values that are not strings,
 * white space and a byte-order mark around the answer, and bad bytes; and that the two
 * readings never differ.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { encodeText, WireFormatError } from '../src/wire/charset.js';
import { parseGatewayBody } from '../src/wire/response-body.js';

describe('wire: JSON gateway answers', () => {
  it('decodes the Korean values of a real-shaped answer in both charsets', () => {
    const json =
      '{"ResultCode":"3001","ResultMsg":"카드 결제 성공","GoodsName":"똠 상품 (a) 나","BuyerName":"홍길동","Amt":"000000001004","MallReserved":"a\\":\\"b"}';
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const body = encodeText(json, charset);
      expect({ ...parseGatewayBody(body, charset, 'JSON') }).to.deep.equal(JSON.parse(json));
    }
  });

  it('turns non-string values into text', () => {
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const f = parseGatewayBody(
        encodeText('{"A":1,"B":null,"C":{"d":"한"},"D":"카드","E" : true}', charset),
        charset,
        'JSON',
      );
      expect({ ...f }).to.deep.equal({ A: '1', B: '', C: '{"d":"한"}', D: '카드', E: 'true' });
      expect(Object.isFrozen(f)).to.equal(true);
    }
  });

  it('keeps a byte-order mark that starts a value, as decoding the whole answer does', () => {
    // UTF-8 only: CP949 has no byte-order mark.
    const f = parseGatewayBody(
      Buffer.from('{"ResultCode":"3001","ResultMsg":"\uFEFF카드 결제 성공","B":["\uFEFFx"]}', 'utf8'),
      'utf-8',
      'JSON',
    );
    expect(f.ResultMsg).to.equal('\uFEFF카드 결제 성공');
    expect(f.B).to.equal('["\uFEFFx"]');
  });

  it('drops a byte-order mark and white space around the answer', () => {
    for (const [charset, around] of [
      ['euc-kr', ' {"A":"카"}\u3000\v'],
      ['utf-8', '\ufeff {"A":"카"}\u3000\u00a0\v'],
    ] as const) {
      expect({ ...parseGatewayBody(encodeText(around, charset), charset, 'JSON') }).to.deep.equal({ A: '카' });
    }
  });

  it('keeps __proto__ as an own field, never as the prototype', () => {
    const f = parseGatewayBody(Buffer.from('{"__proto__":"x","ResultCode":"3001"}'), 'utf-8', 'JSON');
    expect(Object.getPrototypeOf(f)).to.equal(Object.prototype);
    expect(Object.hasOwn(f, '__proto__')).to.equal(true);
  });

  it('refuses bytes invalid in the charset, text that is not JSON, and JSON that is not an object', () => {
    expect(() =>
      parseGatewayBody(Buffer.from([0x7b, 0x22, 0x41, 0x22, 0x3a, 0x22, 0xff, 0xff, 0x22, 0x7d]), 'euc-kr', 'JSON'),
    ).to.throw(WireFormatError, /EUC-KR/);
    expect(() => parseGatewayBody(Buffer.from([0x7b, 0xc3, 0x7d]), 'utf-8', 'JSON')).to.throw(WireFormatError, /UTF-8/);
    expect(() => parseGatewayBody(iconv.encode('<html>시스템 오류</html>', 'cp949'), 'euc-kr', 'JSON')).to.throw(
      WireFormatError,
      'response is not JSON',
    );
    expect(() => parseGatewayBody(Buffer.from('["a"]'), 'utf-8', 'JSON')).to.throw(WireFormatError, 'not an object');
  });

  it('reads any answer exactly as decoding it whole and then parsing it would (seeded random answers)', () => {
    let seed = 17;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
    const texts = [
      '3001',
      '카드 결제 성공',
      '똠햏',
      'a"b',
      'x\\ny',
      '\\u00e9',
      '\\uD55C글',
      'tab\\t',
      '',
      '한 & = %',
      '\\\\u0041',
      '\uFEFF카드',
      '\uFEFF',
    ];
    const keyNames = ['ResultCode', 'ResultMsg', 'Amt', '상품', 'A', '__proto__', '\\u0041'];
    const value = (depth: number): string => {
      const r = rnd(depth > 1 ? 4 : 6);
      if (r < 2) return `"${pick(texts)}"`;
      if (r === 2) return pick(['1', '-2.5', 'true', 'null']);
      if (r === 3) return `[${value(depth + 1)},${value(depth + 1)}]`;
      return object(depth + 1);
    };
    const object = (depth: number): string => {
      const n = 1 + rnd(4);
      const parts: string[] = [];
      for (let i = 0; i < n; i++) parts.push(`"${pick(keyNames)}"${pick([':', ' : '])}${value(depth)}`);
      return `{${parts.join(',')}}`;
    };
    /** The plain reading: decode every byte, then JSON.parse (what the latin1 reading must equal). */
    const reference = (bytes: Buffer, charset: 'euc-kr' | 'utf-8'): Record<string, string> | string => {
      const text = charset === 'utf-8' ? bytes.toString('utf8') : iconv.decode(bytes, 'cp949');
      if (text.includes('\uFFFD')) return 'bad bytes';
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.replace(/^\uFEFF/, '').trim());
      } catch {
        return 'not JSON';
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not an object';
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(parsed)) {
        const text = v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
        Object.defineProperty(out, k, { value: text, enumerable: true, writable: true, configurable: true });
      }
      return out;
    };
    const outcome = (bytes: Buffer, charset: 'euc-kr' | 'utf-8'): Record<string, string> | string => {
      try {
        return { ...parseGatewayBody(bytes, charset, 'JSON') };
      } catch (err) {
        const m = (err as Error).message;
        return /EUC-KR|UTF-8/.test(m)
          ? 'bad bytes'
          : /not JSON/.test(m)
            ? 'not JSON'
            : /not an object/.test(m)
              ? 'not an object'
              : /twice/.test(m)
                ? 'twice'
                : m;
      }
    };
    let decodedKorean = 0;
    for (let i = 0; i < 800; i++) {
      const charset = pick(['euc-kr', 'utf-8'] as const);
      const json = rnd(10) === 0 ? value(0) : object(0);
      // CP949 has no byte-order mark: such answers are UTF-8 ones only.
      if (json.includes('\uFEFF') && charset === 'euc-kr') continue;
      let bytes = encodeText(json, charset);
      if (rnd(8) === 0) {
        // a stray byte: a lone lead byte, a bad continuation or a high byte between tokens
        const at = rnd(bytes.length + 1);
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          Buffer.from([pick([0x81, 0xb0, 0xc3, 0xff])]),
          bytes.subarray(at),
        ]);
      }
      const got = outcome(bytes, charset);
      const want = reference(bytes, charset);
      if (got === 'twice') {
        // The reference keeps the last of two equal keys; the reader refuses them.
        expect(want, bytes.toString('latin1')).to.be.an('object');
        continue;
      }
      expect(got, `${charset} ${bytes.toString('latin1')}`).to.deep.equal(want);
      if (typeof got === 'object' && Object.values(got).some((v) => /[가-힣]/.test(v))) decodedKorean++;
    }
    expect(decodedKorean).to.be.greaterThan(50);
  });
});
