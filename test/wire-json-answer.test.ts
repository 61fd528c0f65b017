/**
 * JSON gateway answers (src/wire/response-body.ts): decoded whole in their charset, then
 * parsed. What a shop sees of an answer: Korean values (CP949's extra syllables too), values
 * that are not strings, white space and a byte-order mark around the answer, and bad bytes.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { encodeText, WireFormatError } from '../src/wire/charset.js';
import { parseGatewayBody, parseGatewayLatin1 } from '../src/wire/response-body.js';

describe('wire: JSON gateway answers', () => {
  it('decodes the Korean values of a real-shaped answer in both charsets', () => {
    const json = '{"ResultCode":"3001","ResultMsg":"카드 결제 성공","GoodsName":"똠 상품 (a) 나","BuyerName":"홍길동","Amt":"000000001004","MallReserved":"a\\":\\"b"}';
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const body = encodeText(json, charset);
      expect({ ...parseGatewayBody(body, charset, 'JSON') }).to.deep.equal(JSON.parse(json));
      // The stored record's latin1 reading parses to the same fields.
      expect({ ...parseGatewayLatin1(body.toString('latin1'), charset, 'JSON') }).to.deep.equal(JSON.parse(json));
    }
  });

  it('turns non-string values into text', () => {
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const f = parseGatewayBody(encodeText('{"A":1,"B":null,"C":{"d":"한"},"D":"카드","E" : true}', charset), charset, 'JSON');
      expect({ ...f }).to.deep.equal({ A: '1', B: '', C: '{"d":"한"}', D: '카드', E: 'true' });
      expect(Object.isFrozen(f)).to.equal(true);
    }
  });

  it('drops a byte-order mark and white space around the answer', () => {
    for (const [charset, around] of [['euc-kr', ' {"A":"카"}\u3000\v'], ['utf-8', '\ufeff {"A":"카"}\u3000\u00a0\v']] as const) {
      expect({ ...parseGatewayBody(encodeText(around, charset), charset, 'JSON') }).to.deep.equal({ A: '카' });
    }
  });

  it('keeps __proto__ as an own field, never as the prototype', () => {
    const f = parseGatewayBody(Buffer.from('{"__proto__":"x","ResultCode":"3001"}'), 'utf-8', 'JSON');
    expect(Object.getPrototypeOf(f)).to.equal(Object.prototype);
    expect(Object.hasOwn(f, '__proto__')).to.equal(true);
  });

  it('refuses bytes invalid in the charset, text that is not JSON, and JSON that is not an object', () => {
    expect(() => parseGatewayBody(Buffer.from([0x7b, 0x22, 0x41, 0x22, 0x3a, 0x22, 0xff, 0xff, 0x22, 0x7d]), 'euc-kr', 'JSON')).to.throw(WireFormatError, /EUC-KR/);
    expect(() => parseGatewayBody(Buffer.from([0x7b, 0xc3, 0x7d]), 'utf-8', 'JSON')).to.throw(WireFormatError, /UTF-8/);
    expect(() => parseGatewayBody(iconv.encode('<html>시스템 오류</html>', 'cp949'), 'euc-kr', 'JSON')).to.throw(WireFormatError, 'response is not JSON');
    expect(() => parseGatewayBody(Buffer.from('["a"]'), 'utf-8', 'JSON')).to.throw(WireFormatError, 'not an object');
  });
});
