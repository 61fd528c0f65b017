/**
 * The table decoder for CP949 (src/wire/cp949.ts) must be invisible: decodeBytes(…, 'euc-kr')
 * gives exactly what iconv-lite's CP949 gives, and throws exactly where iconv-lite would
 * produce U+FFFD, for every byte pair and for arbitrary bytes.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { decodeBytes, WireFormatError } from '../src/wire/charset.js';
import { decodeCp949Pairs } from '../src/wire/cp949.js';

/** What decodeBytes did before the table: iconv-lite, and U+FFFD means invalid. */
function reference(bytes: Uint8Array): string | 'invalid' {
  const text = iconv.decode(Buffer.from(bytes), 'cp949');
  return text.includes('\uFFFD') ? 'invalid' : text;
}

function actual(bytes: Uint8Array): string | 'invalid' {
  try {
    return decodeBytes(bytes, 'euc-kr');
  } catch (err) {
    expect(err).to.be.instanceOf(WireFormatError);
    return 'invalid';
  }
}

describe('CP949 table decoder', function () {
  this.timeout(30_000);

  it('agrees with iconv-lite on every byte pair, between ASCII neighbours and at the end of input', () => {
    let fastPairs = 0;
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        for (const bytes of [Uint8Array.of(0x41, a, b, 0x42), Uint8Array.of(a, b)]) {
          const want = reference(bytes);
          expect(actual(bytes), `${a.toString(16)} ${b.toString(16)}`).to.equal(want);
        }
        if (a >= 0x80 && decodeCp949Pairs(Uint8Array.of(a, b)) !== undefined) fastPairs++;
      }
    }
    // The table really is used: iconv-lite's CP949 has 17,048 double-byte characters.
    expect(fastPairs).to.equal(17_048);
  });

  it('decodes Korean text, CP949-only syllables included, as iconv-lite encodes it', () => {
    const text = '{"ResultMsg":"카드 결제 성공","BuyerName":"똠햏 홍길동","GoodsName":"벤치 상품 ①㈜","Amt":"1004"}';
    const bytes = iconv.encode(text, 'cp949');
    expect(decodeCp949Pairs(bytes)).to.equal(text);
    expect(decodeBytes(bytes, 'euc-kr')).to.equal(text);
  });

  it('agrees with iconv-lite on arbitrary bytes (fast-check)', () => {
    const byte = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xff }), fc.constantFrom(0x80, 0xa1, 0xb0, 0xc9, 0xfe, 0xff, 0x41, 0x5a, 0x61));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 40 }), (arr) => {
        const bytes = Uint8Array.from(arr);
        expect(actual(bytes)).to.equal(reference(bytes));
      }),
      { numRuns: 20_000 },
    );
  });

  it('a long answer larger than the scratch buffer decodes whole', () => {
    const text = '가나다 abc 똠'.repeat(500);
    expect(decodeBytes(iconv.encode(text, 'cp949'), 'euc-kr')).to.equal(text);
  });
});
