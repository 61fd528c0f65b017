/**
 * Fuzz properties (fast-check), written once and run twice: briefly by test/fuzz.test.ts in
 * CI and at length by `npm run fuzz` (test/fuzz/run.ts). Targets: the form codec, the KV
 * parser, the gateway response parser + payment mapper, and the checkout return endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import fc from 'fast-check';
import { request as undiciRequest, Pool } from 'undici';
import { createNicepay, type Nicepay, type PayMethod } from '../../src/index.js';
import { TEST_MERCHANTS } from '../../src/sandbox/index.js';
import { type Charset, WireFormatError } from '../../src/wire/charset.js';
import { decodeForm, encodeForm } from '../../src/wire/form-codec.js';
import { parseKv } from '../../src/wire/kv.js';
import { mapPayment } from '../../src/wire/payment-mapper.js';
import { parseGatewayBody } from '../../src/wire/response-body.js';
import { authReturnSignature } from '../../src/wire/signatures.js';

export const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const METHODS: readonly PayMethod[] = ['CARD', 'BANK', 'VBANK', 'CELLPHONE'];
const charsetArb = fc.constantFrom<Charset>('euc-kr', 'utf-8');

/** Keys that break naive record code. */
const NASTY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
];
const FIELD_KEYS = [
  'AuthResultCode',
  'AuthResultMsg',
  'AuthToken',
  'PayMethod',
  'MID',
  'Moid',
  'Amt',
  'ReqReserved',
  'TxTid',
  'NextAppURL',
  'NetCancelURL',
  'Signature',
  'ResultCode',
  'ResultMsg',
  'TID',
  'AuthDate',
  'CardQuota',
  'VbankExpDate',
];
const keyArb = fc.oneof(fc.constantFrom(...NASTY_KEYS, ...FIELD_KEYS), fc.string({ maxLength: 12 }));

/** Throws unless Object.prototype is still clean. */
export function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const k of ['polluted', 'x', 'Amt', 'MID', 'TID', 'isAdmin']) {
    if (probe[k] !== undefined) throw new Error(`Object.prototype was polluted with ${k}`);
  }
  if (Object.keys(Object.prototype).length !== 0) throw new Error('Object.prototype gained enumerable keys');
}

/**
 * A record of own string fields. The form and KV decoders' records inherit nothing (every
 * object on their prototype chain is empty); a JSON answer keeps JSON.parse's Object.prototype.
 */
function assertRecord(r: unknown, inherits: 'nothing' | 'Object.prototype' = 'nothing'): void {
  if (typeof r !== 'object' || r === null) throw new Error('not an object');
  if (inherits === 'Object.prototype') {
    if (Object.getPrototypeOf(r) !== Object.prototype) throw new Error('JSON record has another prototype');
  } else {
    for (let p = Object.getPrototypeOf(r) as object | null; p !== null; p = Object.getPrototypeOf(p) as object | null) {
      if (Reflect.ownKeys(p).length !== 0) throw new Error('record inherits properties');
    }
  }
  for (const [k, v] of Object.entries(r))
    if (typeof v !== 'string') throw new Error(`value of ${JSON.stringify(k)} is ${typeof v}`);
}

/** Raw bytes of a form: random bytes, or segments with bad escapes, high bytes, nasty keys, duplicates. */
const segmentText = fc.oneof(
  keyArb,
  fc.constantFrom('%', '%4', '%zz', '%%', '%C0%AF', '%FF%FE', '%EA%B0%80', '%B0%A1', '+', '=', '&', '%00', '%2', '%g1'),
  fc.string({ maxLength: 20 }),
);
const formBytesArb = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .array(
      fc.tuple(
        fc.array(segmentText, { maxLength: 4 }),
        fc.array(segmentText, { maxLength: 4 }),
        fc.uint8Array({ maxLength: 4 }),
      ),
      { maxLength: 12 },
    )
    .map((parts) =>
      Buffer.concat(
        parts.flatMap(([k, v, raw], i) => [
          ...(i ? [Buffer.from('&')] : []),
          Buffer.from(k.join(''), 'latin1'),
          Buffer.from('='),
          Buffer.from(v.join(''), 'latin1'),
          Buffer.from(raw),
        ]),
      ),
    ),
  fc.integer({ min: 1, max: 2_000 }).map((n) => Buffer.from(`Amt=${'9'.repeat(n)}&Amt=1`)),
);

/** decodeForm on arbitrary bytes: WireFormatError or a record of strings that inherits nothing. */
export const formCodec = fc.property(
  formBytesArb,
  charsetArb,
  fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
  (bytes, charset, maxFields) => {
    try {
      const r = decodeForm(bytes, charset, maxFields === undefined ? {} : { maxFields });
      assertRecord(r);
      // What decodes re-encodes to something that decodes to the same fields (when encodable).
      let again: Buffer | undefined;
      try {
        again = encodeForm(r, charset);
      } catch (err) {
        if (!(err instanceof WireFormatError)) throw err;
      }
      if (again && JSON.stringify(decodeForm(again, charset, { maxFields: 1_000 })) !== JSON.stringify(r))
        throw new Error('round trip differs');
    } catch (err) {
      if (!(err instanceof WireFormatError)) throw err;
    }
    assertNoPollution();
  },
);

