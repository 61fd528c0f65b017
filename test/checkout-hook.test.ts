/**
 * onApproved and hookTimeoutMs: the payment follows what the shop's hook finally does, so the
 * gateway and the shop never disagree. The timeout only aborts the hook's signal; the hooks here
 * wait for that abort (a controllable promise, no sleeps), and one that never settles is
 * reported (settlement pending), not reversed, a second hookTimeoutMs later, its record kept
 * committed and leased until it settles.
 */
import { expect } from 'chai';
import request from 'supertest';
import { memoryStore, type CommittedCheckout } from '../src/index.js';
import { MID, postReturn, startShop, type TestShop } from './helpers/shop.js';

describe('checkoutReturn: onApproved past hookTimeoutMs', () => {
  let base: TestShop;
  before(async () => {
    base = await startShop();
  });
  after(() => base.close());

  /** A shop whose hook waits for its signal to abort, then does `then`. */
  async function slowShop(then: 'record' | 'reject') {
    const recorded: string[] = [];
    const aborted: unknown[] = [];
    const shop = await startShop({
      sandbox: base.sandbox,
      route: {
        hookTimeoutMs: 20,
        onApproved: (result: CommittedCheckout, _req, { signal }) =>
          new Promise<void>((resolve, reject) => {
            signal.addEventListener('abort', () => {
              aborted.push(signal.reason);
              if (then === 'record') {
                recorded.push(result.moid);
                resolve();
              } else {
                reject(new Error('order store gave up'));
              }
            });
          }),
      },
    });
    return { shop, recorded, aborted };
  }

  async function pay(shop: TestShop, moid: string) {
    shop.orders.set(moid, 3_000);
    const auth = await base.sandbox.authenticate({ moid, amount: 3_000, method: 'CARD' });
    return { auth, res: await postReturn(shop, auth) };
  }

  it('a slow hook that finally records the order: the payment is kept, the buyer sees it approved', async () => {
    const { shop, recorded, aborted } = await slowShop('record');
    try {
      const { auth, res } = await pay(shop, 'slow-ok');
      expect(aborted).to.have.length(1);
      expect(String((aborted[0] as Error).message)).to.match(/longer than 20 ms/);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ status: 'approved', moid: 'slow-ok' });
      expect(recorded).to.deep.equal(['slow-ok']);
      expect(base.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      // A duplicate gets the same truth, without a second hook or approval.
      const again = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(again.body).to.include({ status: 'approved', duplicate: true });
      expect(base.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
      expect(shop.captured.text()).to.include('onApproved settled after its signal aborted');
    } finally {
      await shop.close();
    }
  });

  it('a slow hook that finally fails: net-cancelled, NICEPAY_HOOK_FAILED with settlement reversed, and the shop recorded nothing', async () => {
    const { shop, recorded, aborted } = await slowShop('reject');
    try {
      const { auth, res } = await pay(shop, 'slow-fail');
      expect(aborted).to.have.length(1);
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'succeeded' });
      expect(shop.errors.at(-1)).to.include({ settlement: 'reversed', outcomeUnknown: false });
      expect(recorded).to.deep.equal([]);
      expect(base.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('net-cancelled');
    } finally {
      await shop.close();
    }
  });

  it('a hook that never settles: no net cancel behind its back, HOOK_FAILED with settlement pending, a repeat answered the same without a gateway call, and the request and close() still end', async () => {
    const shop = await startShop({
      sandbox: base.sandbox,
      route: { hookTimeoutMs: 20, onApproved: () => new Promise<void>(() => undefined) },
    });
    try {
      const { auth, res } = await pay(shop, 'hung-hook');
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted' });
      expect(shop.errors.at(-1)).to.include({ settlement: 'pending', outcomeUnknown: true, tid: auth.fields.TxTid });
      // The gateway keeps the payment: the hook may still record it; nothing was reversed.
      expect(base.sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('approved');
      const again = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(again.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted' });
      expect(base.sandbox.ledger.get(auth.fields.TxTid!)?.approvalCalls).to.equal(1);
    } finally {
      await shop.close();
    }
  });

  it('a hook that finishes in time never sees its signal abort', async () => {
    const signals: AbortSignal[] = [];
    const shop = await startShop({
      sandbox: base.sandbox,
      route: { hookTimeoutMs: 60_000, onApproved: (_r, _q, { signal }) => void signals.push(signal) },
    });
    try {
      const { res } = await pay(shop, 'quick-hook');
      expect(res.body).to.include({ status: 'approved' });
      expect(signals).to.have.length(1);
      expect(signals[0]!.aborted).to.equal(false);
    } finally {
      await shop.close();
    }
  });

  it("a hung hook keeps its payment's ledger record leased until it settles; then the record is closed as recorded", async () => {
    const store = memoryStore();
    let finish: (() => void) | undefined;
    const shop = await startShop({
      sandbox: base.sandbox,
      nicepay: { store },
      route: {
        hookTimeoutMs: 20,
        onApproved: () =>
          new Promise<void>((r) => {
            finish = r;
          }),
      },
    });
    try {
      const { auth, res } = await pay(shop, 'hung-then-done');
      expect(res.body).to.include({ code: 'NICEPAY_HOOK_FAILED', netCancel: 'not-attempted' });
      const key = `approval:${MID}:${auth.fields.TxTid!}`;
      // A repeat of this TID (or settlement) finds it running.
      expect((await store.acquire(key, 1_000)).state).to.equal('busy');
      finish!();
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      const closed = await store.acquire(key, 1_000);
      expect(closed.state).to.equal('closed');
      expect(closed.record && JSON.parse(closed.record.value)).to.include({ state: 'recorded', hook: 'resolved' });
    } finally {
      await shop.close();
    }
  });
});
