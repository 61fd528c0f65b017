/**
 * How a cancel answer is read (unit level, so answers the sandbox never gives can be tried):
 * exact codes only, a refused signature names the likely mistake.
 */
import { expect } from 'chai';
import { readCancelAnswer, type CancelExpectation } from '../src/cancel/answer.js';
import { padAmount } from '../src/wire/amount.js';
import { cancelResponseSignature } from '../src/wire/signatures.js';

const e: CancelExpectation = { tid: 'nicepay00m01012611221000000001', mid: 'nicepay00m', moid: 'c-1', cancelMoid: 'C' + '0'.repeat(40), amount: 300, merchantKey: 'k'.repeat(64) };
const signed = (code: string) =>
  Buffer.from(JSON.stringify({ ResultCode: code, ResultMsg: '취소 성공', TID: e.tid, MID: e.mid, CancelAmt: padAmount(300), Signature: cancelResponseSignature(e.tid, e.mid, padAmount(300), e.merchantKey) }));

describe('cancel answer', () => {
  it('reads a signed, exact 2001 as cancelled', () => {
    expect(readCancelAnswer(signed('2001'), e).kind).to.equal('result');
  });

  for (const code of ['2001 ', ' 2001', '2001\t', '2oo1']) {
    it(`a signed ${JSON.stringify(code)} is not exactly a documented code: unverifiable (the cancel may have happened), never refused`, () => {
      const a = readCancelAnswer(signed(code), e);
      expect(a).to.deep.equal({ kind: 'unverifiable', reason: 'cancel the answer has a ResultCode that is not exactly a documented code' });
    });
  }

  it('A211 (signature refused) is a refusal that asks whether merchantKey is the MID\'s', () => {
    const a = readCancelAnswer(Buffer.from(JSON.stringify({ ResultCode: 'A211', ResultMsg: '위변조 검증 실패', TID: e.tid })), e);
    expect(a.kind).to.equal('result');
    if (a.kind !== 'result') return;
    expect(a.result).to.include({ status: 'refused', code: 'A211' });
    expect(a.result.message).to.include('is merchantKey the one of this MID?');
  });
});
