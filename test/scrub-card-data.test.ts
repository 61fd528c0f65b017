/** scrubCardData on its own: what it takes, what it deletes, what it keeps. */
import { expect } from 'chai';
import type { Request } from 'express';
import { scrubCardData } from '../src/express/scrub-card-data.js';

const PAN = '4111111111111111';
const reqWith = (body: unknown): Request => ({ body }) as Request;

describe('scrubCardData', () => {
  it('hands back the route\'s flat card fields and leaves the rest of the form', () => {
    const req = reqWith({ moid: 'ORD1', goodsName: '김치', cardNumber: PAN, cardExpiry: '3012', buyerAuthNum: '860719', cardPassword2: '12', quota: '00' });
    expect(scrubCardData(req)).to.deep.equal({ cardNumber: PAN, cardExpiry: '3012', buyerAuthNum: '860719', cardPassword2: '12' });
    expect(req.body).to.deep.equal({ moid: 'ORD1', goodsName: '김치', quota: '00' });
  });

  it('deletes card-named keys at any depth and in any spelling, and card-number-like values under any name', () => {
    const req = reqWith({
      moid: 'ORD2',
      order: { items: [{ sku: 'a', memo: `${PAN.slice(0, 4)}-${PAN.slice(4, 8)}-${PAN.slice(8, 12)}-${PAN.slice(12)}` }], 'card[number]': PAN },
      'cardNumber[]': [PAN], Card_Expiry: '3012', 'birth-date': '860719', CVC: '123', note: 'gift',
    });
    expect(scrubCardData(req)).to.deep.equal({});
    expect(req.body).to.deep.equal({ moid: 'ORD2', order: { items: [{ sku: 'a' }] }, note: 'gift' });
  });

  it('keeps a long digit run in the route\'s own Moid, but not the same digits under another name', () => {
    const req = reqWith({ moid: '1732512345678901', other: '1732512345678901' });
    scrubCardData(req);
    expect(req.body).to.deep.equal({ moid: '1732512345678901' });
  });

  it('replaces a body that is not a plain object (an array, a class instance, a string) whole', () => {
    const arr = reqWith([{ cardNumber: PAN }, PAN]);
    expect(scrubCardData(arr)).to.deep.equal({});
    expect(arr.body).to.deep.equal({});
    const inst = reqWith(new (class Form { cardNumber = PAN; })());
    scrubCardData(inst);
    expect(inst.body).to.deep.equal({});
    const text = reqWith(`cardNumber=${PAN}`); // a text parser mounted before the router
    scrubCardData(text);
    expect(text.body).to.deep.equal({});
  });

  it('drops whatever is nested deeper than any key-in form', () => {
    let deep: Record<string, unknown> = { number: PAN };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    const req = reqWith({ moid: 'ORD3', deep });
    scrubCardData(req);
    expect(JSON.stringify(req.body)).to.not.include(PAN);
  });
});
