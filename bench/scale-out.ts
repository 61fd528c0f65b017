/**
 * `npx tsx bench/scale-out.ts [--requests=N] [--rounds=N] [--connections=N] [--processes=1,2,4]`:
 * checkout throughput of one, two and four shop processes sharing one idempotency store
 * (redisStore on a throwaway redis-server), against the stub gateway
 * (bench/stub-gateway-process.ts), reported as a ratio to one process, all in one run.
 *
 * Each shop process is bench/server-process.ts (`checkout-ours`, the built package, with
 * BENCH_REDIS_URL), on its own port as behind a load balancer. The load is autocannon from this
 * process, `connections` in all, split evenly over the processes, each request a fresh auth
 * return used once. The set-ups are measured in interleaved rounds (1, 2, 4, then 2, 4, 1, ...)
 * so that load from other processes on a shared machine falls on all alike; a set-up's figure
 * is its requests over its load time, summed over the rounds. Afterwards: every request was
 * answered `approved`, the stub sent exactly one answer per request, and the store holds the
 * keys the approvals left (their count and bytes, per approval, are printed).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createClient } from 'redis';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { type Child, forkTs, type ProcStats } from './ipc.js';
import type { WireAuthReturn } from './sandbox-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const REQUESTS = Number(arg('requests', '3000'));
const ROUNDS = Number(arg('rounds', '3'));
const CONNECTIONS = Number(arg('connections', '32'));
const WARMUP = Number(arg('warmup', '1000'));
const PROCESSES = arg('processes', '1,2,4').split(',').map(Number);
if (![REQUESTS, ROUNDS, CONNECTIONS, WARMUP, ...PROCESSES].every((n) => Number.isSafeInteger(n) && n > 0))
  throw new Error('scale-out: every option is a positive whole number');

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** CPU of each part of the run, microseconds. */
interface Cpu {
  shops: number;
  redis: number;
  stub: number;
  load: number;
}

interface Shop {
  child: Child;
  port: number;
}

/** Loads `shops` at once with `n` requests in all, `CONNECTIONS` connections split over them. */
async function load(
  shops: Shop[],
  returns: WireAuthReturn[],
): Promise<{ seconds: number; non2xx: number; errors: number }> {
  let next = 0;
  const per = Math.ceil(returns.length / shops.length);
  const t0 = process.hrtime.bigint();
  let last = t0;
  const results = await Promise.all(
    shops.map((shop, i) => {
      const mine = returns.slice(i * per, (i + 1) * per);
      let taken = 0;
      return new Promise<autocannon.Result>((resolve, reject) => {
        const inst = autocannon(
          {
            url: `http://127.0.0.1:${shop.port}`,
            connections: Math.max(1, Math.floor(CONNECTIONS / shops.length)),
            amount: mine.length,
            timeout: 30,
            requests: [
              {
                method: 'POST',
                path: '/return',
                setupRequest: (req) => {
                  const r = mine[taken++]!;
                  next++;
                  return {
                    ...req,
                    method: 'POST',
                    path: '/return',
                    body: r.body,
                    headers: { 'content-type': r.contentType },
                  };
                },
              },
            ],
          },
          (err, res) => (err ? reject(err) : resolve(res)),
        );
        inst.on('response', () => {
          last = process.hrtime.bigint();
        });
      });
    }),
  );
  void next;
  return {
    seconds: Number(last - t0) / 1e9,
    non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    errors: results.reduce((a, r) => a + r.errors + r.timeouts, 0),
  };
}

