/**
 * parseJsonBytes (src/wire/json-bytes.ts) parses an answer's latin1 reading and decodes only the
 * non-ASCII values. It must be invisible: for any bytes, in both charsets, the same value as
 * decoding the whole answer and then parsing it, and an error exactly where that errs.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { type Charset, decodeBytes, encodeText, latin1Text } from '../src/wire/charset.js';
import { decodeCp949Pairs, decodeCp949PairsOfLatin1 } from '../src/wire/cp949.js';
import { parseJsonBytes } from '../src/wire/json-bytes.js';
import { parseGatewayBody } from '../src/wire/response-body.js';

/** The way before the shortcut: decode the whole answer, drop a BOM, parse. */
function reference(bytes: Uint8Array, charset: Charset): unknown {
  try {
    return { ok: JSON.parse(decodeBytes(bytes, charset).replace(/^\uFEFF/, '').trim()) };
  } catch (err) {
    return { error: (err as Error).name === 'SyntaxError' ? 'SyntaxError' : (err as Error).message };
  }
}

function actual(bytes: Uint8Array, charset: Charset): unknown {
  try {
    return { ok: parseJsonBytes(bytes, charset).value };
  } catch (err) {
    return { error: (err as Error).name === 'SyntaxError' ? 'SyntaxError' : (err as Error).message };
  }
}

/** Text the gateway's answers hold: ASCII, Hangul (CP949's extra syllables too), JSON's specials. */
const piece = fc.constantFrom('a', 'Z', '0', ' ', '"', '\\', '/', ':', ',', '{', '}', '":"', '\\u', '카드', '결제 성공', '똠', '햏', '홍길동', 'é', '\u00a0', '\ufeff', '\n');
const text = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
const key = fc.constantFrom('ResultCode', 'ResultMsg', 'GoodsName', 'Amt', 'a"b', '카드', '__proto__', 'x');
const scalar = fc.oneof(text, fc.integer(), fc.constant(null), fc.boolean());
const value = fc.oneof(scalar, fc.dictionary(key, scalar, { maxKeys: 3 }), fc.array(scalar, { maxLength: 3 }));
const answer = fc.array(fc.tuple(key, value), { maxLength: 8 });

/** Compact JSON as the gateway writes it, keys possibly repeated, sometimes with \\u escapes or spaces. */
function json(pairs: Array<[string, unknown]>, style: 'plain' | 'escaped' | 'spaced'): string {
  const body = pairs.map(([k, v]) => `${JSON.stringify(k)}${style === 'spaced' ? ' : ' : ':'}${JSON.stringify(v)}`).join(',');
  const out = `{${body}}`;
  return style === 'escaped' ? out.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : out;
}

function bytesOf(textValue: string, charset: Charset): Buffer | undefined {
  try {
    return encodeText(textValue, charset);
  } catch {
    return undefined; // é and friends have no CP949 form: not an answer this charset can carry
  }
}

