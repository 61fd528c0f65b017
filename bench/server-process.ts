/**
 * One measured shop server per process (BENCH_KIND), talking to the sandbox at SANDBOX_URL.
 * Every kind answers 200 with a short status on success and counts its outcomes, so the
 * parent can check that each request of the load really did an approval.
 *
 *   checkout-floor   read the body, send the next pre-built approval form with bare undici, return
 *   checkout-ours    express-nicepay's checkoutReturn (decode, verify, approve once, verify answer)
 *   checkout-base    checkoutReturn of another tree (BENCH_BASE: its root), for A/B runs of a change
 *   checkout-skeleton  checkoutReturn's plumbing only: raw-body read, form decode, signed approval
 *                    through the library's transport, answer parse; no check, no store, no mapping
 *   checkout-sample  the official Node sample's way: express.urlencoded, then axios per request
 *                    with no keep-alive agent, no verification of anything
 *   keyin-floor / keyin-ours     pre-built key-in forms vs nicepay.keyin(...)
 *   payout-floor / payout-ours   pre-built envelopes vs nicepay.payout.request(...)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import axios from 'axios';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createClient } from 'redis';
import { Agent, getGlobalDispatcher, request } from 'undici';
import { buildEnvelope, SID } from '../src/data-api/envelope.js';
import { encryptEncData } from '../src/wire/enc-data.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { keyinEncPlaintext, KEYIN_PATH } from '../src/wire/keyin-fields.js';
import { kstDate8, kstTimestamp12, kstTimestamp14 } from '../src/wire/kst.js';
import { keyinSignData, payoutEncKey } from '../src/wire/signatures.js';
import { benchApprovalForm } from './approval-form.js';
import { BENCH_AMOUNT, BENCH_KEY, BENCH_MID, BENCH_SUB_ID, flowingClock, procStats, serveIpc } from './ipc.js';

export type ServerKind =
  | 'checkout-floor'
  | 'checkout-ours'
  | 'checkout-base'
  | 'checkout-skeleton'
  | 'checkout-sample'
  | 'keyin-floor'
  | 'keyin-ours'
  | 'payout-floor'
  | 'payout-ours';

const kind = process.env.BENCH_KIND as ServerKind;
const sandboxUrl = process.env.SANDBOX_URL!;
const clock = process.env.BENCH_CLOCK ? flowingClock(process.env.BENCH_CLOCK) : () => new Date();
const KEYIN_CARD = { number: '4111111111111111', expiry: '3012' } as const;

const outcomes: Record<string, number> = {};
const firstErrors: string[] = [];
const count = (what: string): void => {
  outcomes[what] = (outcomes[what] ?? 0) + 1;
};
function fail(res: Response, err: unknown): void {
  const e = err as { code?: string; status?: number; message?: string };
  count(`error:${e.code ?? 'unknown'}`);
  if (firstErrors.length < 5) firstErrors.push(`${e.code ?? ''} ${e.message ?? String(err)}`);
  if (!res.headersSent) res.status(e.status && e.status >= 400 ? e.status : 500).send(e.code ?? 'error');
}

const app = express();
app.disable('x-powered-by');
app.disable('etag');

/** Pre-built request bodies, used one per incoming request (floors only). */
let prebuilt: Buffer[] = [];
let nextPrebuilt = 0;
function takePrebuilt(): Buffer {
  const b = prebuilt[nextPrebuilt++];
  if (!b) throw Object.assign(new Error('ran out of pre-built bodies'), { code: 'BENCH_EXHAUSTED' });
  return b;
}
/** Reads and drops a request body without looking at it. */
function drain(req: Request): Promise<void> {
  return new Promise((resolve, reject) => {
    req.on('data', () => {});
    req.on('end', resolve);
    req.on('error', reject);
  });
}
/**
 * The floors' dispatcher: a default keep-alive Agent of the undici package express-nicepay
 * uses. (undici's global dispatcher is Node's own bundled undici once anything has touched
 * fetch, a different and older client; BENCH_FLOOR_DISPATCHER=global measures with it.)
 */
const floorDispatcher = process.env.BENCH_FLOOR_DISPATCHER === 'global' ? getGlobalDispatcher() : new Agent();
/** POSTs a pre-built body with a bare undici request and reads the whole answer. */
async function bareSend(url: string, body: Buffer, contentType: string): Promise<number> {
  const res = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
    dispatcher: floorDispatcher,
  });
  await res.body.arrayBuffer();
  return res.statusCode;
}

/** A floor route: drain the body, send the next pre-built body to `url()` with bare undici, answer ok. */
function floorRoute(path: string, url: () => string, contentType: string): void {
  app.post(path, (req, res) => {
    drain(req)
      .then(() => bareSend(url(), takePrebuilt(), contentType))
      .then(
        (status) => {
          count(`http-${status}`);
          res.send('ok');
        },
        (err) => fail(res, err),
      );
  });
}

