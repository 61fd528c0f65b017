/**
 * Partial-cancel notices of the same amount on one TID and day. A card cancel's notice carries
 * CancelMOID (each cancel's own Moid); a bank transfer's carries nothing to tell two such cancels
 * apart, so the shop's own cancels through nicepay.cancel, which the ledger tallies, say how many
 * there are: each reaches onCancel once, with its occurrence and cancel Moid, and a retried
 * notice of either is a repeat.
 */
import { expect } from 'chai';
import request from 'supertest';
import { encodeForm } from '../src/wire/form-codec.js';
import { startLifecycleShop, type LifecycleShop } from './helpers/lifecycle-shop.js';

describe('partial-cancel notices of the same amount on one TID and day', () => {
  let shop: LifecycleShop;
  beforeEach(async () => {
    shop = await startLifecycleShop({ merchant: { notifyCancels: true } });
  });
  afterEach(() => shop.close());

  for (const method of ['BANK', 'CARD'] as const) {
    it(`${method}: two 300-won partial cancels reach onCancel twice, each with its own cancel Moid; a retried notice reaches it no more`, async () => {
      const paid = await shop.pay(method, 3_000);
      const a = await shop.nicepay.cancel({ tid: paid.tid, moid: paid.moid, amount: 300, reason: '부분 환불', partial: true, idempotencyKey: 'refund-a' });
      await shop.sandbox.notices.idle();
      const b = await shop.nicepay.cancel({ tid: paid.tid, moid: paid.moid, amount: 300, reason: '부분 환불', partial: true, idempotencyKey: 'refund-b' });
      await shop.sandbox.notices.idle();
      if (a.status !== 'cancelled' || b.status !== 'cancelled') throw new Error('not cancelled');
      // A card's notice names its cancel (CancelMOID): each is the first of its kind. A bank
      // transfer's is matched to the shop's cancels in the order the ledger recorded them.
      expect(shop.cancels.map((c) => ({ amount: c.amount, occurrence: c.occurrence, cancelMoid: c.cancelMoid }))).to.deep.equal([
        { amount: 300, occurrence: 1, cancelMoid: a.cancelMoid },
        { amount: 300, occurrence: method === 'CARD' ? 1 : 2, cancelMoid: b.cancelMoid },
      ]);
      if (method === 'BANK') expect(shop.cancels[0]!.raw).to.not.have.property('CancelMOID');
      // The gateway delivers the first notice again (our OK was lost): a repeat, answered OK.
      const again = await request(shop.app).post('/pay/notify').set('content-type', 'application/x-www-form-urlencoded').send(encodeForm(shop.cancels[0]!.raw as Record<string, string>, 'euc-kr').toString('latin1'));
      expect(again.text).to.equal('OK');
      expect(shop.cancels).to.have.length(2);
    });
  }

  it('a bank transfer cancelled twice outside nicepay.cancel sends two identical notices: the second cannot be told from a retry and reaches onCancel once (documented)', async () => {
    const paid = await shop.pay('BANK', 3_000);
    const notice = { PayMethod: 'BANK', ResultCode: '2001', ResultMsg: '취소 성공', TID: paid.tid, MID: shop.nicepay.mid, MOID: paid.moid, Amt: '300', StateCd: '1', CancelDate: '20261127' };
    for (let i = 0; i < 2; i++) {
      const res = await request(shop.app).post('/pay/notify').set('content-type', 'application/x-www-form-urlencoded').send(encodeForm(notice, 'euc-kr').toString('latin1'));
      expect(res.text).to.equal('OK');
    }
    expect(shop.cancels.map((c) => c.occurrence)).to.deep.equal([1]);
  });
});