async function main(): Promise<void> {
  log('building the package (dist/)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const redis = await startRedisServer();
  const stub = forkTs('./stub-gateway-process.ts', { BENCH_LATENCY_MS: '0' });
  const { url } = (await stub.ready) as unknown as { url: string };
  const admin = createClient({ url: redis.url });
  admin.on('error', () => {});
  await admin.connect();
  const maxShops = Math.max(...PROCESSES);
  const shops: Shop[] = [];
  try {
    for (let i = 0; i < maxShops; i++) {
      const child = forkTs('./server-process.ts', {
        BENCH_KIND: 'checkout-ours',
        SANDBOX_URL: url,
        BENCH_REDIS_URL: redis.url,
      });
      const { port } = (await child.ready) as unknown as { port: number };
      shops.push({ child, port });
    }
    let batch = 0;
    const auth = (n: number): Promise<WireAuthReturn[]> =>
      stub.call<WireAuthReturn[]>('auth', { n, amount: 1004, prefix: `bench-scale${batch++}`, charset: 'euc-kr' });

    log(`warm-up: ${WARMUP} requests on each of ${maxShops} processes`);
    for (const shop of shops) await load([shop], await auth(WARMUP));

    const totals = new Map<number, { requests: number; seconds: number; cpu: Cpu }>(
      PROCESSES.map((p) => [p, { requests: 0, seconds: 0, cpu: { shops: 0, redis: 0, stub: 0, load: 0 } }]),
    );
    /** CPU so far of each part of the run, microseconds. */
    const cpuNow = async (): Promise<Cpu> => {
      const shopStats = await Promise.all(shops.map((sh) => sh.child.call<ProcStats>('stats')));
      const stubStats = await stub.call<ProcStats>('stats');
      const info = await admin.info('cpu');
      const redisS = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
      const self = process.cpuUsage();
      return {
        shops: shopStats.reduce((a, st) => a + st.user + st.system, 0),
        redis: redisS * 1e6,
        stub: stubStats.user + stubStats.system,
        load: self.user + self.system,
      };
    };
    let failures = 0;
    let sent = WARMUP * maxShops;
    for (let round = 0; round < ROUNDS; round++) {
      const order = PROCESSES.map((_, i) => PROCESSES[(i + round) % PROCESSES.length]!);
      for (const p of order) {
        const returns = await auth(REQUESTS);
        const c0 = await cpuNow();
        const r = await load(shops.slice(0, p), returns);
        const c1 = await cpuNow();
        sent += REQUESTS;
        failures += r.non2xx + r.errors;
        const t = totals.get(p)!;
        t.requests += REQUESTS;
        t.seconds += r.seconds;
        for (const k of Object.keys(t.cpu) as (keyof Cpu)[]) t.cpu[k] += c1[k] - c0[k];
        log(`round ${round + 1}, ${p} process(es): ${(REQUESTS / r.seconds).toFixed(0)} req/s`);
      }
    }

    const outcomes = await Promise.all(shops.map((s) => s.child.call<{ outcomes: Record<string, number> }>('stats')));
    const approved = outcomes.reduce((a, o) => a + (o.outcomes.approved ?? 0), 0);
    const count = await stub.call<{ approved: number; unanswerable: number }>('count', { prefix: 'bench-scale' });
    const keys = await admin.dbSize();
    const stats = await admin.info('commandstats');
    const calls = (cmd: string): number => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    const roundTrips = calls('evalsha') + calls('eval');
    const memory = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    const sample = (await admin.keys('bench:*')).slice(0, 200);
    const bytes = (await Promise.all(sample.map((k) => admin.memoryUsage(k)))).reduce<number>(
      (a, b) => a + (b ?? 0),
      0,
    );

    const one = totals.get(PROCESSES[0]!)!;
    const base = one.requests / one.seconds;
    console.log(
      `scale-out: ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${REQUESTS} requests per set-up, stub gateway, one redis-server`,
    );
    for (const [p, t] of totals) {
      const rps = t.requests / t.seconds;
      const us = (k: keyof Cpu): string => (t.cpu[k] / t.requests).toFixed(0);
      const cores = (t.cpu.shops + t.cpu.redis + t.cpu.stub + t.cpu.load) / 1e6 / t.seconds;
      console.log(
        `  ${p} process(es): ${rps.toFixed(0)} req/s, ${(rps / base).toFixed(2)}x of ${PROCESSES[0]}; CPU per request: shops ${us('shops')} us, redis ${us('redis')} us, stub ${us('stub')} us, load generator ${us('load')} us; ${cores.toFixed(2)} cores busy`,
      );
    }
    console.log(
      `  checks: ${approved}/${sent} answered approved, ${count.approved} stub answers, ${count.unanswerable} unanswerable, ${failures} non-2xx or errors`,
    );
    console.log(
      `  store round trips: ${roundTrips} scripts run for ${sent} approvals (${(roundTrips / sent).toFixed(2)} per approval)`,
    );
    console.log(
      `  store: ${keys} keys for ${sent} approvals (${(keys / sent).toFixed(2)} per approval), ~${(bytes / sample.length).toFixed(0)} bytes per key (MEMORY USAGE of ${sample.length}), used_memory ${(memory / sent).toFixed(0)} bytes per approval`,
    );
    if (approved !== sent || count.approved !== sent || failures !== 0) process.exitCode = 1;
  } finally {
    await Promise.all(shops.map((s) => s.child.stop()));
    await stub.stop();
    await admin.close();
    await redis.stop();
  }
}

await main();
