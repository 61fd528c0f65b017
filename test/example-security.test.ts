/**
 * The example shop's buyer pages and login, attacked from outside: a buyer sees only their own
 * orders (cookie or signed link), the login bounds password guessing, and every page sends
 * security headers that forbid framing.
 */
import { expect } from 'chai';
import request from 'supertest';
import { payKimchi } from './helpers/example-order.js';
import { createShop, type Shop, type ShopOptions } from '../example-app/app.js';
import { LOGIN_FAILURES_PER_WINDOW, LOGIN_VIEWS_PER_WINDOW } from '../example-app/admin-auth.js';
import { ANONYMOUS_SESSIONS } from '../example-app/admin-sessions.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'correct horse battery';
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

describe('example-app: own orders only, bounded login, security headers', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  const logLines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => void logLines.push(JSON.stringify({ ...obj, msg }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };

  /** A shop of its own on the test's sandbox, in memory, logging into `logLines`. */
  const newShop = (extra: Partial<ShopOptions> = {}): Shop =>
    createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      logger,
      admin: { password: PASSWORD },
      ...extra,
    });

  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
    shop = newShop();
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  /** A buyer places a window order and pays it by card; returns the order and its signed link. */
  async function buyAndPay(buyer: ReturnType<typeof request.agent>, name: string) {
    const paid = await payKimchi(sandbox, buyer, 'CARD', {
      buyerName: name,
      buyerEmail: `${name}@example.com`,
      buyerTel: '01012345678',
    });
    return { ...paid, tid: shop.db.order(paid.moid)!.tid! };
  }

  /**
   * A buyer's three orders: one awaiting the window (with the buyer's name, e-mail and phone
   * 01099998888), one paid by card (`name`), one awaiting key-in.
   */
  async function threeOrders(buyer: ReturnType<typeof request.agent>, name: string) {
    const pending = await buyer.post('/checkout').type('form').send({
      productId: 'jeju-tea',
      buyerName: '김앨리스',
      buyerEmail: 'alice@example.com',
      buyerTel: '01099998888',
    });
    const pendingMoid = /^\/checkout\/(\w+)\?t=/.exec(pending.headers.location!)![1]!;
    const paid = await buyAndPay(buyer, name);
    const keyin = await buyer.post('/keyin/order').type('form').send({ productId: 'jeju-tea' });
    return { pendingMoid, paid, keyinMoid: /moid=(\w+)/.exec(keyin.headers.location!)![1]! };
  }

  describe('a buyer sees only their own orders', () => {
    it("another browser gets 404 for a buyer's order, checkout and key-in pages, and /orders lists none of them", async () => {
      const alice = request.agent(shop.app);
      const mallory = request.agent(shop.app);
      const { pendingMoid, paid, keyinMoid } = await threeOrders(alice, 'alice');
      await mallory.post('/checkout').type('form').send({ productId: 'kimchi' }); // mallory has orders of her own

      for (const path of [
        `/checkout/${pendingMoid}`,
        `/orders/${pendingMoid}`,
        `/orders/${paid.moid}`,
        `/checkout/${paid.moid}`,
        `/keyin?moid=${keyinMoid}`,
        `/orders/${keyinMoid}`,
      ]) {
        const res = await mallory.get(path);
        expect(res.status, path).to.equal(404);
        expect(res.text, path).to.not.include('alice').and.not.include('01099998888').and.not.include(paid.tid);
      }
      const list = await mallory.get('/orders');
      expect(list.status).to.equal(200);
      expect(list.text).to.not.include(pendingMoid).and.not.include(paid.moid).and.not.include(paid.tid);
      expect((await request(shop.app).get('/orders')).text).to.include('id="no-orders"'); // a stranger: nothing at all

      // Alice sees hers, in her own browser, TIDs included.
      const own = await alice.get('/orders');
      expect(own.text).to.include(pendingMoid).and.include(paid.moid).and.include(paid.tid);
      expect((await alice.get(`/checkout/${pendingMoid}`)).text).to.include('01099998888');
      expect((await alice.get(`/orders/${paid.moid}`)).status).to.equal(200);
      expect((await alice.get(`/keyin?moid=${keyinMoid}`)).text).to.include(keyinMoid);
    });

    it('an order page reached by another spelling of its path (case, doubled slash) is still 404 to another browser', async () => {
      const alice = request.agent(shop.app);
      const { pendingMoid, paid, keyinMoid } = await threeOrders(alice, 'alice4');
      for (const path of [
        `/Orders/${paid.moid}`,
        `/ORDERS/${paid.moid}`,
        `/orders//${paid.moid}`,
        `/Checkout/${pendingMoid}`,
        `/checkout/${pendingMoid}/`,
        `/keyin//?moid=${keyinMoid}`,
        `/Keyin?moid=${keyinMoid}`,
        `/keyin/?moid=${keyinMoid}`,
      ]) {
        const res = await request(shop.app).get(path);
        expect(res.status, path).to.equal(404);
        expect(res.text, path).to.not.include('01099998888').and.not.include(paid.tid).and.not.include('order-moid');
      }
      // The owner still gets each page at its own spelling.
      expect((await alice.get(`/orders/${paid.moid}`)).status).to.equal(200);
      expect((await alice.get(`/keyin/?moid=${keyinMoid}`)).status).to.equal(200);
    });

    it('a signed-link parameter of 22 characters beyond ASCII is a 404 like any wrong signature, not a server error', async () => {
      const alice = request.agent(shop.app);
      const a = await buyAndPay(alice, 'alice5');
      const res = await request(shop.app).get(`/orders/${a.moid}?t=${encodeURIComponent('가'.repeat(22))}`);
      expect(res.status).to.equal(404);
      expect(logLines.join('\n')).to.not.include('same byte length');
    });

    it('a signed order link opens that order (and only that one) in another browser; a forged or moved signature does not', async () => {
      const alice = request.agent(shop.app);
      const a = await buyAndPay(alice, 'alice2');
      const b = await buyAndPay(alice, 'alice3');
      expect(a.resultLink).to.match(/^\/orders\/\w+\?t=[\w-]{22}$/);
      const t = new URL(a.resultLink, 'http://x').searchParams.get('t')!;
      const phone = request.agent(shop.app);
      expect((await phone.get(`/orders/${b.moid}?t=${t}`)).status).to.equal(404); // a's signature on b
      expect((await phone.get(`/orders/${a.moid}?t=${'A'.repeat(22)}`)).status).to.equal(404);
      expect((await phone.get(a.resultLink)).status).to.equal(200);
      // The link made the phone an owner of a (not of b).
      expect((await phone.get(`/orders/${a.moid}`)).status).to.equal(200);
      const list = await phone.get('/orders');
      expect(list.text).to.include(a.moid).and.not.include(b.moid);
    });

    it('a forged auth-failed return for an order gets no signed link to it', async () => {
      const alice = request.agent(shop.app);
      const post = await alice.post('/checkout').type('form').send({ productId: 'kimchi', buyerName: '피해자' });
      const moid = /^\/checkout\/(\w+)\?t=/.exec(post.headers.location!)![1]!;
      const auth = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD', cancel: true });
      const forged = await request(shop.app)
        .post('/pay/return')
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(forged.status).to.equal(303);
      expect(forged.headers.location).to.equal(`/orders/${moid}`);
      const page = await request(shop.app).get(forged.headers.location!);
      expect(page.status).to.equal(404);
      expect(page.text).to.not.include('피해자');
    });
  });

  describe('a window a stranger opens for an order is no way into it', () => {
    for (const outcome of ['paid before (A127)', 'declined'] as const) {
      it(`a stranger's window return for another buyer's order, ${outcome}, gets no signed link: the order page stays 404 to them`, async () => {
        const alice = request.agent(shop.app);
        const { moid, tid } = outcome === 'declined' ? await pendingOrder(alice) : await buyAndPay(alice, '소유자');
        if (outcome === 'declined')
          sandbox.faults.inject({ target: 'approve', kind: 'decline', resultCode: '3011', resultMsg: '한도초과' });
        const stranger = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
        const ret = await request(shop.app)
          .post('/pay/return')
          .set('content-type', stranger.contentType)
          .send(stranger.body.toString('latin1'));
        expect(ret.status, ret.text).to.equal(303);
        expect(ret.headers.location).to.equal(`/orders/${moid}`);
        const page = await request(shop.app).get(ret.headers.location!);
        expect(page.status).to.equal(404);
        expect(page.text).to.not.include('소유자');
        // The owner's own browser still opens it.
        expect((await alice.get(`/orders/${moid}`)).status).to.equal(200);
        if (tid) expect(shop.db.order(moid)).to.include({ status: 'paid', tid });
      });
    }

    /** A kimchi order `buyer` placed and has not paid. */
    async function pendingOrder(buyer: ReturnType<typeof request.agent>): Promise<{ moid: string; tid: undefined }> {
      const post = await buyer.post('/checkout').type('form').send({ productId: 'kimchi', buyerName: '소유자' });
      return { moid: /^\/checkout\/(\w+)\?t=/.exec(post.headers.location!)![1]!, tid: undefined };
    }
  });

  describe("no buyer can mark another buyer's order declined", () => {
    /** The victim's and the attacker's pending kimchi orders (23 000 won each). */
    async function twoOrders() {
      const victim = request.agent(shop.app);
      const attacker = request.agent(shop.app);
      const v = await victim.post('/checkout').type('form').send({ productId: 'kimchi', buyerName: '피해자' });
      const victimMoid = /^\/checkout\/(\w+)\?t=/.exec(v.headers.location!)![1]!;
      const a = await attacker.post('/checkout').type('form').send({ productId: 'kimchi' });
      const attackerMoid = /^\/checkout\/(\w+)\?t=/.exec(a.headers.location!)![1]!;
      return { victim, attacker, victimMoid, attackerMoid };
    }

    /** The victim still pays their order afterwards. */
    async function victimPays(victim: ReturnType<typeof request.agent>, victimMoid: string): Promise<void> {
      const auth = await sandbox.authenticate({ moid: victimMoid, amount: 23_000, method: 'CARD' });
      await victim.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect(shop.db.order(victimMoid)!.status).to.equal('paid');
    }

    it("own authentication posted with the victim's Moid and a made-up TxTid is refused by the gateway as nobody's order (400 RETURN_INVALID), leaving the victim's order untouched", async () => {
      const { victim, attacker, victimMoid, attackerMoid } = await twoOrders();
      const own = await sandbox.authenticate({ moid: attackerMoid, amount: 23_000, method: 'CARD' });
      const forgedBody = encodeForm(
        { ...own.fields, Moid: victimMoid, TxTid: `${own.fields.TxTid!.slice(0, -4)}9999` },
        'euc-kr',
      ).toString('latin1');
      const before = shop.db.order(victimMoid)!;
      const mark = logLines.length;
      const res = await attacker.post('/pay/return').set('content-type', own.contentType).send(forgedBody);
      expect(res.status).to.equal(400);
      expect(res.text).to.not.include('피해자');
      expect(shop.db.order(victimMoid)).to.deep.equal(before);
      expect(logLines.slice(mark).some((l) => l.includes('NICEPAY_RETURN_INVALID'))).to.equal(true);
      await victimPays(victim, victimMoid);
    });

    it("own declined authentication posted with the victim's Moid is 400 DECLINE_ORDER_MISMATCH (the decline names the attacker's order) and leaves the victim's order untouched", async () => {
      const { victim, attacker, victimMoid, attackerMoid } = await twoOrders();
      const own = await sandbox.authenticate({ moid: attackerMoid, amount: 23_000, method: 'CARD', decline: true });
      const forgedBody = encodeForm({ ...own.fields, Moid: victimMoid }, 'euc-kr').toString('latin1');
      const before = shop.db.order(victimMoid)!;
      const mark = logLines.length;
      const res = await attacker.post('/pay/return').set('content-type', own.contentType).send(forgedBody);
      expect(res.status).to.equal(400);
      expect(res.text).to.not.include('피해자');
      expect(shop.db.order(victimMoid)).to.deep.equal(before);
      expect(logLines.slice(mark).some((l) => l.includes('NICEPAY_DECLINE_ORDER_MISMATCH'))).to.equal(true);
      await victimPays(victim, victimMoid);
    });

    it("a declined card posted to key-in with another buyer's order number is refused (404) and changes nothing", async () => {
      const victim = request.agent(shop.app);
      const k = await victim.post('/keyin/order').type('form').send({ productId: 'jeju-tea' });
      const moid = /moid=(\w+)/.exec(k.headers.location!)![1]!;
      const res = await request(shop.app)
        .post('/keyin/pay')
        .type('form')
        .send({ moid, cardNumber: '4000000000009979', cardExpiry: '3012' });
      expect(res.status).to.equal(404);
      expect(shop.db.order(moid)).to.include({ status: 'pending' });
      expect(sandbox.ledger.entries().filter((e) => e.moid === moid)).to.have.length(0);
    });
  });

  describe('posts from another site', () => {
    it("a page elsewhere cannot post an order in the buyer's browser: 403, no order, the buyer cookie left alone", async () => {
      const alice = request.agent(shop.app);
      const mine = await buyAndPay(alice, 'alice6');
      const ordersBefore = shop.db.sqlite.prepare('SELECT COUNT(*) AS n FROM orders').get() as { n: number };
      for (const headers of [
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { 'sec-fetch-site': 'same-site', origin: 'https://evil.shop.example' },
        { origin: 'https://evil.example' }, // a browser that sends Origin only
      ]) {
        // What the browser sends cross-site: the SameSite=Lax buyer cookie stays home.
        const res = await request(shop.app).post('/checkout').set(headers).type('form').send({ productId: 'kimchi' });
        expect(res.status, JSON.stringify(headers)).to.equal(403);
        expect(res.headers['set-cookie'], JSON.stringify(headers)).to.equal(undefined);
        for (const path of ['/keyin/order', '/subscription', '/keyin/pay'])
          expect((await request(shop.app).post(path).set(headers).type('form').send({})).status, path).to.equal(403);
      }
      expect(shop.db.sqlite.prepare('SELECT COUNT(*) AS n FROM orders').get()).to.deep.equal(ordersBefore);
      // The shop's own pages still post, and the buyer's orders are still hers.
      const own = await alice
        .post('/checkout')
        .set({ 'sec-fetch-site': 'same-origin' })
        .type('form')
        .send({ productId: 'kimchi' });
      expect(own.status).to.equal(303);
      expect((await alice.get('/orders')).text).to.include(mine.moid);
    });

    it('the payment window may post its return from its own site', async () => {
      const alice = request.agent(shop.app);
      const post = await alice.post('/checkout').type('form').send({ productId: 'kimchi', buyerName: 'alice7' });
      const moid = /^\/checkout\/(\w+)\?t=/.exec(post.headers.location!)![1]!;
      const auth = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
      const ret = await alice
        .post('/pay/return')
        .set({ 'sec-fetch-site': 'cross-site', origin: 'https://web.nicepay.co.kr' })
        .set('content-type', auth.contentType)
        .send(auth.body.toString('latin1'));
      expect(ret.status, ret.text).to.equal(303);
      expect(shop.db.order(moid)).to.include({ status: 'paid' });
    });
  });

  describe('the admin login bounds password guessing', () => {
    it(`the ${LOGIN_FAILURES_PER_WINDOW + 1}th attempt after ${LOGIN_FAILURES_PER_WINDOW} failures in a minute is refused unchecked, even with the right password`, async () => {
      const attacker = request.agent(shop.app);
      const tokens = new Set<string>();
      let token = tokenOf((await attacker.get('/admin/login')).text);
      for (let i = 0; i < LOGIN_FAILURES_PER_WINDOW; i++) {
        const res = await attacker
          .post('/admin/login')
          .type('form')
          .send({ _csrf: token, user: 'admin', password: `guess-${i}` });
        expect(res.status, `attempt ${i + 1}`).to.equal(401);
        tokens.add(token);
        token = tokenOf(res.text); // each failure hands out a new token
      }
      expect(tokens.size).to.equal(LOGIN_FAILURES_PER_WINDOW);
      const refusedBefore = logLines.filter((l) => l.includes('"action":"login.refused"')).length;
      const right = await attacker
        .post('/admin/login')
        .type('form')
        .send({ _csrf: token, user: 'admin', password: PASSWORD });
      expect(right.status).to.equal(429);
      expect(right.text).to.include('id="login-limited"');
      expect((await attacker.get('/admin/orders')).status).to.equal(303); // not signed in
      // Not compared: no "refused" line for it, a "limited" one instead.
      expect(logLines.filter((l) => l.includes('"action":"login.refused"'))).to.have.length(refusedBefore);
      expect(logLines.some((l) => l.includes('"action":"login.limited"'))).to.equal(true);
    });

    it('an old CSRF token is refused after a failed login', async () => {
      const other = newShop();
      try {
        const agent = request.agent(other.app);
        const first = tokenOf((await agent.get('/admin/login')).text);
        expect(
          (await agent.post('/admin/login').type('form').send({ _csrf: first, user: 'admin', password: 'wrong-1' }))
            .status,
        ).to.equal(401);
        expect(
          (await agent.post('/admin/login').type('form').send({ _csrf: first, user: 'admin', password: 'wrong-2' }))
            .status,
        ).to.equal(403);
      } finally {
        await other.close();
      }
    });

    it(`visitors who only open the login page keep at most ${ANONYMOUS_SESSIONS} sessions; a signed-in operator is never dropped for one`, async () => {
      // Many visitors, each from an address of its own (through the shop's one proxy).
      const other = newShop({ trustProxy: 1 });
      try {
        const operator = request.agent(other.app);
        const login = tokenOf((await operator.get('/admin/login')).text);
        await operator.post('/admin/login').type('form').send({ _csrf: login, user: 'admin', password: PASSWORD });
        const oldest = request.agent(other.app);
        const oldestToken = tokenOf((await oldest.get('/admin/login')).text);
        for (let i = 0; i < ANONYMOUS_SESSIONS; i++)
          await request(other.app)
            .get('/admin/login')
            .set('x-forwarded-for', `10.${i >> 8}.${i & 255}.1`);
        // The oldest visitor's session made room: its form is refused, nothing done.
        const late = await oldest
          .post('/admin/login')
          .type('form')
          .send({ _csrf: oldestToken, user: 'admin', password: PASSWORD });
        expect(late.status).to.equal(403);
        // The operator signed in before the flood still is.
        expect((await operator.get('/admin/orders')).status).to.equal(200);
      } finally {
        await other.close();
      }
    });
  });

  describe('the login page cannot be used to push an operator out', () => {
    it(`one client asking for the login page more than ${LOGIN_VIEWS_PER_WINDOW} times a minute gets 429 and keeps no session; an operator's form still signs in`, async () => {
      const other = newShop();
      try {
        const operator = request.agent(other.app);
        const token = tokenOf((await operator.get('/admin/login')).text);
        let limited = 0;
        for (let i = 0; i < 1_100; i++) {
          const res = await request(other.app).get('/admin/login');
          if (res.status === 429) {
            limited++;
            expect(res.headers['set-cookie']).to.equal(undefined);
          }
        }
        expect(limited).to.equal(1_100 - (LOGIN_VIEWS_PER_WINDOW - 1));
        const signIn = await operator
          .post('/admin/login')
          .type('form')
          .send({ _csrf: token, user: 'admin', password: PASSWORD });
        expect(signIn.status).to.equal(303);
      } finally {
        await other.close();
      }
    });
  });

  describe('security headers on every page', () => {
    it('every page forbids framing and sends a CSP; the checkout form may post only to the shop and the payment window', async () => {
      const buyer = request.agent(shop.app);
      const post = await buyer.post('/checkout').type('form').send({ productId: 'kimchi' });
      const keyinOrder = await buyer.post('/keyin/order').type('form').send({ productId: 'kimchi' });
      const pages = [
        '/',
        post.headers.location!,
        '/orders',
        '/keyin',
        keyinOrder.headers.location!,
        '/admin/login',
        '/no-such-page',
      ];
      for (const path of pages) {
        const res = await buyer.get(path);
        expect(res.status, path).to.be.oneOf([200, 404]);
        const csp = String(res.headers['content-security-policy']);
        expect(csp, path)
          .to.include("frame-ancestors 'none'")
          .and.include("default-src 'self'")
          .and.include("object-src 'none'");
        expect(csp, path).to.include(`form-action 'self' ${new URL(sandbox.url).origin}`);
        expect(res.headers['x-frame-options'], path).to.equal('DENY');
        expect(res.headers['x-content-type-options'], path).to.equal('nosniff');
        expect(res.headers['x-powered-by'], path).to.equal(undefined);
      }
    });
  });
});
