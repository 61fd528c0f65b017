/**
 * Restart tests: a shop on sqliteStore (test/fixtures/sqlite-shop.ts, a child process) is killed
 * with SIGKILL at each step of a money operation (before its request leaves, after the gateway
 * committed and before the ledger moved, inside its hook before and after the shop recorded the
 * payment) for checkout, key-in, billing charge and cash receipt, then restarted on the same
 * ledger file; and, for some, its successor is killed again while it finishes the work (in the
 * settler's hook, its inquiry or its reversal); or killed while its hook hangs, after the request
 * was told so. The sandbox runs in this process, so its ledger outlives every shop.
 *
 * While a dead process's lease is live, its successor's settle() leaves the record alone. The
 * store's clock is then moved past the lease (sqliteStore's `now` option, "for tests": the
 * restart, as the leases see it, came LEASE_MS later; nothing waits on the wall clock), the
 * operation is repeated as the buyer or shop would (the same auth return, form or Moid), settle()
 * runs, and the shop, its books and the gateway must agree: at most one charge per Moid, every
 * TID the gateway holds recorded by the shop for its own order and nothing else, the hook run
 * again only where an earlier run may not have finished (never two runs at once), nothing open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LEASE_MS } from '../../src/pipeline/lease.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { describeLedgerFile, ledgerRowsOf } from '../helpers/ledger-file.js';
import { drive, OPERATIONS, type Operation } from '../helpers/restart-operations.js';
import {
  KILLED_TWICE,
  KILLED_WHILE_HOOK_HANGS,
  killedOnce,
  type Scenario,
  title,
} from '../helpers/restart-scenarios.js';
import { MERCHANT_KEY, MID } from '../helpers/shop.js';
import { openShopBook, overlappingRuns } from '../helpers/shop-book.js';
import { startShopProcess, type ShopAnswer, type ShopProcess } from '../helpers/sqlite-shop-process.js';

/** How far each restart moves the store's clock: past the lease of the process before it. */
const RESTART_LATER_MS = LEASE_MS + 1_000;

