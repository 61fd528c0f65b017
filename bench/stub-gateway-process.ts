/**
 * A stub gateway in its own process: it answers each approval with a signed JSON answer
 * computed before the load starts, so the gateway side costs as little as possible and the
 * measured server's own cost shows (the sandbox checks signatures, keeps a ledger and builds
 * each answer while the load runs, which slows the floor and hides the middleware's cost).
 *
 * `auth` makes N auth returns and their answers ahead of time: a sandbox in this process
 * authenticates each (a real TxTid and AuthToken) and approves it once over loopback; the
 * answer's bytes are kept by TID, and the auth return's NextAppURL / NetCancelURL are pointed
 * at the stub (those two fields are not under the auth Signature). Under load the stub reads
 * the TID from the request, sends that answer once and forgets it: every TxTid is used once.
 * It checks nothing else (no SignData, no EdiDate): it is a floor, not a gateway.
 *
 * BENCH_LATENCY_MS (optional) holds every answer that long, for a production-like gateway.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Charset } from '../src/wire/charset.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { kstTimestamp14 } from '../src/wire/kst.js';
import { createSandbox } from '../src/sandbox/index.js';
import { benchApprovalForm } from './approval-form.js';
import { BENCH_KEY, BENCH_MID, procStats, serveIpc } from './ipc.js';
import type { WireAuthReturn } from './sandbox-process.js';

const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 0);
const sandbox = createSandbox({ merchants: [{ mid: BENCH_MID, merchantKey: BENCH_KEY }] });
await sandbox.listen(0, '127.0.0.1');

/** The precomputed answer of each TID not yet asked for, with its Moid for `count`. */
const answers = new Map<string, { bytes: Buffer; moid: string }>();
/** Moids of the TIDs answered, and requests the stub could not answer. */
const answered: string[] = [];
let unanswerable = 0;

const TID_FIELD = /(?:^|&)TID=([^&]*)/;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    // TIDs are ASCII, never percent-encoded: read the body as latin1 text.
    const tid = TID_FIELD.exec(Buffer.concat(chunks).toString('latin1'))?.[1];
    const answer = req.url === '/webapi/pay_process.jsp' && tid !== undefined ? answers.get(tid) : undefined;
    const send = (): void => {
      if (answer === undefined) {
        unanswerable++;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('stub: no answer for this request');
        return;
      }
      answers.delete(tid!);
      answered.push(answer.moid);
      res.writeHead(200, { 'content-type': 'text/html;charset=euc-kr' }).end(answer.bytes);
    };
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

serveIpc({
  url: () => url,
  /** Same contract as the sandbox process's `auth`, answers precomputed. */
  async auth(msg) {
    const { n, amount, prefix, charset } = msg as { n: number; amount: number; prefix: string; charset: Charset };
    const out: WireAuthReturn[] = [];
    for (let i = 0; i < n; i++) {
      const moid = `${prefix}-${i}`;
      const r = await sandbox.authenticate({
        moid,
        amount,
        method: 'CARD',
        charset,
        goodsName: '벤치 상품',
        buyerName: '홍길동',
      });
      const f = r.fields;
      const ediDate = kstTimestamp14(new Date());
      const approval = benchApprovalForm(f.TxTid!, f.AuthToken!, f.Amt!, ediDate, charset);
      const got = await request(f.NextAppURL!, {
        method: 'POST',
        body: approval,
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=euc-kr' },
      });
      const bytes = Buffer.from(await got.body.arrayBuffer());
      if (got.statusCode !== 200)
        throw new Error(`stub: the sandbox refused to approve ${f.TxTid} (${got.statusCode})`);
      answers.set(f.TxTid!, { bytes, moid });
      const fields = {
        ...f,
        NextAppURL: `${url}/webapi/pay_process.jsp`,
        NetCancelURL: `${url}/webapi/cancel_process.jsp`,
      };
      out.push({
        body: encodeForm(fields, charset).toString('latin1'),
        contentType: r.contentType,
        tid: f.TxTid!,
        authToken: f.AuthToken!,
        amt: f.Amt!,
        nextAppUrl: fields.NextAppURL,
      });
    }
    return out;
  },
  stats: () => procStats(),
  /** Answers sent for Moids starting with `prefix` (as `approved`), and requests it could not answer. */
  count(msg) {
    const prefix = String(msg.prefix);
    return { approved: answered.filter((m) => m.startsWith(prefix)).length, unanswerable };
  },
});
process.on('SIGINT', () => {
  server.close();
  server.closeAllConnections();
  void sandbox.close().then(() => process.exit(0));
});
process.send!({ ready: true, url });