/**
 * The library as a shop runs it: the built package (dist/, which run.ts builds first), not the
 * TypeScript sources through tsx. checkout-base loads another tree's build: the code before a change.
 */
const libRoot = kind === 'checkout-base' ? process.env.BENCH_BASE! : fileURLToPath(new URL('..', import.meta.url));
const fromBuild = <T>(file: string): Promise<T> =>
  import(pathToFileURL(join(libRoot, 'dist', file)).href) as Promise<T>;
/**
 * The ledger store (`npm run bench -- --store=...`, bench/scale-out.ts):
 *   BENCH_STORE=memory        memoryStore(), as without BENCH_STORE, but with its calls counted;
 *   BENCH_STORE=sqlite        sqliteStore on the file BENCH_SQLITE_PATH;
 *   BENCH_STORE=redis         redisStore on BENCH_REDIS_URL (prefix BENCH_REDIS_PREFIX, default `bench:`),
 *                             shared by every shop process of the run (bench/scale-out.ts sets only the URL);
 *   BENCH_STORE=redis-replica the same with waitForReplicas: 1 (the server has one replica).
 */
const storeName = process.env.BENCH_STORE ?? (process.env.BENCH_REDIS_URL ? 'redis' : undefined);
async function openStore(): Promise<import('../src/store/types.js').LedgerStore | undefined> {
  switch (storeName) {
    case undefined:
      return undefined;
    case 'memory':
      return (await fromBuild<typeof import('../src/store/memory-store.js')>('store/memory-store.js')).memoryStore();
    case 'sqlite':
      return (await fromBuild<typeof import('../src/store/sqlite-store.js')>('store/sqlite-store.js')).sqliteStore({
        path: process.env.BENCH_SQLITE_PATH!,
      });
    case 'redis':
    case 'redis-replica':
      return (await fromBuild<typeof import('../src/store/redis-store.js')>('store/redis-store.js')).redisStore({
        ...(process.env.BENCH_STORE ? { client: await countedRedisClient() } : { url: process.env.BENCH_REDIS_URL! }),
        prefix: process.env.BENCH_REDIS_PREFIX ?? 'bench:',
        ...(storeName === 'redis-replica' ? { waitForReplicas: 1 } : {}),
      });
    default:
      throw new Error(`unknown BENCH_STORE ${storeName}`);
  }
}
/** Calls made to the store (its LedgerStore methods), when BENCH_STORE names it. */
let storeCalls = 0;
/** The store with each method call counted: one increment per call, next to a store's own work. */
function counted(inner: import('../src/store/types.js').LedgerStore): import('../src/store/types.js').LedgerStore {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inner)) {
    out[name] =
      typeof value === 'function'
        ? (...args: unknown[]): unknown => {
            storeCalls++;
            return (value as (...a: unknown[]) => unknown).apply(inner, args);
          }
        : value;
  }
  return out as unknown as import('../src/store/types.js').LedgerStore;
}
/** Commands sent to Redis by the store of a --store run (each one round trip, or part of a pipeline). */
let redisCommands = 0;
/** For a redis store of --store: the store's own node-redis client, each command it sends counted. */
async function countedRedisClient(): Promise<import('../src/store/redis-client.js').RedisStoreClient> {
  const client = await createClient({ url: process.env.BENCH_REDIS_URL! }).connect();
  const c = client as unknown as { sendCommand(...args: unknown[]): Promise<unknown> };
  const send = c.sendCommand.bind(client);
  c.sendCommand = (...args) => {
    redisCommands++;
    return send(...args);
  };
  return client as unknown as import('../src/store/redis-client.js').RedisStoreClient;
}
const opened = await openStore();
const store = opened && process.env.BENCH_STORE ? counted(opened) : opened;
/** BENCH_ON_APPROVED=1: checkout-ours and checkout-base run an onApproved that does nothing, as a shop's hook would run. */
const hook = process.env.BENCH_ON_APPROVED === '1' ? { onApproved: async (): Promise<void> => {} } : {};
const nicepay =
  kind.endsWith('-ours') || kind === 'checkout-base'
    ? (await fromBuild<typeof import('../src/index.js')>('index.js')).createNicepay({
        mid: BENCH_MID,
        merchantKey: BENCH_KEY,
        baseUrl: sandboxUrl,
        clock,
        ...(store ? { store } : {}),
      })
    : undefined;

interface PrepareItem {
  tid: string;
  authToken: string;
  amt: string;
  nextAppUrl: string;
}
let prepare: (msg: Record<string, unknown>) => number = () => 0;

