/**
 * A crash between the gateway's commit and the shop's record: two shop processes share one
 * real Redis. Instance A's approval is at the gateway, which commits it and holds the answer,
 * when A is killed; its ledger record stays `sending`. Once A's lease is gone (its TTL: here
 * expired by hand, so the test waits on no clock), the buyer's retry reaches instance B, which
 * finds the record open and settles it then and there: the status inquiry says approved, so B
 * runs onApproved and answers approved, marked recovered. Shop and gateway agree; nothing is
 * reversed, and the approval is not sent again.
 */
import { expect } from 'chai';
import { createClient } from 'redis';
import type { AuthReturn, Sandbox } from '../src/sandbox/index.js';
import type { Instance } from './helpers/shop-instance.js';
import { startTwoShopsOnRedis, type TwoShopsOnRedis } from './helpers/two-shops.js';

/** Resolves when the sandbox's ledger records `tid` with `status` (an event, not a poll). */
function whenLedger(sandbox: Sandbox, tid: string, status: string): Promise<void> {
  const ledger = sandbox.ledger as unknown as { update: (tid: string, status: string, ...rest: unknown[]) => unknown };
  const original = ledger.update.bind(ledger);
  return new Promise((resolve) => {
    ledger.update = (t, s, ...rest) => {
      const out = original(t, s, ...rest);
      if (t === tid && s === status) {
        ledger.update = original;
        resolve();
      }
      return out;
    };
  });
}

describe('a shop instance killed while its approval is at the gateway', function () {
  this.timeout(120_000);
  let shops: TwoShopsOnRedis;

  before(async function () {
    this.timeout(60_000);
    shops = await startTwoShopsOnRedis();
  });

  after(async () => {
    await shops?.stop();
  });

  /** Posts the auth return to an instance; resolves with status and JSON, or the error. */
  async function post(instance: Instance, auth: AuthReturn) {
    const res = await instance.pool.request({
      method: 'POST',
      path: '/pay/return',
      headers: { 'content-type': auth.contentType },
      body: auth.body,
    });
    return {
      statusCode: res.statusCode,
      body: (await res.body.json()) as {
        status?: string;
        tid?: string;
        recovered?: boolean;
        code?: string;
        paymentIds?: { tid: string; moid: string };
      },
    };
  }

  it('the retry on the other instance settles it from the record A left: approved, recovered, onApproved runs once, and the gateway keeps one approval', async () => {
    const { redis, sandbox, instances } = shops;
    const [a, b] = instances as [Instance, Instance];
    const auth = await sandbox.authenticate({ moid: 'mi-7', amount: 1_007, method: 'CARD' });
    const tid = auth.fields.TxTid!;
    // The gateway commits, then holds its answer: A is waiting on it when it dies.
    sandbox.faults.inject({ target: 'approve', kind: 'delay', commit: true, delayMs: 600_000 });
    const committed = whenLedger(sandbox, tid, 'approved');
    const lost = post(a, auth).catch((err: Error) => ({ statusCode: 0, body: { code: err.message } }));
    await committed;
    await a.kill();
    expect((await lost).statusCode, 'A never answered').to.equal(0);

    // A's lease outlives it until its TTL: expire it now, as time would. Its record stays.
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const leases = await client.keys(`*${tid}*:lease`);
      expect(leases.length, 'A held the lease of the TID').to.equal(1);
      await client.del(leases);
      expect(await client.keys(`*${tid}*:rec`), 'the record A wrote before sending stays').to.have.length(1);
    } finally {
      await client.quit();
    }

    const retry = await post(b, auth);
    expect(retry.statusCode, JSON.stringify(retry.body) + b.log).to.equal(200);
    expect(retry.body).to.include({ status: 'approved', tid, recovered: true });
    // The answer A never read is not in the record: the payment still names its own TID and order.
    expect(retry.body.paymentIds).to.deep.equal({ tid, moid: 'mi-7' });
    const { approved } = await b.ask<{ approved: string[] }>('stats');
    expect(approved, 'onApproved ran on B').to.deep.equal([tid]);

    const entry = sandbox.ledger.get(tid)!;
    expect(entry.status, 'the gateway keeps the payment').to.equal('approved');
    expect(entry.approvalCalls, 'A sent it; B asked the status, not the approval').to.equal(1);
    expect(sandbox.ledger.committed().filter((e) => e.tid === tid)).to.have.length(1);

    // A repeat now gets the stored, recovered result: nothing is sent again.
    const again = await post(b, auth);
    expect(again.body).to.include({ status: 'approved', tid, recovered: true });
    expect(sandbox.ledger.get(tid)!.approvalCalls).to.equal(1);
  });
});
