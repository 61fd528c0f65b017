/**
 * An order whose payment the package could not confirm is paid again the way the gateway still
 * allows: while an approval of it is being settled the shop offers no second window (it would be
 * a duplicate order), and once the gateway takes no payment for its number any more (the package
 * reversed an approval of it, or the gateway refused a payment as a duplicate order, A127) the
 * buyer is offered the same product as a new order, which pays.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import request from 'supertest';
import type { Shop } from '../example-app/app.js';
import { type Sandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { kstTimestamp14 } from '../src/wire/kst.js';
import { type NotifiedShop, startNotifiedShop } from './helpers/notified-shop.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const hidden = (page: string, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';

describe('example-app: paying again an order whose payment could not be confirmed', () => {
  let h: NotifiedShop;
  let sandbox: Sandbox;
  let shop: Shop;
  let server: Server;

  before(async () => {
    h = await startNotifiedShop({ nicepay: { settle: false, timeouts: { connectMs: 1_000, responseMs: 2_000 } } });
    ({ sandbox, shop, server } = h);
  });
  after(() => h.close());
  afterEach(() => sandbox.faults.clear());

  /** A buyer's window order for kimchi; returns the buyer and the order's Moid. */
  async function order(name: string) {
    const buyer = request.agent(server);
    const post = await buyer.post('/checkout').type('form').send({ productId: 'kimchi', buyerName: name });
    return { buyer, moid: /^\/checkout\/(\w+)\?t=/.exec(post.headers.location!)![1]! };
  }
  /** The buyer pays `moid` by card in the window and comes back. */
  async function pay(buyer: ReturnType<typeof request.agent>, moid: string) {
    const auth = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
    return buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
  }

  it('while an approval of the order is being settled no window is offered; once the package reversed it, the same product is ordered anew and paid', async () => {
    const { buyer, moid } = await order('김재결제');
    sandbox.faults.inject({ target: 'approve', kind: 'status-500', commit: true });
    sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500' });
    expect((await pay(buyer, moid)).status).to.equal(502);

    const checking = await buyer.get(`/checkout/${moid}`);
    expect(checking.text).to.include('id="order-checking"').and.not.include('id="pay-form"');
    const page = await buyer.get(`/orders/${moid}`);
    expect(page.text).to.include('결제 결과를 확인하고 있습니다').and.not.include('id="retry"');

    const report = await shop.nicepay.settle();
    expect(report.settled.filter((s) => s.moid === moid).map((s) => s.outcome)).to.deep.equal(['reversed']);
    expect(shop.db.order(moid)).to.include({ status: 'pending', moidSpent: true });
    const spent = await buyer.get(`/checkout/${moid}`);
    expect(spent.text).to.include('id="order-spent"').and.not.include('id="pay-form"');
    const result = await buyer.get(`/orders/${moid}`);
    expect(result.text).to.include('이 주문번호로는 다시 결제할 수 없습니다');
    expect(hidden(result.text, 'buyerName')).to.equal('김재결제');

    // The buyer's "새 주문으로 결제하기": the same product, a new order number, paid.
    const again = await buyer
      .post('/checkout')
      .type('form')
      .send({ productId: /name="productId" value="([^"]+)" id="retry"/.exec(result.text)![1], buyerName: '김재결제' });
    const next = /^\/checkout\/(\w+)\?t=/.exec(again.headers.location!)![1]!;
    expect(next).to.not.equal(moid);
    expect((await pay(buyer, next)).status).to.equal(303);
    expect(shop.db.order(next)).to.include({ status: 'paid', amount: 23_000 });
  });

  it('a payment the gateway refuses as a duplicate order (A127) marks the order number spent: a new order is offered, not the window', async () => {
    const { buyer, moid } = await order('이중주문');
    // The gateway approved this order number once before, and it was cancelled (outside the shop).
    const first = await sandbox.authenticate({ moid, amount: 23_000, method: 'CARD' });
    const ediDate = kstTimestamp14(sandbox.clock.now());
    const approve = await fetch(first.fields.NextAppURL!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new Uint8Array(
        encodeForm(
          {
            TID: first.fields.TxTid!,
            AuthToken: first.fields.AuthToken!,
            MID,
            Amt: '23000',
            EdiDate: ediDate,
            SignData: createHash('sha256').update(`${first.fields.AuthToken}${MID}23000${ediDate}${KEY}`).digest('hex'),
          },
          'euc-kr',
        ),
      ),
    });
    expect(approve.status).to.equal(200);
    await shop.nicepay.cancel({ tid: first.fields.TxTid!, moid, amount: 23_000, reason: '취소' });

    // A127 is no decline of the order: nothing was charged now, and the order stays unpaid.
    const refused = await pay(buyer, moid);
    expect(refused.status).to.equal(303);
    expect(shop.db.order(moid)).to.include({ status: 'pending', moidSpent: true });
    const result = await buyer.get(`/orders/${moid}`);
    expect(result.text).to.include('id="retry"').and.include('새 주문으로 결제하기').and.not.include('이미 승인된');
    expect((await buyer.get(`/checkout/${moid}`)).text).to.include('id="order-spent"');
  });
});
