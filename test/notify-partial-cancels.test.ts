/**
 * Partial-cancel notices of the same amount on one TID and day. A card cancel's notice carries
 * CancelMOID (each cancel's own Moid); a bank transfer's carries nothing to tell two such cancels
 * apart, so the shop's own cancels through nicepay.cancel, which the ledger tallies, say how many
 * there are: each reaches onCancel once, with its occurrence and cancel Moid, and a retried
 * notice of either is a repeat.
 */
import { expect } from 'chai';
import request from 'supertest';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { SETTLE_CHANNEL, type SettleEvent } from '../src/index.js';
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
      const a = await shop.nicepay.cancel({
        tid: paid.tid,
        moid: paid.moid,
        amount: 300,
        reason: '부분 환불',
        partial: true,
        idempotencyKey: 'refund-a',
      });
      await shop.sandbox.notices.idle();
      const b = await shop.nicepay.cancel({
        tid: paid.tid,
        moid: paid.moid,
        amount: 300,
        reason: '부분 환불',
        partial: true,
        idempotencyKey: 'refund-b',
      });
      await shop.sandbox.notices.idle();
      if (a.status !== 'cancelled' || b.status !== 'cancelled') throw new Error('not cancelled');
      // A card's notice names its cancel (CancelMOID): each is the first of its kind. A bank
      // transfer's is matched to the shop's cancels in the order the ledger recorded them.
      expect(
        shop.cancels.map((c) => ({ amount: c.amount, occurrence: c.occurrence, cancelMoid: c.cancelMoid })),
      ).to.deep.equal([
        { amount: 300, occurrence: 1, cancelMoid: a.cancelMoid },
        { amount: 300, occurrence: method === 'CARD' ? 1 : 2, cancelMoid: b.cancelMoid },
      ]);
      if (method === 'BANK') expect(shop.cancels[0]!.raw).to.not.have.property('CancelMOID');
      // The gateway delivers the first notice again (our OK was lost): a repeat, answered OK.
      const again = await request(shop.app)
        .post('/pay/notify')
        .set('content-type', 'application/x-www-form-urlencoded')
        .send(encodeForm(shop.cancels[0]!.raw as Record<string, string>, 'euc-kr').toString('latin1'));
      expect(again.text).to.equal('OK');
      expect(shop.cancels).to.have.length(2);
    });
  }

  /**
   * Cancels 300 won of `paid` under `idempotencyKey` with the cancel fault already injected: the
   * shop is told the outcome is unknown; returns the cancel's input once the gateway's notices
   * were delivered.
   */
  async function partCancelledUnknown(paid: { tid: string; moid: string }, idempotencyKey: string) {
    const input = { tid: paid.tid, moid: paid.moid, amount: 300, reason: '부분 환불', partial: true, idempotencyKey };
    const err = await shop.nicepay.cancel(input).catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'pending' });
    await shop.sandbox.notices.idle();
    return input;
  }

  it('CARD: a partial cancel whose answer was lost is settled by its cancel notice, which names it (CancelMOID): kept, announced, and a repeat of the call gets the cancel without sending it again', async () => {
    const paid = await shop.pay('CARD', 3_000);
    const events: SettleEvent[] = [];
    const listen = (m: unknown): void => void events.push(m as SettleEvent);
    subscribe(SETTLE_CHANNEL, listen);
    try {
      shop.sandbox.faults.inject({ target: 'cancel', kind: 'drop' });
      const input = await partCancelledUnknown(paid, 'refund-lost');
      expect(events.filter((e) => e.tid === paid.tid)).to.deep.equal([
        { operation: 'cancel', mid: shop.nicepay.mid, tid: paid.tid, moid: paid.moid, amount: 300, outcome: 'kept' },
      ]);
      expect((await shop.nicepay.unsettled()).filter((u) => u.tid === paid.tid)).to.deep.equal([]);
      const again = await shop.nicepay.cancel(input);
      expect(again).to.include({ status: 'cancelled', cancelledAmount: 300, duplicate: true });
      expect((shop.sandbox.ledger.get(paid.tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([300]);
      expect(shop.cancels.map((c) => c.cancelMoid)).to.deep.equal([
        again.status === 'cancelled' ? again.cancelMoid : '',
      ]);
    } finally {
      unsubscribe(SETTLE_CHANNEL, listen);
    }
  });

  it('CARD: a cancel notice that arrives while the partial cancel still waits for its answer leaves a mark: when the answer is lost, the first settlement pass keeps it, with nobody needed', async () => {
    const paid = await shop.pay('CARD', 3_000);
    // The gateway cancels at once and notifies; its answer comes too late for the client.
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'delay', delayMs: 2_500 });
    const input = await partCancelledUnknown(paid, 'refund-noticed-early');
    const notices = shop.sandbox.ledger.get(paid.tid)!.notices!.filter((n) => n.kind === 'cancel');
    expect(notices.map((n) => n.answer)).to.deep.equal(['OK']); // answered once: never sent again
    const report = await shop.nicepay.settle();
    expect(report.settled.filter((s) => s.tid === paid.tid).map((s) => s.outcome)).to.deep.equal(['kept']);
    expect((await shop.nicepay.unsettled()).filter((u) => u.tid === paid.tid)).to.deep.equal([]);
    const again = await shop.nicepay.cancel(input);
    expect(again).to.include({ status: 'cancelled', cancelledAmount: 300, duplicate: true });
    expect((shop.sandbox.ledger.get(paid.tid)?.cancels ?? []).map((c) => c.amount)).to.deep.equal([300]);
  });

  it('BANK: a partial cancel whose answer was lost stays open, needing attention, after its notice: a notice without CancelMOID cannot be told from a cancel made elsewhere', async () => {
    const paid = await shop.pay('BANK', 3_000);
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'drop' });
    const err = await shop.nicepay
      .cancel({ tid: paid.tid, moid: paid.moid, amount: 300, reason: '부분 환불', partial: true })
      .catch((e: unknown) => e);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    await shop.sandbox.notices.idle();
    expect(shop.cancels).to.have.length(1);
    expect((await shop.nicepay.unsettled()).filter((u) => u.tid === paid.tid))
      .to.have.length(1)
      .and.to.satisfy((u: Array<{ state: string }>) => u[0]!.state === 'unknown');
  });

  it('a bank transfer cancelled twice outside nicepay.cancel sends two identical notices: the second cannot be told from a retry and reaches onCancel once (documented)', async () => {
    const paid = await shop.pay('BANK', 3_000);
    const notice = {
      PayMethod: 'BANK',
      ResultCode: '2001',
      ResultMsg: '취소 성공',
      TID: paid.tid,
      MID: shop.nicepay.mid,
      MOID: paid.moid,
      Amt: '300',
      StateCd: '1',
      CancelDate: '20261127',
    };
    for (let i = 0; i < 2; i++) {
      const res = await request(shop.app)
        .post('/pay/notify')
        .set('content-type', 'application/x-www-form-urlencoded')
        .send(encodeForm(notice, 'euc-kr').toString('latin1'));
      expect(res.text).to.equal('OK');
    }
    expect(shop.cancels.map((c) => c.occurrence)).to.deep.equal([1]);
  });
});