switch (kind) {
  case 'checkout-floor': {
    let nextAppUrl = '';
    prepare = (msg) => {
      const items = msg.items as PrepareItem[];
      const ediDate = kstTimestamp14(clock());
      nextAppUrl = items[0]?.nextAppUrl ?? nextAppUrl;
      prebuilt = items.map((it) => benchApprovalForm(it.tid, it.authToken, it.amt, ediDate));
      nextPrebuilt = 0;
      return prebuilt.length;
    };
    floorRoute('/return', () => nextAppUrl, 'application/x-www-form-urlencoded; charset=euc-kr');
    break;
  }
  case 'checkout-ours':
  case 'checkout-base': {
    app.post(
      '/return',
      nicepay!.checkoutReturn({
        expectedAmount: (moid) => (moid.startsWith('bench') ? BENCH_AMOUNT : undefined),
        ...hook,
      }),
      (req, res) => {
        const { status } = req.checkout!;
        count(status);
        res.send(status);
      },
    );
    break;
  }
  case 'checkout-skeleton': {
    const { readFormBody } = await fromBuild<typeof import('../src/express/read-body.js')>('express/read-body.js');
    const { createTransport } = await fromBuild<typeof import('../src/transport.js')>('transport.js');
    const { decodeForm, encodeForm } =
      await fromBuild<typeof import('../src/wire/form-codec.js')>('wire/form-codec.js');
    const { signedApprovalFields } =
      await fromBuild<typeof import('../src/approval/signed-form.js')>('approval/signed-form.js');
    const { parseGatewayBody } =
      await fromBuild<typeof import('../src/wire/response-body.js')>('wire/response-body.js');
    const transport = createTransport({ connectMs: 5_000, responseMs: 30_000, maxResponseBytes: 65_536 });
    const config = { mid: BENCH_MID, merchantKey: BENCH_KEY, clock };
    app.post('/return', (req, res) => {
      readFormBody(req, { limit: 16_384, bodyCharset: () => 'euc-kr' }, 'checkoutReturn')
        .then(({ bytes, charset }) => {
          const form = decodeForm(bytes, charset, { maxFields: 64 });
          const fields = {
            ...signedApprovalFields(config, form.TxTid!, form.AuthToken!, BENCH_AMOUNT),
            CharSet: 'euc-kr',
            EdiType: 'JSON',
          };
          return transport.post(
            new URL(form.NextAppURL!),
            encodeForm(fields, 'euc-kr'),
            'application/x-www-form-urlencoded; charset=euc-kr',
          );
        })
        .then(
          (answer) => {
            const raw = parseGatewayBody(answer.body, 'euc-kr', 'JSON');
            count(raw.ResultCode === '3001' ? 'approved' : `result-${raw.ResultCode}`);
            res.send(raw.ResultCode);
          },
          (err) => fail(res, err),
        );
    });
    break;
  }
  case 'checkout-sample': {
    // As the gateway's Node sample does it: parse with express.urlencoded, build SignData,
    // post with axios. Node 20's global agent keeps connections alive, the Node versions the
    // sample was written for did not: a non-keep-alive agent reproduces its behaviour.
    const httpAgent = new http.Agent({ keepAlive: false });
    const ediDateOf = (d: Date): string => kstTimestamp14(d);
    app.post('/return', express.urlencoded({ extended: true }), (req, res) => {
      const b = req.body as Record<string, string>;
      if (b.AuthResultCode !== '0000') {
        count('auth-failed');
        res.send('auth failed');
        return;
      }
      // The sandbox's virtual clock is the gateway's "now": the stricter sandbox refuses (W004)
      // an EdiDate away from it, which would measure refusals instead of approvals.
      const ediDate = ediDateOf(clock());
      const signData = createHash('sha256')
        .update(b.AuthToken! + BENCH_MID + b.Amt! + ediDate + BENCH_KEY)
        .digest('hex');
      const form = new URLSearchParams({
        TID: b.TxTid!,
        AuthToken: b.AuthToken!,
        MID: BENCH_MID,
        Amt: b.Amt!,
        EdiDate: ediDate,
        SignData: signData,
        CharSet: 'utf-8',
      });
      axios
        .post(b.NextAppURL!, form.toString(), {
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          httpAgent,
        })
        .then(
          (r) => {
            const data = r.data as { ResultCode?: string };
            count(data.ResultCode === '3001' ? 'approved' : `result-${data.ResultCode}`);
            res.send(String(data.ResultCode));
          },
          (err) => fail(res, err),
        );
    });
    break;
  }
  case 'keyin-floor': {
    let seq = 0;
    prepare = (msg) => {
      const n = msg.n as number;
      const now = clock();
      const ediDate = kstTimestamp14(now);
      const tidTime = kstTimestamp12(now);
      const amt = String(BENCH_AMOUNT);
      prebuilt = [];
      for (let i = 0; i < n; i++) {
        const s = seq++;
        const moid = `kfloor-${process.pid}-${s}`;
        const tid = `${BENCH_MID}0101${tidTime}${s.toString(36).padStart(4, '0')}`;
        prebuilt.push(
          encodeForm(
            {
              TID: tid,
              MID: BENCH_MID,
              EdiDate: ediDate,
              Moid: moid,
              Amt: amt,
              GoodsName: '벤치 상품',
              EncData: encryptEncData(keyinEncPlaintext(KEYIN_CARD), BENCH_KEY),
              CardInterest: '0',
              CardQuota: '00',
              SignData: keyinSignData(BENCH_MID, amt, ediDate, moid, BENCH_KEY),
              CharSet: 'euc-kr',
              EdiType: 'JSON',
            },
            'euc-kr',
          ),
        );
      }
      nextPrebuilt = 0;
      return prebuilt.length;
    };
    floorRoute('/keyin', () => sandboxUrl + KEYIN_PATH, 'application/x-www-form-urlencoded; charset=euc-kr');
    break;
  }
  case 'keyin-ours': {
    let seq = 0;
    app.post('/keyin', (_req, res) => {
      nicepay!
        .keyin({
          moid: `kours-${process.pid}-${seq++}`,
          amount: BENCH_AMOUNT,
          goodsName: '벤치 상품',
          card: { ...KEYIN_CARD },
        })
        .then(
          (r) => {
            count(r.status);
            res.send(r.status);
          },
          (err) => fail(res, err),
        );
    });
    break;
  }
  case 'payout-floor': {
    prepare = (msg) => {
      const n = msg.n as number;
      const now = clock();
      const trDtm = kstTimestamp14(now);
      const settlmntDt = kstDate8(now);
      const encKey = payoutEncKey(SID.payoutRequest, BENCH_MID, trDtm, BENCH_KEY);
      prebuilt = [];
      for (let i = 0; i < n; i++) {
        const env = buildEnvelope(SID.payoutRequest, trDtm, {
          mid: BENCH_MID,
          settlmntDt,
          subId: BENCH_SUB_ID,
          settlmntAmt: '1000',
          dupChkYn: 'N',
          encKey,
        });
        prebuilt.push(Buffer.from(JSON.stringify(env), 'utf8'));
      }
      nextPrebuilt = 0;
      return prebuilt.length;
    };
    floorRoute('/payout', () => `${sandboxUrl}/om/api`, 'application/json; charset=utf-8');
    break;
  }
  case 'payout-ours': {
    app.post('/payout', (_req, res) => {
      nicepay!.payout.request({ subId: BENCH_SUB_ID, amount: 1000, dupCheck: false }).then(
        (r) => {
          count(r.seq ? 'requested' : 'no-seq');
          res.send(r.seq);
        },
        (err) => fail(res, err),
      );
    });
    break;
  }
  default:
    throw new Error(`unknown BENCH_KIND ${String(kind)}`);
}