/** parseKv on arbitrary bytes and on Key=value text with nasty keys. */
export const kvParser = fc.property(
  fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc
      .array(fc.tuple(keyArb, fc.string({ maxLength: 20 })), { maxLength: 12 })
      .map((pairs) => Buffer.from(pairs.map(([k, v]) => `${k}=${v}`).join('&'), 'utf8')),
  ),
  charsetArb,
  (bytes, charset) => {
    try {
      assertRecord(parseKv(bytes, charset));
    } catch (err) {
      if (!(err instanceof WireFormatError)) throw err;
    }
    assertNoPollution();
  },
);

const jsonValue = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.constantFrom('0000', '3001', '4000', '4100', 'A000', '000000001004', '260101120000', '20260101', ''),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('__proto__', 'a', 'constructor'), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** parseGatewayBody + mapPayment: arbitrary JSON objects (duplicate and nasty keys) or bytes. */
export const responseMapper = fc.property(
  fc.oneof(
    fc
      .array(fc.tuple(keyArb, jsonValue), { maxLength: 24 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
    fc.string({ maxLength: 100 }),
    fc.json(),
  ),
  charsetArb,
  fc.constantFrom<'JSON' | 'KV'>('JSON', 'KV'),
  fc.constantFrom(...METHODS),
  fc.integer({ min: 1, max: 999_999_999_999 }),
  (text, charset, ediType, method, amount) => {
    let fields: Record<string, string>;
    try {
      fields = parseGatewayBody(Buffer.from(text, 'utf8'), charset, ediType);
    } catch (err) {
      if (!(err instanceof WireFormatError)) throw err;
      assertNoPollution();
      return;
    }
    // A JSON answer keeps JSON.parse's own object (`__proto__` an own key); KV's inherits nothing.
    assertRecord(fields, ediType === 'JSON' ? 'Object.prototype' : 'nothing');
    if (!Object.isFrozen(fields)) throw new Error('parsed answer is not frozen');
    const p = mapPayment(fields, method, amount);
    if (p.method !== method || p.amount !== amount || !Object.isFrozen(p.raw)) throw new Error('mapPayment shape');
    JSON.stringify(p);
    assertNoPollution();
  },
);

/** A shop whose every outbound request would land on a counting trap. */
export interface FuzzShop {
  /** Requests the trap (the shop's only trusted gateway host) received. */
  outbound(): number;
  /** The trap's origin: the shop's baseUrl and only trusted host. */
  trapOrigin: string;
  post(body: Buffer, contentType: string | undefined): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

/** Orders the shop knows: `o-<n>` costs 1000 + n won, n < 10. */
export const ORDER_COUNT = 10;

export async function startFuzzShop(): Promise<FuzzShop> {
  let hits = 0;
  const trap: Server = createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
  const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  const nicepay: Nicepay = createNicepay({
    mid: MID,
    merchantKey: KEY,
    baseUrl: trapUrl,
    timeouts: { connectMs: 300, responseMs: 300 },
  });
  const app = express();
  app.post(
    '/pay/return',
    nicepay.checkoutReturn({
      expectedAmount: (moid) => {
        const m = /^o-(\d)$/.exec(moid);
        return m ? 1_000 + Number(m[1]) : undefined;
      },
    }),
    (req, res) => void res.json({ status: req.checkout!.status }),
  );
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const e = err as { status?: number; code?: string };
    res.status(e.status ?? 500).json({ code: e.code ?? 'UNEXPECTED' });
  };
  app.use(onError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 8 });
  return {
    outbound: () => hits,
    trapOrigin: trapUrl,
    async post(body, contentType) {
      const res = await undiciRequest(`http://x/pay/return`, {
        dispatcher: pool,
        method: 'POST',
        body,
        headers: contentType === undefined ? {} : { 'content-type': contentType },
      });
      return { status: res.statusCode, body: await res.body.text() };
    },
    async close() {
      await pool.close();
      await nicepay.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await new Promise((r) => trap.close(r));
    },
  };
}

const contentTypeArb = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=euc-kr',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded; charset="cp949"',
    'application/x-www-form-urlencoded; charset=latin1',
    'APPLICATION/X-WWW-FORM-URLENCODED;CHARSET=UTF8',
    'application/json',
    'text/plain',
    'multipart/form-data; boundary=x',
  ),
  fc.string({ maxLength: 60 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s)),
  fc
    .string({ maxLength: 40 })
    .filter((s) => /^[\t\x20-\x7e]*$/.test(s))
    .map((s) => `application/x-www-form-urlencoded; charset=${s}`),
);

/**
 * Auth returns that look right but must not be approved: a correct Signature with an Amt that
 * is not the order's, an untrusted NextAppURL/NetCancelURL or an unknown Moid; or a random
 * Signature; or random fields; plus nasty keys and duplicates mixed in.
 */
