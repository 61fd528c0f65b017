import { expect } from 'chai';
import {
  createNicepay,
  isNicepayError,
  NicepayError,
  type CancelResult,
  type NicepayGatewayError,
} from '../src/index.js';
import { startLifecycleShop, MERCHANT_KEY, MID, type LifecycleShop } from './helpers/lifecycle-shop.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';
import { rejectedWith } from './helpers/rejected.js';

const rejected = (p: Promise<unknown>): Promise<NicepayGatewayError> =>
  rejectedWith(p, NicepayError) as Promise<NicepayGatewayError>;

describe('cancel: every outcome against the sandbox', () => {
  let shop: LifecycleShop;
  before(async () => {
    shop = await startLifecycleShop();
  });
  afterEach(() => {
    shop.sandbox.faults.clear();
  });
  after(async () => {
    await shop.close();
    expect(shop.captured.text()).to.not.include(MERCHANT_KEY.slice(0, 16));
  });

  const refused = (r: CancelResult) => {
    if (r.status !== 'refused') throw new Error(`expected a refusal, got ${r.status}`);
    return r;
  };

  it('refuses what the gateway refuses, with code and reason: unknown TID, too large, full of a wrong amount, partial of a phone bill, of an unpaid virtual account', async () => {
    const card = await shop.pay('CARD', 1004);
    const phone = await shop.pay('CELLPHONE', 2000);
    const vbank = await shop.pay('VBANK', 3000);
    const cases: [Promise<CancelResult>, string, string][] = [
      [
        shop.nicepay.cancel({ tid: `${MID}01012611240930ZZZZ`, moid: card.moid, amount: 1004, reason: 'x' }),
        '2012',
        'not-found',
      ],
      [
        shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 2000, reason: 'x', partial: true }),
        '2032',
        'amount-too-large',
      ],
      [shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: 'x' }), '2059', 'balance-mismatch'],
      [
        shop.nicepay.cancel({ tid: phone.tid, moid: phone.moid, amount: 500, reason: 'x', partial: true }),
        '2029',
        'partial-not-allowed',
      ],
      [
        shop.nicepay.cancel({ tid: vbank.tid, moid: vbank.moid, amount: 500, reason: 'x', partial: true }),
        '2045',
        'vbank-state',
      ],
    ];
    for (const [p, code, reason] of cases) expect(refused(await p)).to.include({ code, reason, duplicate: false });
    expect(shop.sandbox.ledger.get(card.tid)!.cancels ?? []).to.have.length(0);
    // A refusal keeps nothing: the corrected cancel with the same key goes through.
    const ok = await shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1004, reason: 'x' });
    expect(ok.status).to.equal('cancelled');
  });

  it('an unpaid virtual account may be cancelled in full (no refund account needed)', async () => {
    const vbank = await shop.pay('VBANK', 3000);
    expect(
      await shop.nicepay.cancel({ tid: vbank.tid, moid: vbank.moid, amount: 3000, reason: '발급 취소' }),
    ).to.include({ status: 'cancelled', code: '2001' });
    expect((await shop.nicepay.status(vbank.tid)).status).to.equal('cancelled');
  });

  it('two partial cancels of the same amount on one day under two keys both go through, each with a Moid of its own', async () => {
    const card = await shop.pay('CARD', 3000);
    const a = await shop.nicepay.cancel({
      tid: card.tid,
      moid: card.moid,
      amount: 500,
      reason: 'a',
      partial: true,
      idempotencyKey: 'r1',
    });
    const b = await shop.nicepay.cancel({
      tid: card.tid,
      moid: card.moid,
      amount: 500,
      reason: 'a',
      partial: true,
      idempotencyKey: 'r2',
    });
    expect(a).to.include({ status: 'cancelled', remainingAmount: 2500, moid: card.moid });
    expect(b).to.include({ status: 'cancelled', remainingAmount: 2000, moid: card.moid });
    expect(a.cancelMoid).to.match(/^C[0-9a-f]{40}$/);
    expect(b.cancelMoid).to.not.equal(a.cancelMoid);
    expect(shop.sandbox.ledger.get(card.tid)!.cancels!.map((c) => c.moid)).to.deep.equal([a.cancelMoid, b.cancelMoid]);
  });

  it('the same cancel sent again by a client whose store forgot it carries the same Moid: the gateway refuses it as a duplicate (2060) until the clock moved', async () => {
    const card = await shop.pay('CARD', 3000);
    const input = { tid: card.tid, moid: card.moid, amount: 500, reason: 'a', partial: true, idempotencyKey: 'r1' };
    const first = await shop.nicepay.cancel(input);
    const forgetful = createNicepay({
      mid: MID,
      merchantKey: MERCHANT_KEY,
      baseUrl: shop.sandbox.url,
      clock: () => shop.sandbox.clock.now(),
    });
    try {
      const dup = await forgetful.cancel(input);
      expect(dup).to.include({
        status: 'refused',
        code: '2060',
        reason: 'duplicate-partial',
        cancelMoid: first.cancelMoid,
      });
      shop.sandbox.clock.advance(61_000);
      const later = await forgetful.cancel(input);
      expect(later).to.include({ status: 'cancelled', remainingAmount: 2000 });
    } finally {
      await forgetful.close();
    }
  });

  it('the cancel period passes after a year (2016)', async () => {
    // A published test MID's approvals are auto-cancelled at 23:30 KST; a year later this one must still stand.
    await shop.close();
    shop = await startLifecycleShop({ merchant: { testAutoCancel: false } });
    const card = await shop.pay('CARD', 1000);
    shop.sandbox.clock.advance(366 * 24 * 60 * 60 * 1000);
    try {
      expect(await shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: 'late' })).to.include({
        code: '2016',
        reason: 'period-passed',
      });
    } finally {
      shop.sandbox.clock.advance(-366 * 24 * 60 * 60 * 1000);
    }
  });

  it('a double-clicked refund button cancels once: the second gets the first result, marked duplicate', async () => {
    const card = await shop.pay('CARD', 5000);
    const input = {
      tid: card.tid,
      moid: card.moid,
      amount: 2000,
      reason: 'refund',
      partial: true,
      idempotencyKey: 'refund-77',
    };
    const [a, b] = await Promise.all([shop.nicepay.cancel(input), shop.nicepay.cancel(input)]);
    expect([a.duplicate, b.duplicate].sort()).to.deep.equal([false, true]);
    expect(a.status).to.equal('cancelled');
    expect(b.status).to.equal('cancelled');
    const again = await shop.nicepay.cancel(input);
    expect(again).to.include({ status: 'cancelled', duplicate: true, cancelledAmount: 2000, remainingAmount: 3000 });
    if (again.status !== 'refused') expect(again.cancelledAt).to.be.instanceOf(Date);
    expect(shop.sandbox.ledger.get(card.tid)!.cancels).to.have.length(1);
  });

  it("another cancel never gets a stored cancel's result because the parts of its key run together (a ':' in tid or idempotencyKey)", async () => {
    const card = await shop.pay('CARD', 5000);
    const first = await shop.nicepay.cancel({
      tid: card.tid,
      moid: card.moid,
      amount: 300,
      reason: 'r',
      partial: true,
      idempotencyKey: '5:k',
    });
    expect(first).to.include({ status: 'cancelled', duplicate: false });
    // (tid "T:300", amount 5, key "k") once made the same store key as (T, 300, "5:k").
    const other = await shop.nicepay
      .cancel({ tid: `${card.tid}:300`, moid: card.moid, amount: 5, reason: 'r', partial: true, idempotencyKey: 'k' })
      .then(
        (r) => r,
        (e: unknown) => e as NicepayError,
      );
    expect(other).to.not.include({ status: 'cancelled' });
    expect(other).to.not.have.property('duplicate', true);
    expect(shop.sandbox.ledger.get(card.tid)!.cancels).to.have.length(1);
  });

  it('refuses before sending what the shop knows is too much, and bad input, naming the option', async () => {
    const card = await shop.pay('CARD', 1000);
    const err = await rejected(
      shop.nicepay.cancel({
        tid: card.tid,
        moid: card.moid,
        amount: 800,
        reason: 'x',
        partial: true,
        remainingAmount: 700,
      }),
    );
    expect(err).to.include({ code: 'NICEPAY_CANCEL_EXCEEDS_REMAINING', status: 422, field: 'amount' });
    expect(
      (
        await rejected(
          shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 500, reason: 'x', remainingAmount: 700 }),
        )
      ).code,
    ).to.equal('NICEPAY_CANCEL_EXCEEDS_REMAINING');
    const long = await rejected(
      shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: '가'.repeat(51) }),
    );
    expect(long).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'reason' });
    expect(long.message).to.include('102 bytes in euc-kr').and.not.include('가');
    const holder = await rejected(
      shop.nicepay.cancel({
        tid: card.tid,
        moid: card.moid,
        amount: 1000,
        reason: 'x',
        refundAccount: { number: '1234', bankCode: '004', holder: '가나다라마바' },
      }),
    );
    expect(holder).to.include({ field: 'refundAccount.holder' });
    expect(
      (await rejected(shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1.5, reason: 'x' }))).field,
    ).to.equal('amount');
    expect(
      (await rejected(shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: '' }))).field,
    ).to.equal('reason');
    expect(
      (await rejected(shop.nicepay.cancel({ tid: ` ${card.tid}`, moid: card.moid, amount: 1000, reason: 'x' }))).field,
    ).to.equal('tid');
    expect((await rejected(shop.nicepay.status(`${card.tid} `))).field).to.equal('tid');
    expect(shop.sandbox.ledger.get(card.tid)!.cancels ?? []).to.have.length(0);
  });

  for (const code of ['2056', '1227']) {
    it(`${code} is a retry-later error that did nothing; the retry with the same key cancels`, async () => {
      const card = await shop.pay('CARD', 1000);
      shop.sandbox.faults.inject({ target: 'cancel', kind: 'decline', resultCode: code, resultMsg: '잠시 후 재시도' });
      const err = await rejected(shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: 'x' }));
      expect(err).to.include({ code: 'NICEPAY_RETRY_LATER', status: 503, outcomeUnknown: false, resultCode: code });
      expect(shop.sandbox.ledger.get(card.tid)!.status).to.equal('approved');
      expect(await shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: 'x' })).to.include({
        status: 'cancelled',
        duplicate: false,
      });
    });
  }

  const unverifiable = [
    { kind: 'bad-signature', code: 'NICEPAY_ANSWER_UNVERIFIED' },
    { kind: 'alter-amount', code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH' },
    { kind: 'truncate', code: 'NICEPAY_OUTCOME_UNKNOWN' },
  ] as const;
  for (const { kind, code } of unverifiable) {
    it(`an unverifiable answer (${kind}) is ${code}, being settled; the repeat completes it by sending it again, never cancelling twice`, async () => {
      const card = await shop.pay('CARD', 1000);
      shop.sandbox.faults.inject({ target: 'cancel', kind });
      const input = { tid: card.tid, moid: card.moid, amount: 1000, reason: 'x' };
      const err = await rejected(shop.nicepay.cancel(input));
      expect(err).to.include({ code, outcomeUnknown: true, settlement: 'pending', tid: card.tid });
      expect(JSON.stringify(err)).to.not.include(MERCHANT_KEY.slice(0, 16));
      // The repeat finds the record open and due, and settles it itself: the gateway did cancel,
      // so the cancel sent again is refused as done, which completes it.
      expect(await shop.nicepay.cancel(input)).to.include({ status: 'cancelled', duplicate: true });
      expect(shop.sandbox.ledger.get(card.tid)!.cancels).to.have.length(1);
      expect((await shop.nicepay.settle()).settled.filter((s) => s.tid === card.tid)).to.deep.equal([]);
      expect(await shop.nicepay.cancel(input)).to.include({ status: 'cancelled', duplicate: true });
    });
  }

  it('a timeout after sending is an unknown outcome being settled; settlement sends the cancel the gateway never did', async () => {
    const card = await shop.pay('CARD', 1000);
    // The answer would come after 10 minutes; the client's 2 s deadline is jumped to, not waited for.
    shop.sandbox.faults.inject({ target: 'cancel', kind: 'delay', delayMs: 600_000, commit: false });
    const err = await pastClientDeadline(shop.sandbox, () =>
      rejected(shop.nicepay.cancel({ tid: card.tid, moid: card.moid, amount: 1000, reason: 'x' })),
    );
    expect(err).to.include({
      code: 'NICEPAY_OUTCOME_UNKNOWN',
      outcomeUnknown: true,
      settlement: 'pending',
      tid: card.tid,
    });
    expect(shop.sandbox.ledger.get(card.tid)!.status).to.equal('approved');
    const report = await shop.nicepay.settle();
    expect(report.settled).to.deep.include({
      operation: 'cancel',
      mid: MID,
      tid: card.tid,
      moid: card.moid,
      amount: 1000,
      outcome: 'kept',
    });
    expect(report.unsettled.filter((u) => u.tid === card.tid)).to.deep.equal([]);
    expect(shop.sandbox.ledger.get(card.tid)!.status).to.equal('cancelled');
    expect(shop.sandbox.ledger.get(card.tid)!.cancels).to.have.length(1);
  });

  it('an unreachable gateway did nothing and says so', async () => {
    const np = createNicepay({
      mid: MID,
      merchantKey: MERCHANT_KEY,
      baseUrl: 'http://127.0.0.1:9',
      timeouts: { connectMs: 500, responseMs: 500 },
    });
    const err = await rejected(np.cancel({ tid: `${MID}01012611240930ZZZZ`, moid: 'm', amount: 1, reason: 'x' }));
    expect(err).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', outcomeUnknown: false });
    expect(isNicepayError(await rejected(np.status(`${MID}01012611240930ZZZZ`)))).to.equal(true);
    await np.close();
  });
});

describe('cancel: its own Moid reaches the cancel notice', () => {
  it('two 300-won partial cancels of one payment on one day reach onCancel twice, each with its CancelMOID', async () => {
    const shop = await startLifecycleShop({ merchant: { notifyCancels: true } });
    try {
      const paid = await shop.pay('CARD', 3_000);
      const a = await shop.nicepay.cancel({
        tid: paid.tid,
        moid: paid.moid,
        amount: 300,
        reason: '부분 취소',
        partial: true,
        idempotencyKey: 'refund-1',
      });
      const b = await shop.nicepay.cancel({
        tid: paid.tid,
        moid: paid.moid,
        amount: 300,
        reason: '부분 취소',
        partial: true,
        idempotencyKey: 'refund-2',
      });
      await shop.sandbox.notices.idle();
      const notices = shop.cancels.filter((c) => c.tid === paid.tid);
      expect(notices.map((c) => [c.amount, c.cancelMoid])).to.deep.equal([
        [300, a.cancelMoid],
        [300, b.cancelMoid],
      ]);
    } finally {
      await shop.close();
    }
  });
});
