/**
 * The back office's settlement page (/admin/settlement): a payment whose outcome was lost
 * (a sandbox fault on the approval, and on its net cancel) is listed with why it is open and
 * when it is tried next; "지금 정산" runs one nicepay.settle() pass and shows what it did; the
 * order ends as the gateway holds the payment. The shop's ledger is sqliteStore in the shop's
 * own SQLite file, and its onApproved hooks are idempotent by TID, so a payment whose hook ran
 * but was never recorded as done is kept when settlement runs the hook again.
 *
 * The shop's client and the sandbox share one frozen virtual clock: a record's back-off and its
 * attention bound pass when the test moves that clock. The automatic settler ticks once an
 * hour here, so only the button settles.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createShop, type Shop, type ShopOptions } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import type { LedgerStore, RecordWrite } from '../src/store/types.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'settle-admin-password';
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const textOf = (page: string, id: string): string | undefined => new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1]?.trim();
/** The `<tr>` of `table` whose data-tid is `tid`, or undefined. */
const rowOf = (page: string, table: string, tid: string): string | undefined =>
  new RegExp(`<table id="${table}">[\\s\\S]*?(<tr data-tid="${tid}"[\\s\\S]*?</tr>)`).exec(page)?.[1];

/** A shop on `sandbox`'s clock, signed in to its back office. */
async function startShop(sandbox: Sandbox, logger: Logger, options: Partial<ShopOptions> = {}) {
  const shop = createShop({
    mid: MID, merchantKey: KEY, baseUrl: sandbox.url, dbFile: ':memory:', logger, admin: { password: PASSWORD }, ...options,
    nicepay: { clock: () => sandbox.clock.now(), settle: { intervalMs: 3_600_000, attentionAfterMs: 10 * 60_000 }, ...options.nicepay },
  });
  const admin = request.agent(shop.app);
  const form = await admin.get('/admin/login');
  await admin.post('/admin/login').type('form').send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
  const page = await admin.get('/admin/settlement');
  expect(page.status).to.equal(200);
  return { shop, admin, csrf: tokenOf(page.text) };
}

describe('example-app: the settlement page (/admin/settlement)', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  let admin: ReturnType<typeof request.agent>;
  let csrf: string;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  before(async () => {
    sandbox = createSandbox({ testAutoCancel: false });
    sandbox.clock.freeze();
    await sandbox.listen(0);
    ({ shop, admin, csrf } = await startShop(sandbox, logger));
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  /** A buyer pays a kimchi order; the approval's answer is lost and so is its net cancel's. */
  async function lostApproval(): Promise<{ moid: string; tid: string }> {
    const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'kimchi' });
    const moid = /^\/checkout\/(\w+)\?/.exec(checkout.headers.location!)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
    sandbox.faults.inject({ target: 'approve', kind: 'status-500' });
    sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    const ret = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    expect(ret.status).to.equal(502);
    return { moid, tid: auth.fields.TxTid! };
  }
  const settleNow = () => admin.post('/admin/settlement').type('form').send({ _csrf: csrf });

  it('says there is nothing to settle when the ledger has no open payment, and is in the back office\'s bar', async () => {
    const page = await admin.get('/admin/settlement');
    expect(textOf(page.text, 'unsettled-count')).to.equal('0');
    expect(page.text).to.include('id="no-unsettled"').and.include('id="settle-submit"');
    expect(page.text).to.match(/<a href="\/admin\/settlement" id="admin-nav-settlement" aria-current="page">결제 정산<\/a>/);
  });

  it('lists an approval whose answer was lost; 지금 정산 reverses it and shows so, and the order stays unpaid as the gateway has it', async () => {
    const { moid, tid } = await lostApproval();
    expect(sandbox.ledger.get(tid)?.status).to.equal('approved');
    expect(shop.db.order(moid)).to.include({ status: 'pending' });

    const listed = await admin.get('/admin/settlement');
    expect(textOf(listed.text, 'unsettled-count')).to.equal('1');
    const row = rowOf(listed.text, 'unsettled', tid)!;
    expect(row).to.include('data-state="reversing"').and.include('data-attention="no"');
    expect(row).to.include('결제 승인').and.include(`<a href="/admin/orders/${moid}">${moid}</a>`).and.include('23,000원')
      .and.include('취소 확인 중').and.include('gateway answered HTTP 500').and.include('자동 재시도');
    // Every value of a row carries its column's label (a labelled card at phone width).
    expect(row.match(/<td /g)).to.have.length(9);
    expect(row.match(/<td [^>]*data-label="[^"]+"/g)).to.have.length(9);

    // Without the form's token nothing is settled.
    const forged = await admin.post('/admin/settlement').type('form').send({});
    expect(forged.status).to.equal(403);
    expect(sandbox.ledger.get(tid)?.status).to.equal('approved');

    const settled = await settleNow();
    expect(settled.status).to.equal(303);
    expect(settled.headers.location).to.equal('/admin/settlement');
    const done = await admin.get('/admin/settlement');
    expect(textOf(done.text, 'admin-ok')).to.equal('정산을 실행했습니다. 1건을 정리했고 0건이 남았습니다.');
    expect(rowOf(done.text, 'settled', tid)).to.include('data-outcome="reversed"').and.include('결제 취소');
    expect(done.text).to.include('id="no-unsettled"');
    expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
    expect(shop.db.order(moid)).to.include({ status: 'pending', tid: null });
    expect(logLines.some((l) => l.includes('"action":"settle"') && l.includes(tid))).to.equal(true);
    // The report is shown once: a reload shows the list only.
    const reload = await admin.get('/admin/settlement');
    expect(reload.text).to.not.include('id="admin-ok"').and.not.include('id="settled"');
  });

  it('marks a payment open past its bound as needing attention, retries it after its back-off, and settles it once the gateway answers', async () => {
    const { tid } = await lostApproval();
    sandbox.clock.advance(11 * 60_000);
    sandbox.faults.inject({ target: 'status', kind: 'status-500' });
    await settleNow();
    const stuck = await admin.get('/admin/settlement');
    expect(textOf(stuck.text, 'admin-ok')).to.equal('정산을 실행했습니다. 0건을 정리했고 1건이 남았습니다.');
    expect(rowOf(stuck.text, 'unsettled', tid)).to.include('data-attention="yes"').and.include('확인 필요').and.include('1회');
    expect(textOf(stuck.text, 'attention-count')).to.equal('확인 필요 1건');
    expect(sandbox.ledger.get(tid)?.status).to.equal('approved');

    // Within its back-off (30 s after a failed attempt) a pass leaves it alone.
    await settleNow();
    expect(rowOf((await admin.get('/admin/settlement')).text, 'unsettled', tid)).to.include('1회');
    sandbox.clock.advance(31_000);
    await settleNow();
    const done = await admin.get('/admin/settlement');
    expect(rowOf(done.text, 'settled', tid)).to.include('data-outcome="reversed"');
    expect(sandbox.ledger.get(tid)?.status).to.equal('cancelled');
  });
});