function authReturnArb(trapHost: string) {
  const signedVariant = fc.record({
    n: fc.integer({ min: 0, max: 12 }),
    amtDelta: fc.integer({ min: -5, max: 5 }),
    authToken: fc.stringMatching(/^[A-Za-z0-9]{1,40}$/),
    next: fc.oneof(
      { arbitrary: fc.constant(`${trapHost}/webapi/pay_process.jsp`), weight: 6 },
      {
        arbitrary: fc.constantFrom(
          'http://evil.example/x',
          'https://127.0.0.1/x',
          'not a url',
          `${trapHost.replace('//', '//u:p@')}/x`,
        ),
        weight: 1,
      },
    ),
    cancel: fc.oneof(
      { arbitrary: fc.constant(`${trapHost}/webapi/cancel_process.jsp`), weight: 6 },
      { arbitrary: fc.constantFrom('http://evil.example/c', 'file:///etc/passwd'), weight: 1 },
    ),
    goodSignature: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    resultCode: fc.constantFrom('0000', '0000', '9999', 'X', ''),
    extras: fc.array(fc.tuple(keyArb, fc.string({ maxLength: 10 })), { maxLength: 4 }),
    charset: charsetArb,
  });
  return signedVariant
    .filter((v) => {
      // Exclude the one combination that is a legitimate, approvable return.
      const knownOrder = v.n < ORDER_COUNT;
      const trusted = v.next.startsWith(`${trapHost}/`) && v.cancel.startsWith(`${trapHost}/`);
      return !(v.goodSignature && v.resultCode === '0000' && knownOrder && v.amtDelta === 0 && trusted);
    })
    .map((v) => {
      const amt = String(1_000 + v.n + v.amtDelta);
      const fields: Record<string, string> = {
        AuthResultCode: v.resultCode,
        AuthResultMsg: 'x',
        AuthToken: v.authToken,
        PayMethod: 'CARD',
        MID,
        Moid: `o-${v.n}`,
        Amt: amt,
        TxTid: `${MID}01012601011200001234`,
        NextAppURL: v.next,
        NetCancelURL: v.cancel,
        Signature: v.goodSignature ? authReturnSignature(v.authToken, MID, amt, KEY) : 'ab'.repeat(32),
      };
      const base = encodeForm(fields, v.charset).toString('latin1');
      const extra = v.extras.map(([k, val]) => `${encodeURIComponent(k)}=${encodeURIComponent(val)}`).join('&');
      return {
        body: Buffer.from(extra ? `${base}&${extra}` : base, 'latin1'),
        contentType: `application/x-www-form-urlencoded; charset=${v.charset}`,
      };
    });
}

/** The return endpoint: never 5xx, never an outbound request, whatever arrives. */
export function returnEndpoint(shop: FuzzShop, trapHost: string) {
  const body = fc.oneof(
    {
      arbitrary: fc.tuple(formBytesArb, charsetArb).map(([b, cs]) => ({
        body: Buffer.from(b),
        contentType: `application/x-www-form-urlencoded; charset=${cs}` as string | undefined,
      })),
      weight: 4,
    },
    {
      arbitrary: authReturnArb(trapHost).map((r) => ({
        body: r.body,
        contentType: r.contentType as string | undefined,
      })),
      weight: 5,
    },
    {
      arbitrary: fc.integer({ min: 16_000, max: 40_000 }).map((n) => ({
        body: Buffer.from(`Moid=${'a'.repeat(n)}`),
        contentType: 'application/x-www-form-urlencoded' as string | undefined,
      })),
      weight: 1,
    },
  );
  return fc.asyncProperty(
    body,
    contentTypeArb,
    fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
    async (b, ct, useGenerated) => {
      const contentType = useGenerated && b.contentType !== undefined ? b.contentType : ct;
      const before = shop.outbound();
      const res = await shop.post(b.body, contentType);
      const okAuthFailed = res.status === 200 && JSON.parse(res.body).status === 'auth-failed';
      if (!(res.status >= 400 && res.status < 500) && !okAuthFailed)
        throw new Error(`status ${res.status}: ${res.body.slice(0, 200)}`);
      if (shop.outbound() !== before) throw new Error('an outbound request was made');
      assertNoPollution();
    },
  );
}

/** Starts what the properties need and returns them by name. */
export async function allProperties(): Promise<{
  props: Array<{ name: string; prop: fc.IRawProperty<unknown, boolean>; weight: number }>;
  shop: FuzzShop;
  close(): Promise<void>;
}> {
  const shop = await startFuzzShop();
  const trapHost = shop.trapOrigin;
  return {
    shop,
    props: [
      { name: 'form codec', prop: formCodec, weight: 3 },
      { name: 'KV parser', prop: kvParser, weight: 3 },
      { name: 'response parser + mapper', prop: responseMapper, weight: 3 },
      { name: 'return endpoint', prop: returnEndpoint(shop, trapHost), weight: 1 },
    ],
    close: () => shop.close(),
  };
}