app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => fail(res, err));

const server = app.listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
server.keepAliveTimeout = 60_000;

/** --alloc: V8's sampling heap profiler, counting what is allocated whether or not it is collected. */
const heap = new Session();
heap.connect();
interface SampleNode {
  selfSize: number;
  children: SampleNode[];
}
const sampledBytes = (n: SampleNode): number => n.children.reduce((a, c) => a + sampledBytes(c), n.selfSize);

serveIpc({
  prepare: (msg) => prepare(msg),
  async allocStart() {
    await heap.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
    return true;
  },
  async allocStop() {
    const { profile } = (await heap.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampleNode } };
    // With --profile too, the sampled allocations go beside the CPU profile (open in DevTools' Memory tab).
    if (process.env.BENCH_HEAP_PROFILE_DIR) {
      mkdirSync(process.env.BENCH_HEAP_PROFILE_DIR, { recursive: true });
      writeFileSync(join(process.env.BENCH_HEAP_PROFILE_DIR, `${kind}.heapprofile`), JSON.stringify(profile));
    }
    return sampledBytes(profile.head);
  },
  stats: () => ({
    ...procStats(),
    outcomes: { ...outcomes },
    firstErrors: [...firstErrors],
    storeCalls,
    redisCommands,
  }),
  reset() {
    for (const k of Object.keys(outcomes)) delete outcomes[k];
    firstErrors.length = 0;
    return true;
  },
});
process.on('SIGINT', () => {
  server.close();
  void (nicepay?.close() ?? Promise.resolve()).then(() => store?.close?.()).then(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
});
process.send!({ ready: true, port: (server.address() as AddressInfo).port });
