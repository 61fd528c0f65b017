/**
 * Two shop processes (test/fixtures/sqlite-shop.ts) sharing one sqliteStore file and one books
 * file, as the processes of one machine behind a load balancer: concurrent duplicate returns of
 * the same TxTids, spread over both, reach the gateway once per TxTid and run the shop's hook
 * once per TxTid; every other return is answered from the ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { AuthReturn, Sandbox } from '../../src/sandbox/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { readLedgerFile } from '../helpers/ledger-file.js';
import { MERCHANT_KEY, MID } from '../helpers/shop.js';
import { openShopBook, overlappingRuns } from '../helpers/shop-book.js';
import { startShopProcess, type ShopAnswer, type ShopProcess } from '../helpers/sqlite-shop-process.js';

const TXTIDS = 10;
const POSTS_PER_TXTID = 20;

/** A fixed shuffle (a linear congruential generator): the same interleaving on every run. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('two shop processes sharing one sqliteStore file', function () {
  this.timeout(90_000);
  let sandbox: Sandbox;
  let dir: string;
  let shops: ShopProcess[] = [];

  before(async () => {
    sandbox = createSandbox({ testAutoCancel: false });
    await sandbox.listen(0);
    dir = mkdtempSync(join(tmpdir(), 'nicepay-shared-'));
    // Each hook works 25 ms: a second run of it, from either process, would overlap the first.
    const env = {
      SANDBOX_URL: sandbox.url,
      MID,
      MERCHANT_KEY,
      LEDGER_PATH: join(dir, 'ledger.db'),
      BOOK_PATH: join(dir, 'shop.db'),
      HOOK_MS: '25',
    };
    // One after the other: both create the books' tables on an empty file.
    shops.push(await startShopProcess(env));
    shops.push(await startShopProcess(env));
  });

  after(async () => {
    await Promise.all(shops.map((s) => s.stop()));
    shops = [];
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`${POSTS_PER_TXTID} concurrent duplicate returns of each of ${TXTIDS} TxTids, alternating between the processes: one approval call and one hook run per TxTid, every return answered approved`, async () => {
    const auths: AuthReturn[] = [];
    for (let i = 0; i < TXTIDS; i++)
      auths.push(await sandbox.authenticate({ moid: `shared-${i}-${2_000 + i}`, amount: 2_000 + i, method: 'CARD' }));
    const posts = shuffled(
      auths.flatMap((auth) => Array.from({ length: POSTS_PER_TXTID }, (_, k) => ({ auth, shop: shops[k % 2]! }))),
      20_240_601,
    );
    const answers: { tid: string; a: ShopAnswer }[] = await Promise.all(
      posts.map(async ({ auth, shop }) => ({
        tid: auth.fields.TxTid!,
        a: await shop.post('/pay/return', auth.body, auth.contentType),
      })),
    );

    for (const { tid, a } of answers) {
      expect(a.statusCode, JSON.stringify(a.body)).to.equal(200);
      expect(a.body).to.include({ status: 'approved', tid });
    }
    const book = openShopBook(join(dir, 'shop.db'), true);
    try {
      const runs = book.runs();
      for (const auth of auths) {
        const tid = auth.fields.TxTid!;
        const entry = sandbox.ledger.get(tid)!;
        expect(entry.approvalCalls, `approval calls for ${tid}`).to.equal(1);
        expect(entry.status).to.equal('approved');
        expect(
          answers.filter((x) => x.tid === tid && x.a.body.duplicate === false),
          `first answers for ${tid}`,
        ).to.have.length(1);
        expect(
          runs.filter((r) => r.tid === tid),
          `hook runs for ${tid}`,
        ).to.have.length(1);
      }
      expect(
        runs.every((r) => r.endedAt !== null),
        'every run ended',
      ).to.equal(true);
      expect(overlappingRuns(runs, () => Number.POSITIVE_INFINITY)).to.deep.equal([]);
      // The shop recorded each payment once, for its own order.
      const paid = book.paid();
      expect(paid.map((p) => p.tid).sort()).to.deep.equal(auths.map((a) => a.fields.TxTid!).sort());
      for (const p of paid) expect(sandbox.ledger.get(p.tid)).to.include({ moid: p.moid, amount: p.amount });
    } finally {
      book.close();
    }

    // The shared file: one closed, recorded record per TxTid; nothing open in either process.
    const rows = readLedgerFile(join(dir, 'ledger.db'));
    expect(rows.map((r) => [r.record?.tid, r.open, r.record?.state]).sort()).to.deep.equal(
      auths.map((a) => [a.fields.TxTid!, false, 'recorded']).sort(),
    );
    for (const shop of shops) expect(await shop.unsettled()).to.deep.equal([]);
  });
});