describe('wire: JSON answers read through their latin1 bytes', function () {
  this.timeout(60_000);

  for (const charset of ['euc-kr', 'utf-8'] as const) {
    it(`parses ${charset} answers exactly as decoding them first would, errors included`, () => {
      fc.assert(
        fc.property(answer, fc.constantFrom('plain', 'escaped', 'spaced') as fc.Arbitrary<'plain' | 'escaped' | 'spaced'>, (pairs, style) => {
          const bytes = bytesOf(json(pairs, style), charset);
          if (!bytes) return;
          expect(actual(bytes, charset)).to.deep.equal(reference(bytes, charset));
        }),
        { numRuns: 3000 },
      );
    });

    it(`agrees with decoding first on arbitrary and truncated ${charset} bytes`, () => {
      fc.assert(
        fc.property(answer, fc.uint8Array({ maxLength: 6 }), fc.nat(), (pairs, noise, cut) => {
          const bytes = bytesOf(json(pairs, 'plain'), charset);
          if (!bytes) return;
          const at = bytes.length === 0 ? 0 : cut % bytes.length;
          const damaged = Buffer.concat([bytes.subarray(0, at), noise, bytes.subarray(at)]);
          expect(actual(damaged, charset)).to.deep.equal(reference(damaged, charset));
          expect(actual(bytes.subarray(0, at), charset)).to.deep.equal(reference(bytes.subarray(0, at), charset));
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('decodes the Korean values of a real-shaped answer and leaves the rest as read', () => {
    const body = iconv.encode('{"ResultCode":"3001","ResultMsg":"카드 결제 성공","GoodsName":"똠 상품","Amt":"000000001004","MallReserved":"a\\":\\"b"}', 'cp949');
    const { value, text } = parseJsonBytes(body, 'euc-kr');
    expect(value).to.deep.equal({ ResultCode: '3001', ResultMsg: '카드 결제 성공', GoodsName: '똠 상품', Amt: '000000001004', MallReserved: 'a":"b' });
    expect(text).to.equal(body.toString('latin1'));
    expect(parseGatewayBody(body, 'euc-kr', 'JSON').ResultMsg).to.equal('카드 결제 성공');
    // An escape of a character from 80 up beside raw bytes in one value: read whole, not as bytes.
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const mixed = Buffer.concat([encodeText('{"A":"카드', charset), Buffer.from('\\u00e9"}')]);
      expect(parseJsonBytes(mixed, charset).value).to.deep.equal({ A: '카드é' });
    }
    // A key's raw bytes left uncounted while escapes in a value make up the number.
    const keyed = Buffer.concat([iconv.encode('{"카":"v","a":"카', 'cp949'), Buffer.from('\\u00e9\\u00e9"}')]);
    expect(parseJsonBytes(keyed, 'euc-kr').value).to.deep.equal({ 카: 'v', a: '카éé' });
    // Whitespace JSON does not know, around the answer, is dropped as before.
    for (const [charset, around] of [['euc-kr', ' {"A":"카"}\u3000\v'], ['utf-8', '\ufeff {"A":"카"}\u3000\u00a0\v']] as const) {
      expect(parseJsonBytes(encodeText(around, charset), charset).value).to.deep.equal({ A: '카' });
    }
  });

  it('parses an answer with several runs of Korean per value from its latin1 reading, in both charsets', () => {
    // The equivalence properties hold even when the run count is wrong (the full decode takes
    // over): this checks that a real-shaped answer does take the latin1 path.
    const json = '{"ResultMsg":"카드 결제 성공","GoodsName":"똠 상품 (a) 나","BuyerName":"홍길동","Amt":"1004","CardName":"신한"}';
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const body = encodeText(json, charset);
      const { value, text } = parseJsonBytes(body, charset);
      expect(text).to.equal(latin1Text(body));
      expect(value).to.deep.equal(JSON.parse(json));
    }
  });

  it('reads an answer whose one long value holds many runs of Korean', () => {
    const msg = '가 '.repeat(20_000);
    expect((parseJsonBytes(iconv.encode(`{"ResultMsg":"${msg}","B":"나"}`, 'cp949'), 'euc-kr').value as Record<string, string>)).to.deep.equal({ ResultMsg: msg, B: '나' });
  });

  it('turns non-string values into text whether or not the answer is read through latin1', () => {
    for (const charset of ['euc-kr', 'utf-8'] as const) {
      const f = parseGatewayBody(encodeText('{"A":1,"B":null,"C":{"d":"한"},"D":"카드","E" : true}', charset), charset, 'JSON');
      expect({ ...f }).to.deep.equal({ A: '1', B: '', C: '{"d":"한"}', D: '카드', E: 'true' });
    }
  });

  it('decodes a latin1 string as CP949 bytes exactly as the byte decoder does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(decodeCp949PairsOfLatin1(Buffer.from(bytes).toString('latin1'))).to.equal(decodeCp949Pairs(bytes));
      }),
      { numRuns: 5000 },
    );
    expect(decodeCp949PairsOfLatin1('\u0100A')).to.equal(undefined);
    expect(decodeCp949PairsOfLatin1('\xb0\u0141')).to.equal(undefined);
  });
});
