import { expect } from 'chai';
import {
  BANKS,
  cardCompany,
  checkFieldMessage,
  operatorError,
  particleFor,
  withParticle,
} from '../example-app/korean.js';
import { kstDate } from '../example-app/views.js';
import { NicepayDataApiError, NicepayRequestError, NicepayScheduleError } from '../src/index.js';

describe('example-app: Korean particles and operator messages', () => {
  it('chooses 을/를 and 이/가 by the final consonant, for Hangul, digits and Latin letters', () => {
    expect(withParticle('카드번호', '을/를')).to.equal('카드번호를');
    expect(withParticle('유효기간', '을/를')).to.equal('유효기간을');
    expect(withParticle('seller-42', '을/를')).to.equal('seller-42를'); // 이
    expect(withParticle('seller-43', '을/를')).to.equal('seller-43을'); // 삼
    expect(withParticle('seller-a', '이/가')).to.equal('seller-a가');
    expect(withParticle('mall', '이/가')).to.equal('mall이');
    expect(withParticle('서울', '으로/로')).to.equal('서울로'); // ㄹ takes 로
    expect(withParticle('부산', '으로/로')).to.equal('부산으로');
    expect(checkFieldMessage('cardNumber')).to.equal('카드번호를 확인해 주세요.');
    expect(checkFieldMessage('cardExpiry')).to.equal('유효기간을 확인해 주세요.');
    expect(checkFieldMessage(undefined)).to.equal('입력값을 확인해 주세요.');
  });

  it('gives the particle alone for quoted text, one name per card company, Korean calendar dates and unique bank codes', () => {
    expect(particleFor('2026-13-45', '은/는')).to.equal('는'); // 오
    expect(particleFor('202611231', '은/는')).to.equal('은'); // 일
    expect(cardCompany('02', '국민')).to.equal('KB국민카드');
    expect(cardCompany('02', 'KB국민')).to.equal('KB국민카드');
    expect(cardCompany('002', '국민')).to.equal('KB국민카드');
    expect(cardCompany('102', '어떤')).to.equal('어떤카드');
    expect(cardCompany('99', '어떤')).to.equal('어떤카드');
    expect(cardCompany('99', '어떤카드')).to.equal('어떤카드');
    expect(kstDate('20261123')).to.equal('2026년 11월 23일 (월)');
    expect(kstDate('20261131')).to.equal('20261131'); // not a date: shown as given
    expect(new Set(BANKS.map(([code]) => code)).size).to.equal(BANKS.length);
    for (const [code] of BANKS) expect(code).to.match(/^\d{3}$/);
  });

  it('gives each error its own message by code, never the schedule message for everything', () => {
    const dup = operatorError(new NicepayDataApiError('1106', '', 'already registered', '0102001'))!;
    expect(dup).to.deep.equal({
      message: '이미 등록된 서브몰 ID입니다. 다른 ID를 입력해 주세요. (코드 1106)',
      status: 409,
    });
    const field = operatorError(new NicepayRequestError('NICEPAY_FIELD_INVALID', 'amount must be positive', 'amount'))!;
    expect(field).to.deep.equal({ message: '금액을 확인해 주세요.', status: 400 });
    const late = operatorError(new NicepayScheduleError('request-cutoff', 'after 10:30'))!;
    expect(late.status).to.equal(422);
    expect(late.message).to.include('10시 30분');
    expect(operatorError(new Error('boom'))).to.equal(undefined);
  });
});
