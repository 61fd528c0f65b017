/** scrubCardData on its own: what it takes, and the allow-list it leaves on req.body. */
import { expect } from 'chai';
import type { Request } from 'express';
import { isCardName, scrubCardData } from '../src/express/scrub-card-data.js';

const PAN = '4111111111111111';
const reqWith = (body: unknown): Request => ({ body }) as Request;

describe('scrubCardData', () => {
  it("hands back the route's card fields and its own fields as posted, and leaves only the latter", () => {
    const req = reqWith({
      moid: 'ORD1',
      goodsName: '김치',
      cardNumber: PAN,
      cardExpiry: '3012',
      buyerAuthNum: '860719',
      cardPassword2: '12',
      quota: '00',
    });
    expect(scrubCardData(req)).to.deep.equal({
      card: { cardNumber: PAN, cardExpiry: '3012', buyerAuthNum: '860719', cardPassword2: '12' },
      form: { moid: 'ORD1', goodsName: '김치', quota: '00' },
    });
    expect(req.body).to.deep.equal({ moid: 'ORD1', goodsName: '김치', quota: '00' });
  });

  it('leaves nothing outside the allow-list, whatever the names: split numbers, confirmations, expiry, birth date, password parts', () => {
    const req = reqWith({
      moid: 'ORD2',
      goodsName: 'x',
      buyerName: '홍길동',
      buyerEmail: 'a@b.kr',
      buyerTel: '01012345678',
      amount: '1000',
      _csrf: 'tok',
      cardNo1: '4111',
      cardNo2: '1111',
      cardNo3: '1111',
      cardNo4: '1111',
      cardNumberConfirm: PAN,
      validThru: '12/30',
      expiryDate: '3012',
      expMonth: '12',
      expYear: '30',
      birthYmd: '860719',
      cardPass: '12',
      카드번호: PAN,
      cc_exp: '1230',
      security_code: '123',
      pin2: '12',
      note: 'gift',
      order: { items: [{ sku: 'a' }] },
      'card[number]': PAN,
      'cardNumber[]': [PAN],
    });
    const taken = scrubCardData(req);
    expect(taken.card).to.deep.equal({});
    expect(req.body).to.deep.equal({
      moid: 'ORD2',
      goodsName: 'x',
      buyerName: '홍길동',
      buyerEmail: 'a@b.kr',
      buyerTel: '01012345678',
      amount: '1000',
      _csrf: 'tok',
    });
  });

  it('empties the posted object in place, so a reference taken before the scrub keeps no card data either', () => {
    const body = { moid: 'ORD3', cardNumber: PAN, cardNo1: '4111' };
    const req = reqWith(body);
    scrubCardData(req);
    expect(body).to.deep.equal({ moid: 'ORD3' });
    expect(req.body).to.equal(body);
  });

  it('keeps an allow-listed field only as a single value without a card-number-like run (the Moid may be a long digit run)', () => {
    const req = reqWith({
      moid: '1732512345678901',
      goodsName: `${PAN.slice(0, 4)} ${PAN.slice(4, 8)} ${PAN.slice(8, 12)} ${PAN.slice(12)}`,
      buyerName: [PAN],
      quota: { n: PAN },
      buyerTel: '010-1234-5678',
    });
    const taken = scrubCardData(req);
    expect(req.body).to.deep.equal({ moid: '1732512345678901', buyerTel: '010-1234-5678' });
    // The router still sees what was posted, to refuse it by name.
    expect(taken.form).to.have.keys('moid', 'goodsName', 'buyerName', 'quota', 'buyerTel');
  });

  it("keeps the shop's keepFields, under the same value rules", () => {
    const req = reqWith({ moid: 'ORD4', note: 'gift', coupon: PAN, other: 'x' });
    expect(scrubCardData(req, ['note', 'coupon']).form).to.deep.equal({ moid: 'ORD4', note: 'gift', coupon: PAN });
    expect(req.body).to.deep.equal({ moid: 'ORD4', note: 'gift' });
  });

  it('replaces a body that is not a plain object (an array, a class instance, a string) with an empty one', () => {
    const inner = [{ cardNumber: PAN }, PAN];
    const arr = reqWith(inner);
    expect(scrubCardData(arr)).to.deep.equal({ card: {}, form: {} });
    expect(arr.body).to.deep.equal({});
    expect(inner).to.have.length(0);
    const inst = reqWith(
      new (class Form {
        cardNumber = PAN;
      })(),
    );
    scrubCardData(inst);
    expect(inst.body).to.deep.equal({});
    const text = reqWith(`cardNumber=${PAN}`); // a text parser mounted before the router
    scrubCardData(text);
    expect(text.body).to.deep.equal({});
  });

  it('reads card-data names in any spelling and leaves other names alone', () => {
    for (const name of [
      'cardNo1',
      'card_no',
      'CARD-NUMBER',
      'cardNumberConfirm',
      'validThru',
      'expiryDate',
      'exp_month',
      'birthYmd',
      'birth',
      'cardPass',
      'cvc',
      'CVV2',
      'pwd',
      'buyerAuthNum',
      'ssn',
    ]) {
      expect(isCardName(name), name).to.equal(true);
    }
    for (const name of ['note', 'coupon', 'shippingMemo', 'giftMessage', 'returnUrl', 'company']) {
      expect(isCardName(name), name).to.equal(false);
    }
  });
});