/**
 * The store's closing write of one `op` record fails as if the process died between the hook
 * and it: the order is marked paid, the ledger still says the hook has not finished.
 */
function losingClosed(store: LedgerStore, op: 'keyin' | 'approval'): LedgerStore {
  let lost = false;
  const closes = (w: RecordWrite): boolean => !w.open && (JSON.parse(w.value) as { op?: string }).op === op;
  return {
    ...store,
    write(key, token, record, release) {
      if (!lost && closes(record)) {
        lost = true;
        return Promise.resolve(false);
      }
      return store.write(key, token, record, release);
    },
  };
}

describe('example-app: settlement runs onApproved again, and the shop\'s hooks are idempotent by TID', () => {
  let sandbox: Sandbox;
  let dir: string;

  before(async () => {
    sandbox = createSandbox({ testAutoCancel: false });
    sandbox.clock.freeze();
    await sandbox.listen(0);
    dir = mkdtempSync(join(tmpdir(), 'shop-settle-'));
  });
  after(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A shop on `dbFile` whose store loses the closing write of one `op` record. */
  async function shopLosing(op: 'keyin' | 'approval', name: string) {
    const dbFile = join(dir, `${name}.db`);
    const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    // The ledger in the shop's file, its leases on the virtual clock so the dead holder's expires.
    const store = losingClosed(sqliteStore({ path: dbFile, now: () => sandbox.clock.now().getTime() }), op);
    return { store, ...(await startShop(sandbox, quiet, { dbFile, nicepay: { store } })) };
  }

  /** The dead holder's lease runs out; 지금 정산 runs the hook again; the page's report row. */
  async function settleAfterLease(admin: ReturnType<typeof request.agent>, csrf: string, tid: string): Promise<string | undefined> {
    sandbox.clock.advance(31_000);
    await admin.post('/admin/settlement').type('form').send({ _csrf: csrf });
    return rowOf((await admin.get('/admin/settlement')).text, 'settled', tid);
  }

  it('a key-in whose hook recorded the order but whose record never closed is kept: the order stays paid and the gateway keeps the payment', async () => {
    const { shop, admin, csrf, store } = await shopLosing('keyin', 'keyin');
    try {
      const buyer = request.agent(shop.app);
      const moid = /moid=([A-Z0-9]+)/.exec((await buyer.post('/keyin/order').type('form').send({ productId: 'jeju-tea' })).headers.location!)![1]!;
      await buyer.post('/keyin/pay').type('form').send({ moid, cardNumber: '4111111111111111', cardExpiry: '3012' });
      const tid = shop.db.order(moid)!.tid!;
      expect(shop.db.order(moid)).to.include({ status: 'paid' });
      expect(rowOf((await admin.get('/admin/settlement')).text, 'unsettled', tid)).to.include('data-state="committed"').and.include('카드 직접 결제');
      expect(await settleAfterLease(admin, csrf, tid)).to.include('data-outcome="kept"').and.include('결제 유지');
      expect(sandbox.ledger.get(tid)?.status).to.equal('approved');
      expect(shop.db.order(moid)).to.include({ status: 'paid', tid });
    } finally {
      await shop.close();
      await store.close?.();
    }
  });

  it('a window payment whose hook recorded the order but whose record never closed is kept the same way', async () => {
    const { shop, admin, csrf, store } = await shopLosing('approval', 'window');
    try {
      const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'kimchi' });
      const moid = /^\/checkout\/(\w+)\?/.exec(checkout.headers.location!)![1]!;
      const auth = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
      await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      const tid = auth.fields.TxTid!;
      expect(shop.db.order(moid)).to.include({ status: 'paid', tid });
      expect(rowOf((await admin.get('/admin/settlement')).text, 'unsettled', tid)).to.include('data-state="committed"').and.include('결제 승인');
      expect(await settleAfterLease(admin, csrf, tid)).to.include('data-outcome="kept"');
      expect(sandbox.ledger.get(tid)?.status).to.equal('approved');
      expect(shop.db.order(moid)).to.include({ status: 'paid', tid });
    } finally {
      await shop.close();
      await store.close?.();
    }
  });
});
