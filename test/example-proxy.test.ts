/**
 * The example shop behind proxies of its own (`trustProxy`, TRUST_PROXY in server.ts): a deposit
 * notice is checked by the address the shop's proxy saw, the last X-Forwarded-For hop, never by
 * the proxy's own address nor by one a client wrote further left.
 */
import { expect } from 'chai';
import request from 'supertest';
import { payKimchi } from './helpers/example-order.js';
import { createShop, type Shop, type ShopOptions } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { startNotifiedShop } from './helpers/notified-shop.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
/** One of the gateway's documented notice addresses. */
const GATEWAY_IP = '121.133.126.10';

describe('example-app: deposit notices behind the shop’s own proxy', () => {
  let sandbox: Sandbox;
  const shops: Shop[] = [];

  before(async () => {
    sandbox = createSandbox();
    await sandbox.listen(0);
  });
  after(async () => {
    for (const shop of shops) await shop.close();
    await sandbox.close();
  });

  /** A shop on the sandbox as on the real gateway (notices only from the gateway's addresses). */
  function shopWith(extra: Partial<ShopOptions> = {}): Shop {
    const shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      logger: quiet,
      ...extra,
    });
    shops.push(shop);
    return shop;
  }

  /** A virtual-account order awaiting its deposit, and the notice the gateway would post for it. */
  async function awaitingDeposit(shop: Shop): Promise<{ moid: string; notice: string }> {
    const { moid } = await payKimchi(sandbox, request.agent(shop.app), 'VBANK', { buyerName: 'buyer' });
    const tid = shop.db.order(moid)!.tid!;
    return {
      moid,
      notice: `MID=${MID}&TID=${tid}&MOID=${moid}&ResultCode=4110&PayMethod=VBANK&Amt=23000&AuthDate=261127120000`,
    };
  }

  /** Posts `notice` to the shop as its proxy forwards it, with `forwardedFor` in X-Forwarded-For. */
  const postNotice = (shop: Shop, forwardedFor: string, notice: string) =>
    request(shop.app).post('/pay/notify').set('x-forwarded-for', forwardedFor).type('form').send(notice);

  it('with one proxy trusted, a notice the proxy received from the gateway’s address pays the order', async () => {
    const shop = shopWith({ trustProxy: 1 });
    const { moid, notice } = await awaitingDeposit(shop);
    const res = await postNotice(shop, GATEWAY_IP, notice);
    expect(res.text).to.equal('OK');
    expect(shop.db.order(moid)).to.include({ status: 'paid' });
  });

  it('with one proxy trusted, the gateway’s address written by the client left of the real one is refused', async () => {
    const shop = shopWith({ trustProxy: 1 });
    const { moid, notice } = await awaitingDeposit(shop);
    const res = await postNotice(shop, `${GATEWAY_IP}, 203.0.113.7`, notice);
    expect(res.text).to.not.equal('OK');
    expect(shop.db.order(moid)).to.include({ status: 'awaiting-deposit' });
  });

  it('without a trusted proxy, X-Forwarded-For is not read: the socket’s address decides', async () => {
    const shop = shopWith();
    const { moid, notice } = await awaitingDeposit(shop);
    const res = await postNotice(shop, GATEWAY_IP, notice);
    expect(res.text).to.not.equal('OK');
    expect(shop.db.order(moid)).to.include({ status: 'awaiting-deposit' });
  });

  it('with the embedded sandbox behind the same proxy setting, the sandbox’s own notice (posted straight to the shop) still pays the order', async () => {
    const h = await startNotifiedShop({ trustProxy: 1 });
    try {
      const buyer = request.agent(h.server);
      const post = await buyer.post('/checkout').type('form').send({ productId: 'kimchi', buyerName: 'buyer' });
      const moid = /^\/checkout\/(\w+)\?t=/.exec(post.headers.location!)![1]!;
      const auth = await h.sandbox.authenticate({ moid, amount: 23_000, method: 'VBANK' });
      await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
      expect((await buyer.post(`/orders/${moid}/sandbox-deposit`)).status).to.equal(303);
      expect(h.shop.db.order(moid)).to.include({ status: 'paid' });
    } finally {
      await h.close();
    }
  });

  it('behind a proxy that rewrites Host, a browser sending only Origin is judged by the shop’s public URL', async () => {
    const shop = shopWith({ trustProxy: 1, publicUrl: 'https://shop.example' });
    const post = (origin: string) =>
      request(shop.app)
        .post('/checkout')
        .set({ origin, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' })
        .type('form')
        .send({ productId: 'kimchi' });
    expect((await post('https://shop.example')).status).to.equal(303);
    expect((await post('https://evil.example')).status).to.equal(403);
  });
});
