/**
 * The pipeline alone (src/pipeline/gateway-call.ts): the steps every flow gets by declaring
 * itself, against a loopback server. Shutdown before the request is built; admitted work and
 * its continuations tracked once, so close() waits for a net cancel sent while closing; the one
 * classification of a failure (never sent / answered); and runOperation's refusal of a declaration
 * that binds its record without saying how a mismatched repeat is refused.
 */
import { expect } from 'chai';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import { NicepayGatewayError, NicepayServiceError } from '../src/errors/index.js';
import {
  admit,
  callGateway,
  type GatewayCall,
  type OperationCall,
  type OperationKind,
  runOperation,
} from '../src/pipeline/index.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';
import { startRawGateway, type RawGateway } from './helpers/raw-gateway.js';
import { rejectedWith } from './helpers/rejected.js';

describe('pipeline: callGateway and admit', () => {
  let gateway: RawGateway;
  before(async () => {
    gateway = await startRawGateway(() => ({ body: 'answer' }));
  });
  after(() => gateway.close());

  const contextOn = (baseUrl: string) =>
    createContext(
      resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl, timeouts: { connectMs: 500, responseMs: 1_000 } }),
    );
  /** A status-like call whose answer is its text; `built` counts request() calls. */
  function call(url: string, extra: Partial<GatewayCall<string>> = {}): GatewayCall<string> & { built: number } {
    const c = {
      built: 0,
      operation: 'status' as const,
      host: 'web' as const,
      url: new URL('/probe', url),
      ids: { tid: 'T1' },
      request() {
        c.built++;
        return { body: 'x=1', contentType: 'application/x-www-form-urlencoded' };
      },
      answer: (body: Buffer) => body.toString('latin1'),
      lost: () => 'lost',
      report: () => ({ outcome: 'answered' as const }),
      ...extra,
    };
    return c;
  }

  it('after close(): NICEPAY_SHUTTING_DOWN (a NicepayServiceError) before the request is even built', async () => {
    const ctx = contextOn(gateway.url);
    await closeContext(ctx);
    const c = call(gateway.url);
    const err = await rejectedWith(callGateway(ctx, c), NicepayServiceError);
    expect(err).to.include({ code: 'NICEPAY_SHUTTING_DOWN', status: 503 });
    expect(c.built).to.equal(0);
  });

  it('admitted work counts once; its continuation goes out while close() waits, and close() ends after it', async () => {
    const ctx = contextOn(gateway.url);
    const before = gateway.requests.length;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const work = admit(ctx, 'probe', async () => {
      await gate; // close() is called meanwhile
      return callGateway(ctx, call(gateway.url, { continuation: true }));
    });
    expect(ctx.inFlight()).to.equal(1);
    let closed = false;
    const closing = closeContext(ctx).then(() => (closed = true));
    expect(ctx.isClosing()).to.equal(true);
    await new Promise((r) => setImmediate(r));
    expect(closed, 'close() waits for the admitted work').to.equal(false);
    release();
    expect(await work).to.equal('answer');
    await closing;
    expect(closed).to.equal(true);
    expect(gateway.requests.length - before).to.equal(1);
  });

  it('a request that never left: the default meaning is NICEPAY_GATEWAY_UNREACHABLE, and lost() is not asked', async () => {
    const ctx = contextOn('http://127.0.0.1:9');
    let lostAsked = false;
    const err = await rejectedWith(
      callGateway(
        ctx,
        call('http://127.0.0.1:9', {
          lost: () => {
            lostAsked = true;
            return 'lost';
          },
        }),
      ),
      NicepayGatewayError,
    );
    await closeContext(ctx);
    expect(err).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', tid: 'T1', outcomeUnknown: false });
    expect(lostAsked).to.equal(false);
  });
});

describe('pipeline: runOperation of a declaration', () => {
  it('refuses a declaration that binds its record to its request but says nothing of a mismatched repeat, before anything is written or sent', async () => {
    const ctx = createContext(resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9' }));
    let exchanged = false;
    const kind: OperationKind<string> = {
      op: 'approval',
      what: 'approval',
      keepMs: 60_000,
      result: (r) => r.state,
      inquire: async () => 'holds',
    };
    const bound: OperationCall<string> = {
      kind,
      key: `approval:${MID}:T1`,
      start: { tid: 'T1', moid: 'M1', amount: 1004, binding: 'digest-of-the-token' },
      send: {
        ids: { tid: 'T1', moid: 'M1' },
        exchange: async () => {
          exchanged = true;
          return { kind: 'success', code: '3001', fields: {} };
        },
      },
      refusal: 'kept',
    };
    const err = await rejectedWith(runOperation(ctx, bound), Error);
    expect(err.message).to.equal('the approval declaration binds its record but declares no mismatch');
    expect(exchanged).to.equal(false);
    expect(await ctx.config.store.get(bound.key)).to.equal(undefined);
    await closeContext(ctx);
  });
});
