/**
 * The gateway sandbox in its own process, so its CPU is not the measured server's.
 * Control over IPC: `auth` pre-creates N auth returns (real ledger entries, unique TxTids)
 * and hands back their form bodies; `stats` reports its CPU; `count` checks the ledger.
 */
import type { PayMethod } from '../src/types/payment.js';
import type { Charset } from '../src/wire/charset.js';
import { createSandbox } from '../src/sandbox/index.js';
import { BENCH_KEY, BENCH_MID, flowingClock, procStats, serveIpc } from './ipc.js';

const clock = process.env.BENCH_CLOCK ? flowingClock(process.env.BENCH_CLOCK) : undefined;
const sandbox = createSandbox({ merchants: [{ mid: BENCH_MID, merchantKey: BENCH_KEY }], ...(clock ? { clock } : {}) });
const { url } = await sandbox.listen(0, '127.0.0.1');

/** One auth return as the browser would post it; body is latin1 (the form is ASCII after escaping). */
export interface WireAuthReturn {
  body: string;
  contentType: string;
  tid: string;
  authToken: string;
  amt: string;
  nextAppUrl: string;
}

serveIpc({
  url: () => url,
  async auth(msg) {
    const { n, amount, prefix, charset, method } = msg as {
      n: number;
      amount: number;
      prefix: string;
      charset: Charset;
      method?: PayMethod;
    };
    const out: WireAuthReturn[] = [];
    for (let i = 0; i < n; i++) {
      const r = await sandbox.authenticate({
        moid: `${prefix}-${i}`,
        amount,
        method: method ?? 'CARD',
        charset,
        goodsName: '벤치 상품',
        buyerName: '홍길동',
      });
      out.push({
        body: r.body.toString('latin1'),
        contentType: r.contentType,
        tid: r.fields.TxTid!,
        authToken: r.fields.AuthToken!,
        amt: r.fields.Amt!,
        nextAppUrl: r.fields.NextAppURL!,
      });
    }
    return out;
  },
  stats: () => procStats(),
  /** Ledger entries whose Moid starts with `prefix`, by status. */
  count(msg) {
    const prefix = String(msg.prefix);
    const byStatus: Record<string, number> = {};
    for (const e of sandbox.ledger.entries()) {
      if (!e.moid.startsWith(prefix)) continue;
      byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
    }
    return byStatus;
  },
  payouts: () => sandbox.dataHost.payouts(BENCH_MID).length,
});
process.on('SIGINT', () => void sandbox.close().then(() => process.exit(0)));
process.send!({ ready: true, url });
