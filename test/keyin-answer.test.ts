/**
 * How a key-in answer is read: with the approval's own parser (parseGatewayBody), then checked
 * against what was sent. Unit-level, so answers the sandbox never gives can be tried.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { readKeyinAnswer, type SentKeyin } from '../src/keyin/response.js';

const sent: SentKeyin = { tid: 'nicepay00m01012611221000000001', mid: 'nicepay00m', moid: 'k-1', amount: 1004, charset: 'euc-kr', ediType: 'JSON' };
const ok = { ResultCode: '3001', ResultMsg: '카드 결제 성공', TID: sent.tid, MID: sent.mid, Moid: sent.moid, Amt: '000000001004' };

describe('key-in answer', () => {
  it('keeps fields outside the spec, nested ones as their JSON text, like an approval answer', () => {
    const a = readKeyinAnswer(iconv.encode(JSON.stringify({ ...ok, Extra: { a: 1 }, List: [1, 2], N: 7, Nothing: null }), 'cp949'), sent);
    expect(a.kind).to.equal('approved');
    if (a.kind !== 'approved') return;
    expect({ ...a.raw }).to.deep.include({ ResultMsg: '카드 결제 성공', Extra: '{"a":1}', List: '[1,2]', N: '7', Nothing: '' });
  });

  it('reads a KV answer in the charset asked for, and an empty one as unusable', () => {
    const kv = readKeyinAnswer(Buffer.from(Object.entries(ok).map(([k, v]) => `${k}=${v}`).join('&'), 'utf8'), { ...sent, charset: 'utf-8', ediType: 'KV' });
    expect(kv).to.include({ kind: 'approved' });
    const empty = readKeyinAnswer(Buffer.alloc(0), { ...sent, ediType: 'KV' });
    expect(empty).to.deep.equal({ kind: 'unverifiable', reason: 'the answer is not KV in euc-kr' });
  });

  for (const code of ['3001 ', ' 3001', '3001\t', 'a000']) {
    it(`a ResultCode of ${JSON.stringify(code)}, not exactly a documented code, is an unknown outcome, never a decline`, () => {
      const a = readKeyinAnswer(Buffer.from(JSON.stringify({ ...ok, ResultCode: code })), { ...sent, charset: 'utf-8' });
      expect(a).to.deep.equal({ kind: 'unverifiable', reason: 'the answer has a ResultCode that is not exactly a documented code' });
    });
  }

  it('1621 (duplicate request) is an unknown outcome as in approval, never a decline', () => {
    const a = readKeyinAnswer(Buffer.from(JSON.stringify({ ResultCode: '1621', ResultMsg: '중복된 거래 요청입니다', TID: sent.tid })), { ...sent, charset: 'utf-8' });
    expect(a).to.include({ kind: 'unverifiable', code: '1621' });
  });

  it('never takes a missing field from a polluted Object.prototype', () => {
    const { Moid: _moid, ...withoutMoid } = ok;
    const proto = Object.prototype as Record<string, unknown>;
    proto.Moid = 'someone-else';
    proto.Amt = '000000009999';
    try {
      const a = readKeyinAnswer(Buffer.from(JSON.stringify(withoutMoid)), { ...sent, charset: 'utf-8' });
      expect(a.kind).to.equal('approved'); // its own Amt is right, and it names no Moid
    } finally {
      delete proto.Moid;
      delete proto.Amt;
    }
  });
});
