/**
 * The ledger's state machine (src/pipeline/state-machine.ts) row by row: docs/pipeline.md prints
 * the same table, and every row is driven through the public API against the sandbox (moves are
 * observed on the express-nicepay:ledger channel). A record a dead process left behind is written
 * into the store as that process would have, and its lease run out on the store's clock.
 */
import { expect } from 'chai';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createNicepay, LEDGER_CHANNEL, type LedgerMove, memoryStore, type Nicepay } from '../src/index.js';
import { LEASE_MS } from '../src/pipeline/lease.js';
import type { LedgerRecord } from '../src/pipeline/ledger-record.js';
import { TRANSITIONS } from '../src/pipeline/state-machine.js';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { captureLogger } from './helpers/capture.js';
import { MERCHANT_KEY, MID, startShop } from './helpers/shop.js';

const CARD = { number: '4111111111111111', expiry: '3012' };

describe('the state machine', () => {
  it('docs/pipeline.md prints exactly the rows of TRANSITIONS', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'pipeline.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| `([a-z-]+)` \| `([a-z-]+)` \| `([a-z-]+)` \| ([^|]+) \|$/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]} ${m[5]!.trim()}`,
    );
    expect(rows).to.deep.equal(TRANSITIONS.map((t) => `${t.from} ${t.on} ${t.to} ${t.then} ${t.told}`));
  });

  describe('every row, driven through the sandbox', function () {
    this.timeout(60_000);
    const seen = new Set<string>();
    const onMove = (m: unknown): void => {
      const move = m as LedgerMove;
      seen.add(`${move.from} ${move.event}`);
    };
    let sandbox: Sandbox;
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    let nicepay: Nicepay;
    /** A client on another store, as a process whose ledger the test does not see. */
    let elsewhere: Nicepay;

    before(async () => {
      subscribe(LEDGER_CHANNEL, onMove);
      // testAutoCancel off: the rows move the clock by hours from real time, past 23:30 KST in
      // an evening run.
      sandbox = createSandbox({ processedNamesOrder: true, testAutoCancel: false });
      await sandbox.listen(0);
      const options = {
        mid: MID,
        merchantKey: MERCHANT_KEY,
        baseUrl: sandbox.url,
        settle: false as const,
        clock: () => sandbox.clock.now(),
        logger: captureLogger().logger,
        timeouts: { connectMs: 1_000, responseMs: 2_000 },
      };
      nicepay = createNicepay({ ...options, store });
      elsewhere = createNicepay(options);
    });
    after(async () => {
      unsubscribe(LEDGER_CHANNEL, onMove);
      await nicepay.close();
      await elsewhere.close();
      await sandbox.close();
    });

    /** Writes `record` under `key` as a process that then died would have, and lets its lease run out. */
    async function leftBehind(
      key: string,
      record: Omit<LedgerRecord, 'v' | 'mid' | 'at' | 'attempts' | 'data' | 'binding'> & Partial<LedgerRecord>,
    ): Promise<void> {
      const full: LedgerRecord = {
        v: 1,
        mid: MID,
        at: sandbox.clock.now().getTime(),
        attempts: 0,
        data: {},
        binding: 'b',
        ...record,
      };
      const got = await store.acquire(key, LEASE_MS, { value: JSON.stringify(full), open: true, dueAt: 0 });
      expect(got.state).to.equal('acquired');
      now += LEASE_MS + 1;
    }

    /** A key-in the gateway holds, made where this ledger cannot see it. */
    async function heldKeyin(moid: string): Promise<string> {
      const r = await elsewhere.keyin({ moid, amount: 1_000, goodsName: '키인', card: CARD });
      if (r.status !== 'approved') throw new Error('not approved');
      return r.tid;
    }

    it('the request side of approvals and key-ins', async () => {
      const shop = await startShop({ sandbox, nicepay: { store, settle: false } });
      try {
        const post = (fields: Record<string, string | undefined>, contentType: string) =>
          request(shop.app)
            .post('/pay/return')
            .set('content-type', contentType)
            .send(encodeForm(fields, 'euc-kr').toString('latin1'));
        const pay = async (moid: string) => {
          shop.orders.set(moid, 3_000);
          const auth = await sandbox.authenticate({ moid, amount: 3_000, method: 'CARD' });
          return { auth, res: await post(auth.fields, auth.contentType) };
        };
        await pay('sm-committed'); // sending committed, committed hook-resolved
        const forged = await sandbox.authenticate({ moid: 'sm-forged', amount: 3_000, method: 'CARD' });
        shop.orders.set('sm-forged', 3_000);
        await post({ ...forged.fields, TxTid: `${MID}01012611270000000001` }, forged.contentType); // invalid
        sandbox.faults.inject({ target: 'approve', kind: 'decline' });
        await pay('sm-declined'); // declined
        shop.orders.set('sm-other', 3_000);
        const swapped = await sandbox.authenticate({ moid: 'sm-swap', amount: 3_000, method: 'CARD' });
        sandbox.faults.inject({ target: 'approve', kind: 'decline' });
        await post({ ...swapped.fields, Moid: 'sm-other' }, swapped.contentType); // declined-unattributed
        sandbox.faults.inject({ target: 'approve', kind: 'status-500' });
        await pay('sm-lost'); // lost, unknown reversal-confirmed
        sandbox.faults.inject({ target: 'approve', kind: 'status-500' });
        sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
        await pay('sm-reversal-failed'); // unknown reversal-failed
        // Another instance, whose store forgot: recovered for its own order, processed elsewhere for another.
        const restarted = await startShop({ sandbox, nicepay: { settle: false } });
        try {
          const paid = await pay('sm-replay');
          restarted.orders.set('sm-replay', 3_000).set('sm-replay-other', 3_000);
          const replay = (fields: Record<string, string | undefined>) =>
            request(restarted.app)
              .post('/pay/return')
              .set('content-type', paid.auth.contentType)
              .send(encodeForm(fields, 'euc-kr').toString('latin1'));
          expect((await replay({ ...paid.auth.fields, Moid: 'sm-replay-other' })).status).to.equal(409); // processed-elsewhere
          expect((await replay(paid.auth.fields)).body).to.include({ recovered: true }); // recovered
        } finally {
          await restarted.close();
        }
      } finally {
        await shop.close();
      }
      const unreachable = createNicepay({
        mid: MID,
        merchantKey: MERCHANT_KEY,
        baseUrl: 'http://127.0.0.1:9',
        store,
        settle: false,
        logger: captureLogger().logger,
        timeouts: { connectMs: 500, responseMs: 500 },
      });
      await unreachable
        .keyin({ moid: 'sm-not-sent', amount: 1_000, goodsName: '키인', card: CARD })
        .catch(() => undefined); // not-sent
      await unreachable.close();
      await nicepay
        .keyin({
          moid: 'sm-hook-rejected',
          amount: 1_000,
          goodsName: '키인',
          card: CARD,
          onApproved: () => Promise.reject(new Error('db down')),
        })
        .catch(() => undefined); // hook-rejected
      let release!: () => void;
      await nicepay
        .keyin({
          moid: 'sm-hook-hung',
          amount: 1_000,
          goodsName: '키인',
          card: CARD,
          hookTimeoutMs: 10,
          onApproved: () => new Promise<void>((r) => (release = r)),
        })
        .catch(() => undefined); // hook-hung
      release();
    });

    it('cancels: refused, retry later, unconfirmed, and settlement sending them again', async () => {
      const tid = await heldKeyin('sm-cancel');
      await nicepay.cancel({ tid: `${MID}01012611270000000009`, moid: 'x', amount: 1_000, reason: '없음' }); // refused (2012)
      sandbox.faults.inject({ target: 'cancel', kind: 'decline', resultCode: '2056', resultMsg: '카드사 타임아웃' });
      await nicepay
        .cancel({ tid, moid: 'sm-cancel', amount: 100, reason: '부분', partial: true })
        .catch(() => undefined); // retry
      // Each full cancel's answer is lost (unconfirmed); settlement sends it again, one at a time
      // (a partial cancel is never sent again: it could be done twice).
      const lostThenResent = async (
        moid: string,
        commit: boolean,
        resend?: Parameters<typeof sandbox.faults.inject>[0],
      ) => {
        const held = await heldKeyin(moid);
        sandbox.faults.inject({ target: 'cancel', kind: 'drop', commit });
        await nicepay.cancel({ tid: held, moid, amount: 1_000, reason: '전액' }).catch(() => undefined); // unconfirmed
        now += 1;
        if (resend) sandbox.faults.inject(resend);
        await nicepay.settle();
      };
      await lostThenResent('sm-cancel-a', true); // done already: committed
      await lostThenResent('sm-cancel-b', false, {
        target: 'cancel',
        kind: 'decline',
        resultCode: '2016',
        resultMsg: '취소 기간 경과',
      }); // declined
      await lostThenResent('sm-cancel-c', false, { target: 'cancel', kind: 'drop', commit: false }); // unconfirmed again
      await lostThenResent('sm-cancel-d', false, {
        target: 'cancel',
        kind: 'decline',
        resultCode: '2056',
        resultMsg: '카드사 타임아웃',
      }); // retry
      expect(sandbox.faults.pending()).to.deep.equal([]);
    });

    it('settlement of records a dead process left in each open state', async () => {
      sandbox.faults.clear();
      // sending: the gateway holds it (no hook: unheard; a hook registered: it runs), reversed, none, unanswered.
      await leftBehind(`keyin:${MID}:sm-s-unheard`, {
        op: 'keyin',
        state: 'sending',
        hook: 'none',
        tid: await heldKeyin('sm-s-unheard'),
        moid: 'sm-s-unheard',
        amount: 1_000,
      });
      await leftBehind(`keyin:${MID}:sm-s-holds`, {
        op: 'keyin',
        state: 'sending',
        hook: 'pending',
        tid: await heldKeyin('sm-s-holds'),
        moid: 'sm-s-holds',
        amount: 1_000,
      });
      const cancelledTid = await heldKeyin('sm-s-reversed');
      await elsewhere.cancel({ tid: cancelledTid, moid: 'sm-s-reversed', amount: 1_000, reason: '취소' });
      await leftBehind(`keyin:${MID}:sm-s-reversed`, {
        op: 'keyin',
        state: 'sending',
        hook: 'none',
        tid: cancelledTid,
        moid: 'sm-s-reversed',
        amount: 1_000,
      });
      await leftBehind(`keyin:${MID}:sm-s-none`, {
        op: 'keyin',
        state: 'sending',
        hook: 'none',
        tid: `${MID}01012611270000000101`,
        moid: 'sm-s-none',
        amount: 1_000,
      });
      // unknown and reversing: holds, reversed, none.
      for (const state of ['unknown', 'reversing'] as const) {
        await leftBehind(`keyin:${MID}:sm-${state}-holds`, {
          op: 'keyin',
          state,
          hook: 'none',
          tid: await heldKeyin(`sm-${state}-holds`),
          moid: `sm-${state}-holds`,
          amount: 1_000,
        });
        const gone = await heldKeyin(`sm-${state}-reversed`);
        await elsewhere.cancel({ tid: gone, moid: `sm-${state}-reversed`, amount: 1_000, reason: '취소' });
        await leftBehind(`keyin:${MID}:sm-${state}-reversed`, {
          op: 'keyin',
          state,
          hook: 'none',
          tid: gone,
          moid: `sm-${state}-reversed`,
          amount: 1_000,
        });
        await leftBehind(`keyin:${MID}:sm-${state}-none`, {
          op: 'keyin',
          state,
          hook: 'none',
          tid: `${MID}0101261127000000${state === 'unknown' ? '0201' : '0301'}`,
          moid: `sm-${state}-none`,
          amount: 1_000,
        });
      }
      // committed with its hook unfinished: none registered (waits for a repeat), then the repeat runs it.
      await leftBehind(`keyin:${MID}:sm-c-hook`, {
        op: 'keyin',
        state: 'committed',
        hook: 'pending',
        tid: await heldKeyin('sm-c-hook'),
        moid: 'sm-c-hook',
        amount: 1_000,
        fields: { ResultCode: '3001' },
      });
      // committed, its hook run again by settlement and rejecting: an earlier run may still be under way.
      nicepay.keyinCharger({ name: 'sm-rejects', onApproved: () => Promise.reject(new Error('row locked')) });
      const rejectedTid = await heldKeyin('sm-c-rejects');
      await leftBehind(`keyin:${MID}:sm-c-rejects`, {
        op: 'keyin',
        state: 'committed',
        hook: 'pending',
        hookName: 'sm-rejects',
        tid: rejectedTid,
        moid: 'sm-c-rejects',
        amount: 1_000,
        fields: { ResultCode: '3001' },
      });
      let report = await nicepay.settle();
      expect(report.unsettled.find((u) => u.moid === 'sm-c-hook')).to.include({ state: 'committed' });
      expect(report.unsettled.find((u) => u.moid === 'sm-c-rejects')).to.include({ state: 'committed' });
      expect(sandbox.ledger.get(rejectedTid)?.status).to.equal('approved');
      // A reversal that fails (reversing reversal-failed) and an inquiry that fails (unanswered), for one of each open state.
      for (const state of ['sending', 'unknown', 'reversing'] as const) {
        await leftBehind(`keyin:${MID}:sm-${state}-unanswered`, {
          op: 'keyin',
          state,
          hook: 'none',
          tid: await heldKeyin(`sm-${state}-unanswered`),
          moid: `sm-${state}-unanswered`,
          amount: 1_000,
        });
      }
      sandbox.faults.inject({ target: 'status', kind: 'status-500', times: 3 });
      report = await nicepay.settle();
      expect(
        report.unsettled.filter((u) => u.moid.endsWith('-unanswered')),
        JSON.stringify(report),
      ).to.have.length(3);
      now += 1;
      sandbox.clock.advance(60 * 60_000);
      sandbox.faults.inject({ target: 'cancel', kind: 'status-500', commit: false, times: 20 });
      report = await nicepay.settle();
      expect(report.unsettled.filter((u) => u.moid.endsWith('-unanswered') && u.state === 'reversing')).to.have.length(
        3,
      );
      sandbox.faults.clear();
    });

    it('has driven every row of the table', () => {
      const rows = TRANSITIONS.map((t) => `${t.from} ${t.on}`);
      expect(
        rows.filter((r) => !seen.has(r)),
        'rows never driven',
      ).to.deep.equal([]);
      expect(
        [...seen].filter((s) => !rows.includes(s)),
        'moves outside the table',
      ).to.deep.equal([]);
    });
  });
});
