/**
 * A subscription page shows the plan, the card company and the status of one buyer's
 * registered card. Its ids are sequential, so it is guarded like an order page: only the
 * browser that registered the card (or its signed link) sees it; anyone else gets the shop's
 * 404, the same as for a subscription that does not exist.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { SANDBOX_TEST_CARDS } from '../src/sandbox/keyin/cards.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;

describe("example-app: a subscription page is its buyer's only", () => {
  let sandbox: Sandbox;
  let shop: Shop;

  before(async () => {
    sandbox = createSandbox({ merchants: [{ mid: MID, merchantKey: KEY }] });
    await sandbox.listen(0);
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: ':memory:',
      sandbox,
      nicepay: { clock: () => sandbox.clock.now() },
    });
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  it('the registering browser and its signed link see it; another browser and a probed id get 404', async () => {
    const card = Object.entries(SANDBOX_TEST_CARDS).find(([, c]) => c.outcome === 'approved')![0];
    const alice = request.agent(shop.app);
    const posted = await alice.post('/subscription').type('form').send({ cardNumber: card, cardExpiry: '3012' });
    expect(posted.status, posted.text).to.equal(303);
    const link = posted.headers.location!;
    const m = /^\/subscription\/(\d+)\?t=[\w-]{22}$/.exec(link);
    expect(m, link).to.not.equal(null);
    const page = `/subscription/${m![1]}`;

    const own = await alice.get(page);
    expect(own.status).to.equal(200);
    expect(own.text).to.include('id="subscription-card"');

    const mallory = request.agent(shop.app);
    for (const probe of [page, `/subscription/${Number(m![1]) + 1}`, `${page}?t=${'A'.repeat(22)}`]) {
      const r = await mallory.get(probe);
      expect(r.status, probe).to.equal(404);
      expect(r.text, probe).to.not.include('subscription-card');
    }
    // The signed link opens it in a browser without the cookie (the link itself is the grant).
    expect((await request(shop.app).get(link)).status).to.equal(200);
  });
});
