/**
 * The example shop's 결제 정산 page over the data-host rig: a shop on the rig's sandbox and
 * virtual clock, its operator logged in, and the page's rows by TID.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../../example-app/app.js';
import type { DataHostRig } from './data-host.js';
import { DATA_KEY, DATA_MID } from './data-host.js';

const PASSWORD = 'settle-payout-password';

/** The CSRF token of a back-office page. */
export const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

/** The row of `tid` in the page's table of open (`unsettled`) or settled records. */
export function settlementRow(page: string, table: 'unsettled' | 'settled', tid: string): string | undefined {
  return new RegExp(`<table id="${table}">[\\s\\S]*?(<tr data-tid="${tid}"[\\s\\S]*?</tr>)`).exec(page)?.[1];
}

/**
 * Runs `body` with a shop on the rig (settler off: the page's button settles) and an operator
 * agent logged in; closes the shop and the rig after.
 */
export async function withSettlementPage(
  rig: DataHostRig,
  body: (shop: Shop, admin: request.Agent) => Promise<void>,
): Promise<void> {
  const shop = createShop({
    mid: DATA_MID,
    merchantKey: DATA_KEY,
    baseUrl: rig.sandbox.url,
    dataUrl: rig.sandbox.url,
    dbFile: ':memory:',
    admin: { password: PASSWORD },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    nicepay: { clock: () => rig.sandbox.clock.now(), settle: { intervalMs: 3_600_000 } },
  });
  try {
    const admin = request.agent(shop.app);
    const login = await admin.get('/admin/login');
    await admin
      .post('/admin/login')
      .type('form')
      .send({ _csrf: tokenOf(login.text), user: 'admin', password: PASSWORD });
    await body(shop, admin);
  } finally {
    await shop.close();
    await rig.close();
  }
}

/** Presses '지금 정산' on the page and returns the page after it. */
export async function settleNow(admin: request.Agent, page: string): Promise<string> {
  const settled = await admin
    .post('/admin/settlement')
    .type('form')
    .send({ _csrf: tokenOf(page) });
  expect(settled.status).to.equal(303);
  return (await admin.get('/admin/settlement')).text;
}
