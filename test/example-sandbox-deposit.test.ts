/**
 * The buyer page's sandbox deposit button (`POST /orders/:moid/sandbox-deposit`) is guarded
 * like the order page it sits on: only the browser that owns the order (or carries its signed
 * link) may make the sandbox pay the order's virtual account. Anyone else gets the shop's 404,
 * the same as for an order that does not exist, and no deposit happens.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import request from 'supertest';
import { payKimchi } from './helpers/example-order.js';
import type { Shop } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { type Sandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';
import { type NotifiedShop, startNotifiedShop } from './helpers/notified-shop.js';
import { tokenOf } from './helpers/settling-shop.js';

const { mid: MID } = TEST_MERCHANTS[0]!;

describe("example-app: the sandbox deposit of a buyer's virtual account is the owner's only", () => {
  let h: NotifiedShop;
  let sandbox: Sandbox;
  let shop: Shop;
  let server: Server;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  before(async () => {
    h = await startNotifiedShop({ logger, admin: { user: 'admin', password: 'deposit-test-pw' } });
    ({ sandbox, shop, server } = h);
  });
  after(() => h.close());

  /** `buyer` orders kimchi and gets a virtual account for it; returns the order and its signed result link. */
  async function orderByVirtualAccount(buyer: ReturnType<typeof request.agent>, name: string) {
    const { moid, resultLink } = await payKimchi(sandbox, buyer, 'VBANK', {
      buyerName: name,
      buyerEmail: `${name}@example.com`,
      buyerTel: '01099998888',
    });
    const order = shop.db.order(moid)!;
    expect(order).to.include({ status: 'awaiting-deposit', method: 'VBANK' });
    return { moid, tid: order.tid!, resultLink };
  }

  const deposited = (): boolean => logLines.some((l) => l.includes('sandbox deposit from the buyer page'));

  it("another browser (no buyer cookie, no signed link, the link of its own order, another spelling of the path) gets 404 and no deposit; the owner's deposit pays the order", async () => {
    const alice = request.agent(server);
    const mallory = request.agent(server);
    const victim = await orderByVirtualAccount(alice, 'alice');
    const own = await orderByVirtualAccount(mallory, 'mallory');
    const ownSignature = new URL(own.resultLink, 'http://shop').searchParams.get('t')!;

    for (const attempt of [
      () => request(server).post(`/orders/${victim.moid}/sandbox-deposit`), // a browser with no cookie at all
      () => mallory.post(`/orders/${victim.moid}/sandbox-deposit`), // a buyer with orders of her own
      () => mallory.post(`/orders/${victim.moid}/sandbox-deposit?t=${ownSignature}`), // her own order's signature moved
      () => request(server).post(`/Orders/${victim.moid}/sandbox-deposit`), // the path in another case
      () => request(server).post(`/orders/${victim.moid}/SANDBOX-DEPOSIT`),
      () => request(server).post(`/orders/${victim.moid}/sandbox-deposit/`),
    ]) {
      const res = await attempt();
      expect(res.status).to.equal(404);
      expect(res.headers.location).to.equal(undefined);
      expect(res.text).to.not.include('alice').and.not.include('01099998888').and.not.include(victim.tid);
    }
    expect(shop.db.order(victim.moid)).to.include({ status: 'awaiting-deposit' });
    const untouched = sandbox.ledger.get(victim.tid)!;
    expect(untouched.status).to.equal('awaiting-deposit');
    expect(untouched.deposit).to.equal(undefined);
    expect(untouched.notices ?? []).to.deep.equal([]);
    expect(deposited()).to.equal(false);

    const res = await alice.post(`/orders/${victim.moid}/sandbox-deposit`);
    expect(res.status, res.text).to.equal(303);
    expect(res.headers.location).to.equal(`/orders/${victim.moid}`);
    expect(shop.db.order(victim.moid)).to.include({ status: 'paid' });
    const paid = sandbox.ledger.get(victim.tid)!;
    expect(paid.status).to.equal('approved');
    expect(paid.notices!.map((n) => [n.kind, n.status, n.answer])).to.deep.equal([['deposit', 200, 'OK']]);
    expect(deposited()).to.equal(true);
    // mallory's own account was never paid by any of the above
    expect(shop.db.order(own.moid)).to.include({ status: 'awaiting-deposit' });
  });

  it('a virtual account past its deposit deadline offers no deposit, on the buyer page or in the back office, and neither route pays it', async () => {
    const buyer = request.agent(server);
    const order = await orderByVirtualAccount(buyer, 'late');
    const page = await buyer.get(`/orders/${order.moid}`);
    expect(page.text).to.include('id="sandbox-deposit"');
    // The sandbox's own deadline: 7 days on, 23:59:59 KST; a second later the bank takes nothing.
    const expiresAt = new Date(JSON.parse(shop.db.order(order.moid)!.result!).payment.virtualAccount.expiresAt);
    const before = sandbox.clock.now();
    sandbox.clock.set(new Date(expiresAt.getTime() + 1000));
    try {
      expect((await buyer.get(`/orders/${order.moid}`)).text).to.not.include('id="sandbox-deposit"');
      expect((await buyer.post(`/orders/${order.moid}/sandbox-deposit`)).status).to.equal(303);

      const admin = request.agent(server);
      const form = await admin.get('/admin/login');
      await admin
        .post('/admin/login')
        .type('form')
        .send({ _csrf: tokenOf(form.text), user: 'admin', password: 'deposit-test-pw', next: '/admin/orders' });
      const orderPage = await admin.get(`/admin/orders/${order.moid}`);
      expect(orderPage.status).to.equal(200);
      expect(orderPage.text).to.not.include('id="deposit-form"');
      const refused = await admin
        .post(`/admin/orders/${order.moid}/deposit`)
        .type('form')
        .send({ _csrf: tokenOf(orderPage.text) });
      expect(refused.status).to.equal(409);
      expect(refused.text).to.include('입금 기한이 지난 가상계좌입니다');

      expect(shop.db.order(order.moid)).to.include({ status: 'awaiting-deposit' });
      expect(sandbox.ledger.get(order.tid)!.deposit).to.equal(undefined);
    } finally {
      sandbox.clock.set(before);
    }
  });

  it('a deposit notice the sandbox did not book (posted by a buyer from the same machine) is answered FAIL and the order stays unpaid', async () => {
    const mallory = request.agent(server);
    const own = await orderByVirtualAccount(mallory, 'mallory2');
    // The embedded sandbox posts from 127.0.0.1, as every local process does: the source
    // address proves nothing on one machine, so the shop asks the sandbox's books.
    const notice = `MID=${MID}&TID=${own.tid}&MOID=${own.moid}&ResultCode=4110&PayMethod=VBANK&Amt=23000&AuthDate=261127120000`;
    const res = await request(server).post('/pay/notify').type('form').send(notice);
    expect(res.text).to.not.equal('OK');
    expect(shop.db.order(own.moid)).to.include({ status: 'awaiting-deposit' });
    expect(sandbox.ledger.get(own.tid)!.deposit).to.equal(undefined);
    // The sandbox's own deposit still pays it.
    expect((await mallory.post(`/orders/${own.moid}/sandbox-deposit`)).status).to.equal(303);
    expect(shop.db.order(own.moid)).to.include({ status: 'paid' });
  });
});
