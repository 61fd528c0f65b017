/**
 * How each operation's answer is read by its declared answer table (src/pipeline/answer-rules.ts):
 * unit level, so answers the sandbox never gives can be tried. An answer that can be read two
 * ways, names another transaction or carries a code that is not exactly documented is an unknown
 * outcome (which settlement reverses or completes), never an approval or a decline.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { readRegisterAnswer, readRemoveAnswer, withoutBid } from '../src/billing/answer.js';
import { billingChargeTable } from '../src/billing/charge-operation.js';
import { receiptTable } from '../src/cash-receipt/operation.js';
import { cancelTable } from '../src/cancel/operation.js';
import type { SentCharge } from '../src/keyin/card-charge.js';
import { keyinTable } from '../src/keyin/operation.js';
import { readAnswer } from '../src/pipeline/answer-rules.js';
import { padAmount } from '../src/wire/amount.js';
import { encodeText } from '../src/wire/charset.js';
import { cancelResponseSignature } from '../src/wire/signatures.js';

const json = (o: Record<string, unknown>): Buffer => encodeText(JSON.stringify(o), 'euc-kr');

describe('key-in answers, by the key-in table', () => {
  const sent: SentCharge = {
    tid: 'nicepay00m01012611221000000001',
    mid: 'nicepay00m',
    moid: 'k-1',
    amount: 1004,
    charset: 'euc-kr',
    ediType: 'JSON',
  };
  const ok = {
    ResultCode: '3001',
    ResultMsg: '카드 결제 성공',
    TID: sent.tid,
    MID: sent.mid,
    Moid: sent.moid,
    Amt: '000000001004',
  };
  const table = keyinTable(sent);

  it('keeps fields outside the spec, nested ones as their JSON text', () => {
    const a = readAnswer(
      iconv.encode(JSON.stringify({ ...ok, Extra: { a: 1 }, List: [1, 2], N: 7, Nothing: null }), 'cp949'),
      table,
    );
    expect(a.kind).to.equal('success');
    if (a.kind !== 'success') return;
    expect({ ...a.fields }).to.deep.include({
      ResultMsg: '카드 결제 성공',
      Extra: '{"a":1}',
      List: '[1,2]',
      N: '7',
      Nothing: '',
    });
  });

  it('reads a KV answer in the charset asked for, and an empty one as unusable', () => {
    const kv = readAnswer(
      Buffer.from(
        Object.entries(ok)
          .map(([k, v]) => `${k}=${v}`)
          .join('&'),
        'utf8',
      ),
      keyinTable({ ...sent, charset: 'utf-8', ediType: 'KV' }),
    );
    expect(kv.kind).to.equal('success');
    expect(readAnswer(Buffer.alloc(0), keyinTable({ ...sent, ediType: 'KV' }))).to.deep.equal({
      kind: 'unknown',
      reason: 'the answer is not KV in euc-kr',
    });
  });

  for (const code of ['3001 ', ' 3001', '3001\t', 'a000']) {
    it(`a ResultCode of ${JSON.stringify(code)}, not exactly a documented code, is an unknown outcome, never a decline`, () => {
      expect(readAnswer(json({ ...ok, ResultCode: code }), table)).to.deep.equal({
        kind: 'unknown',
        reason: 'the answer has a ResultCode that is not exactly a documented code',
      });
    });
  }

  it('1621 (duplicate request) is an unknown outcome, never a decline', () => {
    expect(
      readAnswer(json({ ResultCode: '1621', ResultMsg: '중복된 거래 요청입니다', TID: sent.tid }), table),
    ).to.include({ kind: 'unknown', code: '1621' });
  });

  it('an issuer decline is refused with its code and message; one naming another TID is unknown', () => {
    expect(readAnswer(json({ ResultCode: 'F104', ResultMsg: '한도초과', TID: sent.tid }), table)).to.include({
      kind: 'refused',
      code: 'F104',
      message: '한도초과',
    });
    expect(
      readAnswer(json({ ResultCode: 'F104', ResultMsg: '한도초과', TID: 'nicepay00m01012611221000009999' }), table)
        .kind,
    ).to.equal('unknown');
  });

  it('1681 and A127 (a Moid charged before) are no decline: the order number was charged under another TID', () => {
    for (const code of ['1681', 'A127']) {
      const a = readAnswer(
        json({ ResultCode: code, ResultMsg: '중복된 주문번호입니다', MID: sent.mid, Moid: sent.moid }),
        table,
      );
      expect(a.kind, code).to.equal('charged-before');
    }
  });

  it('never takes a missing field from a polluted Object.prototype', () => {
    const { Moid: _moid, ...withoutMoid } = ok;
    const proto = Object.prototype as Record<string, unknown>;
    proto.Moid = 'someone-else';
    proto.Amt = '000000009999';
    try {
      expect(readAnswer(json(withoutMoid), table).kind).to.equal('success'); // its own Amt is right, and it names no Moid
    } finally {
      delete proto.Moid;
      delete proto.Amt;
    }
  });
});

describe('billing and receipt answers, by their tables', () => {
  const MID = 'nictest04m';
  const TID = 'nictest04m0116261123100000Ab12';
  const BID = 'BIKYnictest04m2611231000000012';
  const sent: SentCharge = { mid: MID, moid: 'sub-1', tid: TID, amount: 9900, charset: 'euc-kr', ediType: 'JSON' };
  const ok = { ResultCode: '3001', ResultMsg: '카드 결제 성공', TID, Moid: 'sub-1', Amt: '000000009900', MID };

  it('a charge approval naming our TID, Moid and amount is approved, and the BID is never kept', () => {
    const a = readAnswer(json({ ...ok, BID }), billingChargeTable(sent));
    expect(a.kind).to.equal('success');
    if (a.kind === 'success') expect(withoutBid(a.fields)).to.not.have.property('BID');
  });

  it('another TID, Moid, MID or amount, a near-miss code or a field named twice is unknown', () => {
    for (const [what, body] of [
      ['other TID', json({ ...ok, TID: 'nictest04m0116261123100000Zz99' })],
      ['other Moid', json({ ...ok, Moid: 'sub-2' })],
      ['other MID', json({ ...ok, MID: 'nicepay00m' })],
      ['other Amt', json({ ...ok, Amt: '000000010900' })],
      ['near-miss code', json({ ...ok, ResultCode: '3001 ' })],
      ['no code', json({ ResultMsg: 'x', TID })],
      [
        'a decline of another TID',
        json({ ResultCode: 'F104', ResultMsg: '한도초과', TID: 'nictest04m0116261123100000Zz99' }),
      ],
      ['twice', encodeText(`{"ResultCode":"3001","ResultCode":"F104","TID":"${TID}","Amt":"9900"}`, 'euc-kr')],
      ['not JSON', encodeText('<html>error</html>', 'euc-kr')],
    ] as const) {
      expect(readAnswer(body, billingChargeTable(sent)).kind, what).to.equal('unknown');
    }
  });

  it('a registration is F100 with a 30-character BID; F100 without one is unknown', () => {
    const r = readRegisterAnswer(json({ ResultCode: 'F100', BID, TID, Moid: 'sub-1' }), sent);
    expect(r.kind).to.equal('registered');
    if (r.kind === 'registered') {
      expect(r.bid).to.equal(BID);
      expect(r.raw).to.not.have.property('BID');
    }
    expect(readRegisterAnswer(json({ ResultCode: 'F100', BID: 'short' }), sent).kind).to.equal('unknown');
    expect(readRegisterAnswer(json({ ResultCode: 'F113', ResultMsg: '만료' }), sent)).to.include({
      kind: 'refused',
      code: 'F113',
    });
  });

  it('a removal is F101, and one naming another BID is unknown', () => {
    expect(readRemoveAnswer(json({ ResultCode: 'F101', BID }), { ...sent, bid: BID }).kind).to.equal('removed');
    expect(
      readRemoveAnswer(json({ ResultCode: 'F101', BID: 'BIKYnictest04m2611231000009999' }), { ...sent, bid: BID }).kind,
    ).to.equal('unknown');
  });

  it('a receipt is 7001 naming our TID with an AuthCode; anything else of that code is unknown', () => {
    const rs = { ...sent, tid: 'nictest04m0401261123100000Ab12', amount: 11000 };
    const table = receiptTable(rs);
    const good = {
      ResultCode: '7001',
      TID: rs.tid,
      AuthCode: '123456789',
      AuthDate: '261123100000',
      ReceiptAmt: '000000011000',
    };
    expect(readAnswer(json(good), table).kind).to.equal('success');
    const { ReceiptAmt: _amt, ...withoutAmt } = good;
    expect(readAnswer(json(withoutAmt), table).kind, 'ReceiptAmt may be left out').to.equal('success');
    expect(readAnswer(json({ ...good, AuthCode: '' }), table).kind).to.equal('unknown');
    expect(readAnswer(json({ ...good, TID }), table).kind).to.equal('unknown');
    expect(readAnswer(json({ ...good, ReceiptAmt: '000000011001' }), table).kind).to.equal('unknown');
    expect(readAnswer(json({ ResultCode: '7011', ResultMsg: '금액 오류', TID: rs.tid }), table)).to.include({
      kind: 'refused',
      code: '7011',
    });
  });
});

describe('cancel answers, by the cancel table', () => {
  const config = { mid: 'nicepay00m', merchantKey: 'k'.repeat(64) };
  const tid = 'nicepay00m01012611221000000001';
  const table = cancelTable(config, { tid, amount: 300 });
  const signed = (code: string, extra: Record<string, string> = {}): Buffer =>
    Buffer.from(
      JSON.stringify({
        ResultCode: code,
        ResultMsg: '취소 성공',
        TID: tid,
        MID: config.mid,
        CancelAmt: padAmount(300),
        Signature: cancelResponseSignature(tid, config.mid, padAmount(300), config.merchantKey),
        ...extra,
      }),
    );

  it('reads a signed, exact 2001 as done', () => {
    expect(readAnswer(signed('2001'), table).kind).to.equal('success');
  });

  for (const code of ['2001 ', ' 2001', '2001\t', '2oo1']) {
    it(`a signed ${JSON.stringify(code)} is not exactly a documented code: unknown (the cancel may have happened), never refused`, () => {
      expect(readAnswer(signed(code), table)).to.deep.equal({
        kind: 'unknown',
        reason: 'the answer has a ResultCode that is not exactly a documented code',
      });
    });
  }

  it('an unsigned 2001, or one for another amount, is unknown; an unreadable RemainAmt is unknown', () => {
    expect(readAnswer(signed('2001', { Signature: 'ab'.repeat(32) }), table)).to.include({
      kind: 'unknown',
      unverified: 'answer',
    });
    expect(readAnswer(signed('2001', { RemainAmt: 'lots' }), table).kind).to.equal('unknown');
    expect(readAnswer(signed('2001'), cancelTable(config, { tid, amount: 301 })).kind).to.equal('unknown');
  });

  it('2056 and 1227 mean retry later: nothing happened', () => {
    expect(
      readAnswer(Buffer.from(JSON.stringify({ ResultCode: '2056', ResultMsg: '카드사 타임아웃', TID: tid })), table),
    ).to.include({ kind: 'retry', code: '2056' });
  });

  it("A211 (signature refused) is a refusal that asks whether merchantKey is the MID's", () => {
    const a = readAnswer(
      Buffer.from(JSON.stringify({ ResultCode: 'A211', ResultMsg: '위변조 검증 실패', TID: tid })),
      table,
    );
    expect(a.kind).to.equal('refused');
    if (a.kind === 'refused') expect(a.message).to.include('is merchantKey the one of this MID?');
  });
});