describe('a shop on sqliteStore killed with SIGKILL at each step, restarted on the same file', function () {
  this.timeout(90_000);
  let sandbox: Sandbox;
  let n = 0;

  before(async () => {
    // Payments must stand however late the run is: no 23:30 KST auto-cancel of the test MID.
    sandbox = createSandbox({ testAutoCancel: false });
    await sandbox.listen(0);
  });
  after(() => sandbox?.close());

  describe('killed once', () => {
    for (const o of OPERATIONS) {
      for (const point of o.hook
        ? (['before-send', 'after-commit', 'in-hook', 'in-hook-recorded'] as const)
        : (['before-send', 'after-commit'] as const)) {
        const s = killedOnce(o, point);
        it(title(s), () => run(s, ++n));
      }
    }
  });

  describe('killed again while its successor finishes the work', () => {
    for (const s of KILLED_TWICE) it(title(s), () => run(s, ++n));
  });

  describe('killed while its hook hangs, after the request was told so', () => {
    for (const s of KILLED_WHILE_HOOK_HANGS) it(title(s), () => run(s, ++n));
  });

  async function run(s: Scenario, caseNo: number): Promise<void> {
    const { o } = s;
    const dir = mkdtempSync(join(tmpdir(), 'nicepay-restart-'));
    const ledgerPath = join(dir, 'ledger.db');
    const env = {
      SANDBOX_URL: sandbox.url,
      MID,
      MERCHANT_KEY,
      LEDGER_PATH: ledgerPath,
      BOOK_PATH: join(dir, 'shop.db'),
    };
    const amount = 1_000 + caseNo * 100;
    const moid = `restart-${caseNo}-${amount}`;
    const shops: ShopProcess[] = [];
    const deaths = new Map<number, number>();
    const diagnose = (): string =>
      `\n-- ledger file --\n${describeLedgerFile(ledgerPath)}\n-- shop output --\n${shops.map((p) => p.output).join('\n---\n')}`;
    try {
      let send: Awaited<ReturnType<Operation['begin']>> | undefined;
      let tid = '';
      let key = '';
      for (let g = 0; g <= s.kills.length; g++) {
        const killAt = s.kills[g];
        const hang = killAt?.startsWith('hang:') ? killAt.slice('hang:'.length) : undefined;
        const shop = await startShopProcess(
          !killAt ? env : hang ? { ...env, HANG_HOOK: hang, HOOK_TIMEOUT_MS: '100' } : { ...env, KILL_AT: killAt },
        );
        shops.push(shop);
        if (g === 0) {
          send = await o.begin(sandbox, shop, moid, amount, caseNo);
          const cut = await send(shop);
          if (hang) {
            // Told that the hook did not finish and the payment is kept; then the process is killed.
            expect(cut.statusCode, JSON.stringify(cut.body) + diagnose()).to.equal(500);
            expect(cut.body).to.include({ code: 'NICEPAY_HOOK_FAILED', settlement: 'pending' });
            process.kill(shop.pid, 'SIGKILL');
          } else {
            expect(
              cut.statusCode,
              `the process was to die without answering; it answered ${JSON.stringify(cut.body)}${diagnose()}`,
            ).to.equal(0);
          }
        } else {
          const { repeat } = await restartedAfter(shop, g, s.left[g - 1]!, tid, key, send!);
          const done = await drive(shop, send!, repeat);
          if (!killAt) {
            await finalState(s, shop, done, {
              ledgerPath,
              bookPath: env.BOOK_PATH,
              moid,
              amount,
              tid,
              deaths,
              diagnose,
            });
            break;
          }
        }
        // This process dies at its KILL_AT; what it left in the file is what its successor finds.
        const exit = await shop.exited;
        deaths.set(shop.pid, exit.at);
        expect(exit.signal, diagnose()).to.equal('SIGKILL');
        if (!hang) expect(shop.output, 'it died at the step named, not elsewhere').to.include(`killed at ${killAt}`);
        const rows = ledgerRowsOf(ledgerPath, o.op, moid);
        expect(
          rows.map((r) => ({ open: r.open, state: r.record?.state, hook: r.record?.hook, amount: r.record?.amount })),
          diagnose(),
        ).to.deep.equal([{ open: true, ...s.left[g], amount }]);
        if (g === 0) {
          key = rows[0]!.key;
          tid = rows[0]!.record!.tid;
        }
        expect(rows[0]!.record!.tid, 'the record keeps its TID').to.equal(tid);
      }
    } finally {
      await Promise.all(shops.map((p) => p.stop()));
      rmSync(dir, { recursive: true, force: true });
    }

    /**
     * A restarted shop (the `g`th), while the last one's lease is live: its settle() leaves the
     * record `left` alone, and the buyer's or shop's repeat waits behind the lease (polling),
     * sending nothing and running no hook; behind a hung hook it is told at once that the hook
     * has not finished. Then the store clock passes the lease, and the repeat (the waiting one,
     * or a new one) goes on: its answer is `repeat`.
     */
    async function restartedAfter(
      shop: ShopProcess,
      g: number,
      left: Scenario['left'][number],
      tid: string,
      key: string,
      send: (shop: ShopProcess) => Promise<ShopAnswer>,
    ): Promise<{ repeat: Promise<ShopAnswer> }> {
      const { state } = left;
      await shop.advanceStoreClock((g - 1) * RESTART_LATER_MS);
      const book = openShopBook(join(dir, 'shop.db'), true);
      try {
        const runs = book.runs().length;
        const gateway = JSON.stringify(sandbox.ledger.byMoid(MID, moid));
        const early = await shop.settle();
        expect(
          early.settled.filter((x) => x.moid === moid),
          'settled under a live lease',
        ).to.deep.equal([]);
        expect(early.unsettled.filter((u) => u.moid === moid).map((u) => [u.tid, u.state])).to.deep.equal([
          [tid, state],
        ]);
        let repeat: Promise<ShopAnswer>;
        if (left.hook === 'hung') {
          const told = await send(shop);
          expect(told.statusCode, JSON.stringify(told.body)).to.equal(500);
          expect(told.body).to.include({ code: 'NICEPAY_HOOK_FAILED', settlement: 'pending', tid });
        } else {
          const waited = shop.busy(key, 3);
          repeat = send(shop);
          const first = await Promise.race([
            waited.then(() => 'waiting'),
            repeat.then((a) => `answered ${a.statusCode} ${JSON.stringify(a.body)}`),
          ]);
          expect(first, `a repeat under the dead holder's live lease waits${diagnose()}`).to.equal('waiting');
        }
        expect(book.runs(), "no hook runs under the dead holder's live lease").to.have.length(runs);
        expect(JSON.stringify(sandbox.ledger.byMoid(MID, moid)), 'nothing was sent under a live lease').to.equal(
          gateway,
        );
        await shop.advanceStoreClock(RESTART_LATER_MS);
        return { repeat: left.hook === 'hung' ? send(shop) : repeat! };
      } finally {
        book.close();
      }
    }
  }

  /** The last, living shop's end: its answer, the ledger file, the gateway, the shop's books. */
  async function finalState(
    s: Scenario,
    shop: ShopProcess,
    done: Awaited<ReturnType<typeof drive>>,
    c: {
      ledgerPath: string;
      bookPath: string;
      moid: string;
      amount: number;
      tid: string;
      deaths: Map<number, number>;
      diagnose: () => string;
    },
  ): Promise<void> {
    const { o } = s;
    const { moid, amount, tid } = c;
    expect(shop.dead, `the last shop lives${c.diagnose()}`).to.equal(false);
    expect(await shop.unsettled(), `nothing is left open${c.diagnose()}`).to.deep.equal([]);
    expect(
      done.settled.filter((x) => x.moid === moid).map((x) => x.outcome),
      `what settle() closed${c.diagnose()}`,
    ).to.deep.equal(s.settledAs ? [s.settledAs] : []);

    // The answer the repeats end with names this order's TID.
    if (s.charged) {
      expect(done.answer.statusCode, JSON.stringify(done.answer.body) + c.diagnose()).to.equal(200);
      expect(done.answer.body).to.include({ status: o.op === 'cash-receipt' ? 'issued' : 'approved', tid, moid });
    } else {
      expect(done.answer.statusCode, JSON.stringify(done.answer.body)).to.be.at.least(400);
      expect(done.answer.body).to.include({ tid, settlement: s.final });
    }

    // The ledger file: one record for the order, closed in its final state.
    const rows = ledgerRowsOf(c.ledgerPath, o.op, moid);
    expect(
      rows.map((r) => ({ open: r.open, state: r.record?.state, tid: r.record?.tid })),
      c.diagnose(),
    ).to.deep.equal([{ open: false, state: s.final, tid }]);

    // The gateway: at most one charge for the Moid, under the ledger's TID, sent once.
    const atGateway = sandbox.ledger.byMoid(MID, moid);
    expect(
      atGateway.filter((x) => x.status === 'approved' || x.status === 'awaiting-deposit').map((x) => x.tid),
      'what the gateway holds for the order',
    ).to.deep.equal(s.charged ? [tid] : []);
    expect(
      atGateway.every((x) => x.tid === tid),
      'no other TID for the order',
    ).to.equal(true);
    const sent = s.kills[0]!.startsWith('before-send:') ? 0 : 1;
    if (o.op === 'approval') expect(sandbox.ledger.get(tid)!.approvalCalls, 'approval calls').to.equal(sent);
    else expect(atGateway, 'requests that reached the gateway').to.have.length(sent);
    if (s.final === 'reversed') expect(sandbox.ledger.get(tid)).to.include({ status: 'cancelled' });
    if (s.final === 'reversed') expect(sandbox.ledger.get(tid)!.cancels, 'cancelled once').to.have.length(1);

    const book = openShopBook(c.bookPath, true);
    try {
      // The shop's books: the payment recorded exactly where the gateway holds it, for its own order.
      expect(book.paid(), 'what the shop recorded').to.deep.equal(s.charged ? [{ op: o.op, tid, moid, amount }] : []);
      for (const p of book.paid())
        expect(sandbox.ledger.get(p.tid)?.moid, `TID ${p.tid} is the gateway's for order ${p.moid}`).to.equal(p.moid);

      // The hook: run again only where an earlier run may not have finished, never two at once.
      const runs = book.runs();
      expect(
        runs.map((r) => [r.tid, r.moid]),
        JSON.stringify(runs),
      ).to.deep.equal(Array.from({ length: s.hookRuns }, () => [tid, moid]));
      const killedInHook = s.kills
        .map((k, g) => (k.startsWith('in-hook') || k.startsWith('hang:') ? g : -1))
        .filter((g) => g >= 0);
      const pids = [...c.deaths.keys()];
      expect(
        runs.filter((r) => r.endedAt === null).map((r) => r.pid),
        'only runs killed in the hook never ended',
      ).to.deep.equal(killedInHook.map((g) => pids[g]));
      expect(
        runs.filter((r) => r.endedAt !== null).map((r) => r.pid),
        'the living shop ran it to the end, once',
      ).to.deep.equal(s.hookRuns > 0 ? [shop.pid] : []);
      expect(
        overlappingRuns(runs, (pid) => c.deaths.get(pid) ?? Number.POSITIVE_INFINITY),
        'overlapping runs',
      ).to.deep.equal([]);
    } finally {
      book.close();
    }
  }
});
