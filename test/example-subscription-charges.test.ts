/**
 * A subscription is charged at most once a month by the shop's own check, kept in its SQLite
 * file: "charge this month" after a restart (a fresh client) sends
 * nothing for a paid month; an attempt cut off mid-call blocks the month until the operator
 * records what NICEPAY shows. A declined month may be tried again, under a new Moid, and the
 * buyer's page says the month was not paid, with every charge listed.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import { billingDb } from '../example-app/db-billing.js';
import { kstToday } from '../example-app/routes/admin-page.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const PASSWORD = 'billing-admin-password';
const APPROVED_CARD = '4111111111111111';
const LIMIT_CARD = '4000000000009995';
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const attrOf = (page: string, id: string, attr: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*\\b${attr}="([^"]*)"`).exec(page)?.[1];
const textOf = (page: string, id: string): string | undefined =>
  new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1]?.trim();

describe("example-app: a subscription's month is charged once, by the shop's own charges table", () => {
  let sandbox: Sandbox;
  let dir: string;
  let shop: Shop;
  /** One address across restarts, as a browser sees the shop: it serves whichever shop runs now. */
  let server: Server;
  let admin: ReturnType<typeof request.agent>;
  let csrf: string;
  const charges = () => sandbox.ledger.entries().filter((e) => e.extra.service === 'billing');
  const month = (): string => kstToday(sandbox.clock.now()).slice(0, 6);

  /** A shop on the file `dir/shop.db`, as `npm start` would open it, signed in to its back office. */
  async function startShop(): Promise<void> {
    shop = createShop({
      mid: MID,
      merchantKey: KEY,
      baseUrl: sandbox.url,
      dbFile: join(dir, 'shop.db'),
      logger: quiet,
      sandbox,
      admin: { password: PASSWORD },
      nicepay: { clock: () => sandbox.clock.now() },
    });
    admin = request.agent(server);
    const form = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(form.text), user: 'admin', password: PASSWORD });
    csrf = tokenOf((await admin.get('/admin/billing')).text);
  }

  before(async () => {
    sandbox = createSandbox({ merchants: [{ mid: MID, merchantKey: KEY }] });
    await sandbox.listen(0);
    dir = mkdtempSync(join(tmpdir(), 'shop-billing-'));
    server = createServer((req, res) => shop.app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await startShop();
  });
  after(async () => {
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    await shop.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Registers `card` from a buyer's browser; the subscription's id and that browser. */
  async function subscribe(card: string) {
    const buyer = request.agent(server);
    const posted = await buyer.post('/subscription').type('form').send({ cardNumber: card, cardExpiry: '3012' });
    expect(posted.status, posted.text).to.equal(303);
    return { id: Number(/^\/subscription\/(\d+)/.exec(posted.headers.location!)![1]), buyer };
  }
  const charge = (id: number) => admin.post(`/admin/billing/${id}/charge`).type('form').send({ _csrf: csrf });

  it('a paid month is not charged again after a restart: the shop reads its own table, the gateway sees one charge', async () => {
    const { id, buyer } = await subscribe(APPROVED_CARD);
    const first = await charge(id);
    expect(first.status).to.equal(303);
    expect(first.headers.location).to.equal('/admin/billing');
    const said = await admin.get('/admin/billing');
    expect(textOf(said.text, 'admin-ok')).to.include('29,900원을 결제했습니다');
    // Said once: the page does not repeat it.
    expect((await admin.get('/admin/billing')).text).to.not.include('id="admin-ok"');
    expect(charges()).to.have.length(1);
    expect(charges()[0]).to.include({ moid: `SUB-${id}-${month()}`, status: 'approved' });

    // The shop restarts: a new client; the SQLite file stays, and the shop's own charges table
    // answers before the client is asked.
    await shop.close();
    await startShop();
    const again = await charge(id);
    expect(again.status).to.equal(303);
    expect(textOf((await admin.get(again.headers.location!)).text, 'admin-ok')).to.include(
      '이번 달은 이미 청구했습니다',
    );
    expect(charges(), 'nothing sent after the restart').to.have.length(1);
    const page = await admin.get('/admin/billing');
    expect(page.text).to.match(
      new RegExp(`<tr data-subscription="${id}" data-status="active">[\\s\\S]*?결제 완료 29,900원`),
    );

    // The buyer's page shows the month paid and the charge.
    const own = await buyer.get(`/subscription/${id}`);
    expect(attrOf(own.text, 'subscription-status', 'data-month')).to.equal('paid');
    expect(own.text).to.include('<td class="amount" data-label="금액">29,900원</td>');
  });

  it('a declined month says so to the buyer, and may be charged again under a new Moid', async () => {
    const { id, buyer } = await subscribe(LIMIT_CARD);
    await charge(id);
    const page = await buyer.get(`/subscription/${id}`);
    expect(attrOf(page.text, 'subscription-status', 'data-month')).to.equal('declined');
    expect(textOf(page.text, 'subscription-status')).to.equal(
      `${Number(month().slice(4))}월 구독료가 결제되지 않았습니다`,
    );
    expect(page.text).to.not.include('>구독 중입니다<');
    expect(page.text).to.match(/data-status="declined"[\s\S]*?결제 거절 \(/);

    await charge(id);
    const mine = charges()
      .filter((e) => e.moid.startsWith(`SUB-${id}-`))
      .map((e) => e.moid);
    expect(mine).to.deep.equal([`SUB-${id}-${month()}`, `SUB-${id}-${month()}-2`]);
    expect(
      billingDb(shop.db, KEY)
        .charges(id)
        .map((c) => c.status),
    ).to.deep.equal(['declined', 'declined']);
  });

  it('an attempt cut off before its charge left blocks its month; no outcome is recorded by hand, and the check sends that same charge once', async () => {
    const { id } = await subscribe(APPROVED_CARD);
    // A process that died after recording the attempt, before the library wrote (or sent) the charge.
    const begun = billingDb(shop.db, KEY).beginCharge(id, month(), 29_900);
    expect('attempt' in begun).to.equal(true);
    const moid = `SUB-${id}-${month()}`;
    const before = charges().length;
    const blocked = await charge(id);
    expect(blocked.status).to.equal(409);
    expect(textOf(blocked.text, 'admin-error')).to.include('결과를 알 수 없습니다');
    expect(charges().length).to.equal(before);
    // The package holds no record of it: the page offers the check, not a manual record.
    expect(blocked.text).to.include(`id="check-${moid}"`).and.not.include('resolve-not-charged');

    const byHand = await admin
      .post(`/admin/billing/charges/${moid}/resolve`)
      .type('form')
      .send({ _csrf: csrf, outcome: 'not-charged' });
    expect(byHand.status).to.equal(409);
    expect(billingDb(shop.db, KEY).charge(moid)!.status).to.equal('charging');
    const checked = await admin.post(`/admin/billing/charges/${moid}/resolve`).type('form').send({ _csrf: csrf });
    expect(checked.status, checked.text).to.equal(303);
    expect(billingDb(shop.db, KEY).charge(moid)!.status).to.equal('approved');
    expect(charges().length).to.equal(before + 1);
    expect(charges().at(-1)!.moid).to.equal(moid);
    // Checked again: nothing open, nothing sent.
    expect(
      (await admin.post(`/admin/billing/charges/${moid}/resolve`).type('form').send({ _csrf: csrf })).status,
    ).to.equal(409);
    expect((await charge(id)).status).to.equal(303);
    expect(charges().length).to.equal(before + 1);
  });

  it('a card past its expiry is named as such, like key-in does', async () => {
    const r = await request(server)
      .post('/subscription')
      .type('form')
      .send({ cardNumber: APPROVED_CARD, cardExpiry: '2001' });
    expect(r.status).to.equal(400);
    expect(textOf(r.text, 'form-error')).to.equal('유효기간을 확인해 주세요.');
  });
});
