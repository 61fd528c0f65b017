import { expect } from 'chai';
import { readChargeAnswer, readRegisterAnswer, readRemoveAnswer } from '../src/billing/answer.js';
import { readReceiptAnswer } from '../src/cash-receipt/answer.js';
import { encodeText } from '../src/wire/charset.js';

/*
 * Strict reading of the billing and receipt answers: an answer that can be read two ways, names
 * another transaction or carries a code that is not exactly documented is an unknown outcome
 * (which a charge net-cancels), never an approval or a decline.
 */
const MID = 'nictest04m';
const TID = 'nictest04m0116261123100000Ab12';
const BID = 'BIKYnictest04m2611231000000012';
const json = (o: Record<string, string>): Buffer => encodeText(JSON.stringify(o), 'euc-kr');
const sent = { mid: MID, moid: 'sub-1', tid: TID, amount: 9900, charset: 'euc-kr' as const, ediType: 'JSON' as const };
const ok = { ResultCode: '3001', ResultMsg: '카드 결제 성공', TID, Moid: 'sub-1', Amt: '000000009900', MID };

describe('billing answers are read strictly', () => {
  it('a charge approval naming our TID, Moid and amount is approved, with no BID in raw', () => {
    const a = readChargeAnswer(json({ ...ok, BID }), sent);
    expect(a.kind).to.equal('approved');
    if (a.kind === 'approved') expect(a.raw).to.not.have.property('BID');
  });

  it('another TID, Moid, MID or amount, a near-miss code or a field named twice is unknown', () => {
    for (const [what, body] of [
      ['other TID', json({ ...ok, TID: 'nictest04m0116261123100000Zz99' })],
      ['other Moid', json({ ...ok, Moid: 'sub-2' })],
      ['other MID', json({ ...ok, MID: 'nicepay00m' })],
      ['other Amt', json({ ...ok, Amt: '000000010900' })],
      ['near-miss code', json({ ...ok, ResultCode: '3001 ' })],
      ['no code', json({ ResultMsg: 'x', TID })],
      ['a decline of another TID', json({ ResultCode: 'F104', ResultMsg: '한도초과', TID: 'nictest04m0116261123100000Zz99' })],
      ['twice', encodeText(`{"ResultCode":"3001","ResultCode":"F104","TID":"${TID}","Amt":"9900"}`, 'euc-kr')],
      ['not JSON', encodeText('<html>error</html>', 'euc-kr')],
    ] as const) {
      expect(readChargeAnswer(body, sent).kind, what).to.equal('unknown');
    }
  });

  it('a decline is refused with its code and message', () => {
    const a = readChargeAnswer(json({ ResultCode: 'F104', ResultMsg: '한도초과', TID, Moid: 'sub-1' }), sent);
    expect(a).to.include({ kind: 'refused', code: 'F104', message: '한도초과' });
  });

  it('a registration is F100 with a 30-character BID; F100 without one is unknown', () => {
    const r = readRegisterAnswer(json({ ResultCode: 'F100', BID, TID, Moid: 'sub-1' }), sent);
    expect(r.kind).to.equal('registered');
    if (r.kind === 'registered') {
      expect(r.bid).to.equal(BID);
      expect(r.raw).to.not.have.property('BID');
    }
    expect(readRegisterAnswer(json({ ResultCode: 'F100', BID: 'short' }), sent).kind).to.equal('unknown');
    expect(readRegisterAnswer(json({ ResultCode: 'F113', ResultMsg: '만료' }), sent)).to.include({ kind: 'refused', code: 'F113' });
  });

  it('a removal is F101, and one naming another BID is unknown', () => {
    expect(readRemoveAnswer(json({ ResultCode: 'F101', BID }), { ...sent, bid: BID }).kind).to.equal('removed');
    expect(readRemoveAnswer(json({ ResultCode: 'F101', BID: 'BIKYnictest04m2611231000009999' }), { ...sent, bid: BID }).kind).to.equal('unknown');
  });

  it('a receipt is 7001 naming our TID with an AuthCode; anything else of that code is unknown', () => {
    const rs = { ...sent, tid: 'nictest04m0401261123100000Ab12', amount: 11000 };
    const good = { ResultCode: '7001', TID: rs.tid, AuthCode: '123456789', AuthDate: '261123100000', ReceiptAmt: '000000011000' };
    expect(readReceiptAnswer(json(good), rs).kind).to.equal('issued');
    expect(readReceiptAnswer(json({ ...good, AuthCode: '' }), rs).kind).to.equal('unknown');
    expect(readReceiptAnswer(json({ ...good, TID: TID }), rs).kind).to.equal('unknown');
    expect(readReceiptAnswer(json({ ...good, ReceiptAmt: '000000011001' }), rs).kind).to.equal('unknown');
    expect(readReceiptAnswer(json({ ResultCode: '7011', ResultMsg: '금액 오류', TID: rs.tid }), rs)).to.include({ kind: 'refused', code: '7011' });
  });
});
