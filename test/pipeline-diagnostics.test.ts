import { expect } from 'chai';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import request from 'supertest';
import { GATEWAY_CALL_CHANNEL, type GatewayCallContext } from '../src/index.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, startDataHost } from './helpers/data-host.js';
import { MERCHANT_KEY, startShop, type TestShop } from './helpers/shop.js';

/** One recorded event: which sub-channel, and a copy of the context as it was then. */
interface Event {
  name: string;
  context: GatewayCallContext;
}

/** Records every event of the gateway-call TracingChannel until `stop()`. */
function record(): { events: Event[]; stop(): void } {
  const events: Event[] = [];
  const names = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];
  const handlers = names.map((name) => {
    const h = (message: unknown): void => {
      const c = message as GatewayCallContext;
      events.push({ name, context: { ...c } });
    };
    subscribe(`tracing:${GATEWAY_CALL_CHANNEL}:${name}`, h);
    return [name, h] as const;
  });
  const stop = (): void => {
    for (const [name, h] of handlers) unsubscribe(`tracing:${GATEWAY_CALL_CHANNEL}:${name}`, h);
  };
  return { events, stop };
}

/** The secrets a context must never hold, as text. */
function assertNoSecret(events: Event[], secrets: string[]): void {
  for (const e of events) {
    const text = JSON.stringify(e.context, (_k, v: unknown) => (v instanceof Error ? { ...v, message: v.message } : v));
    for (const s of secrets) expect(text, `${e.name} of ${e.context.operation}`).not.to.include(s);
  }
}

describe('pipeline: the express-nicepay:gateway-call TracingChannel', () => {
  let shop: TestShop;
  let rec: ReturnType<typeof record>;
  beforeEach(async () => {
    shop = await startShop();
    rec = record();
  });
  afterEach(async () => {
    rec.stop();
    await shop.close();
  });

  async function returnOf(moid: string) {
    shop.orders.set(moid, 1004);
    return shop.sandbox.authenticate({ moid, amount: 1004, method: 'CARD' });
  }

  it('publishes an approval: start, end, asyncStart, asyncEnd on one context naming operation, mid, tid, moid, outcome and code', async () => {
    const auth = await returnOf('diag-approve-1');
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.body.status).to.equal('approved');
    expect(rec.events.map((e) => e.name)).to.deep.equal(['start', 'end', 'asyncStart', 'asyncEnd']);
    expect(rec.events[0]!.context).to.deep.equal({
      operation: 'approval',
      mid: 'nicepay00m',
      tid: auth.fields.TxTid,
      moid: 'diag-approve-1',
    });
    expect(rec.events[3]!.context).to.deep.include({ operation: 'approval', outcome: 'succeeded', resultCode: '3001' });
    assertNoSecret(rec.events, [MERCHANT_KEY, auth.fields.AuthToken!, auth.fields.Signature!]);
  });

  it('publishes the net cancel after an unverifiable approval, so its rate can be counted', async () => {
    const auth = await returnOf('diag-netcancel-1');
    shop.sandbox.faults.inject({ target: 'approve', kind: 'bad-signature' });
    const res = await request(shop.app)
      .post('/pay/return')
      .set('content-type', auth.contentType)
      .send(auth.body.toString('latin1'));
    expect(res.body).to.include({ code: 'NICEPAY_ANSWER_UNVERIFIED', netCancel: 'succeeded' });
    const ends = rec.events.filter((e) => e.name === 'asyncEnd').map((e) => e.context);
    expect(ends.map((c) => [c.operation, c.outcome, c.resultCode])).to.deep.equal([
      ['approval', 'unknown', '3001'],
      ['net-cancel', 'succeeded', '2001'],
    ]);
    expect(ends[1]).to.include({ mid: 'nicepay00m', tid: auth.fields.TxTid, moid: 'diag-netcancel-1' });
    assertNoSecret(rec.events, [MERCHANT_KEY, auth.fields.AuthToken!]);
  });

  it('publishes a call that never left with outcome not-sent, and a rejected call on the error channel', async () => {
    const np = (await import('../src/nicepay.js')).createNicepay({
      mid: 'nicepay00m',
      merchantKey: MERCHANT_KEY,
      baseUrl: 'http://127.0.0.1:1',
      timeouts: { connectMs: 500, responseMs: 500 },
    });
    await np.status('T1').catch(() => undefined);
    await np.close();
    expect(rec.events.map((e) => e.name)).to.deep.equal(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(rec.events[2]!.context).to.include({ operation: 'status', tid: 'T1', outcome: 'not-sent' });
    expect((rec.events[2]!.context.error as { code: string }).code).to.equal('NICEPAY_GATEWAY_UNREACHABLE');
  });
});

describe('pipeline: the gateway-call channel on the data host', () => {
  it('publishes a payout call with its sid and resCode, never the encKey or merchant key', async () => {
    const rig = await startDataHost(fromKst(2026, 11, 23, 9, 0));
    const rec = record();
    try {
      await rig.nicepay.payout.balance();
    } finally {
      rec.stop();
      await rig.close();
    }
    const end = rec.events.find((e) => e.name === 'asyncEnd')!.context;
    expect(end).to.deep.equal({
      operation: 'payout.balance',
      mid: 'nictest04m',
      sid: '0101001',
      outcome: 'answered',
      resultCode: '0000',
    });
    assertNoSecret(rec.events, [DATA_KEY]);
  });
});
