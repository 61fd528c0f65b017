/**
 * `npm run bench [-- --quick] [-- --profile]`: load-tests the approval path on loopback.
 *
 * Two gateways, one after the other: the sandbox (bench/sandbox-process.ts), a real
 * stateful gateway whose own work (signature checks, ledger) is part of every request, and a
 * stub (bench/stub-gateway-process.ts) that answers precomputed signed JSON, as cheap a gateway
 * as there can be, so the middleware's own cost shows. Each measured server runs in its own
 * process (bench/server-process.ts), one after the other, loaded by autocannon from this
 * process. Every request carries a fresh auth return (its own TxTid, used once) or, for key-in
 * and payout (sandbox only), triggers a fresh charge / payout request; what the gateway
 * recorded is checked afterwards.
 *
 * --gateway=sandbox|stub|both (default both) picks the gateways;
 * --connections=N overrides the load's connections (default 16 against the sandbox, 32 against the stub);
 * --latency=MS makes the stub hold every answer MS ms (a production-like gateway: try
 *   --gateway=stub --latency=200 --connections=400).
 *
 * --profile writes a V8 CPU profile of each server child to $TMPDIR/express-nicepay-bench-profiles/<kind>/
 *   (with --alloc, also <kind>.heapprofile: the sampled allocations);
 *   (--profile-interval=US sets its sampling interval; V8's default is 1000 µs);
 * --only=<kind prefix>[,...] runs a subset (e.g. --only=checkout-floor,checkout-ours);
 * --warmup=N, --rewarm=N, --rounds=N, --checkout=N, --keyin=N, --payout=N, --pipeline=N override the plan's sizes.
 * --base=<rev or dir> adds (b0), checkoutReturn from another tree, measured in the same
 *   interleaved rounds: a git revision (e.g. --base=main, --base=HEAD~3) is checked out into a
 *   temporary `git worktree` with this tree's node_modules linked, and removed afterwards; a
 *   directory is used as it is.
 * --rate=N caps the load at N req/s (for comparing CPU per request at equal load).
 * --store=memory|sqlite|redis|redis-replica[,...] gives checkoutReturn that ledger store, one
 *   (b) server per store listed, all in the same interleaved rounds: memoryStore(); sqliteStore on
 *   a temporary file; redisStore on a redis-server the bench starts (no persistence); the same
 *   with waitForReplicas: 1 and a replica started beside it. Each reports its store calls per
 *   approval, and a redis store the Redis commands it sent per approval.
 * --hook gives checkoutReturn (ours and base) an onApproved that does nothing, as a shop has one.
 * A run with --only, --base, --rate or a size override is an experiment: it prints and writes nothing.
 *
 * A full run writes bench/results.json (an output, not committed) and the generated part of
 * bench/RESULTS.md; --quick (checkout only) just prints. The last line printed is
 *   checkout b/a=<ratio> b/c=<ratio> stub b/a=<ratio> stub b/c=<ratio> pipeline=<us>us
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createNicepay } from '../src/index.js';
import { fromKst, kstParts } from '../src/wire/kst.js';
import { BENCH_AMOUNT, BENCH_KEY, BENCH_MID, BENCH_SUB_ID, type Child, forkTs, type ProcStats } from './ipc.js';
import { measurePipeline, type PipelineResult } from './pipeline.js';
import type { WireAuthReturn } from './sandbox-process.js';
import type { ServerKind } from './server-process.js';
import { startRedisServer, type RedisServer } from '../test/helpers/redis-server.js';

const quick = process.argv.includes('--quick');
const profile = process.argv.includes('--profile');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const baseArg = process.argv.find((a) => a.startsWith('--base='))?.slice(7);
const gatewayArg = process.argv.find((a) => a.startsWith('--gateway='))?.slice(10) ?? 'both';
if (!['sandbox', 'stub', 'both'].includes(gatewayArg))
  throw new Error(`--gateway=${gatewayArg}: expected sandbox, stub or both`);
type Gateway = 'sandbox' | 'stub';
const gateways: Gateway[] = gatewayArg === 'both' ? ['sandbox', 'stub'] : [gatewayArg as Gateway];
const wholeArg = (name: string): number | undefined => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (arg === undefined) return undefined;
  const n = Number(arg.slice(name.length + 3));
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${arg}: expected a whole number`);
  return n;
};
const connectionsArg = wholeArg('connections');
/** --profile-interval=US: the CPU profiles' sampling interval (V8's default, 1000 µs, sees little of a short run). */
const profileIntervalUs = wholeArg('profile-interval') ?? 1000;
const latencyMs = wholeArg('latency') ?? 0;
/**
 * --alloc (always on in a full run) adds an untimed pass per server after the rounds that
 * counts what it allocates per request with V8's sampling heap profiler (collected objects
 * included): a figure the machine's noise does not move, unlike time.
 */
const alloc = process.argv.includes('--alloc');
/** --rate=N caps the load at N req/s: CPU per request then compares code, not how busy each server was. */
const rateArg = process.argv.find((a) => a.startsWith('--rate='));
const rate = rateArg === undefined ? undefined : Number(rateArg.slice(7));
if (rate !== undefined && !(Number.isSafeInteger(rate) && rate > 0))
  throw new Error(`${rateArg}: expected a whole number of requests per second`);
/** The ledger stores of --store, one checkoutReturn server each; none: the library's default memoryStore, uncounted. */
const STORES = ['memory', 'sqlite', 'redis', 'redis-replica'] as const;
type StoreName = (typeof STORES)[number];
const storeArg = process.argv
  .find((a) => a.startsWith('--store='))
  ?.slice(8)
  .split(',');
for (const s of storeArg ?? [])
  if (!(STORES as readonly string[]).includes(s)) throw new Error(`--store=${s}: expected ${STORES.join(', ')}`);
const stores = storeArg as StoreName[] | undefined;
const hookArg = process.argv.includes('--hook');

/** Connections of the load against each gateway (the stub's as the held-out load test had it). */
const CONNECTIONS: Record<Gateway, number> = { sandbox: connectionsArg ?? 16, stub: connectionsArg ?? 32 };
/** The most connections of any gateway run: the least a warm-up may be (one request per connection). */
const MAX_CONNECTIONS = Math.max(...gateways.map((g) => CONNECTIONS[g]));
/**
 * The servers of one comparison are measured in interleaved rounds rather than one long run
 * each, so that load from other processes on a shared machine falls on all of them alike.
 *
 * Warm-up is per group and long for checkout: V8 optimises a function called once per request
 * only after thousands of calls (`--trace-opt` on the checkoutReturn server still shows the
 * parser, transport and HTTP functions reaching TurboFan after 3,000 approvals), so a short
 * warm-up measures the library half-compiled: with 1,000 warm-up requests its first rounds ran
 * at 60-70 % of the floor's rate, and b/a came out 0.81-0.86 where 8,000 gave 0.91-0.96 in the
 * same hour. A shop's server runs for days; the benchmark measures that steady state.
 *
 * `rewarm` untimed requests (at most a round's own size) go to each server just before each of
 * its rounds. Interleaving leaves every server idle while the others run, and a server coming
 * back from a pause is cold (caches, branch predictors, a shrunk young generation) for its first
 * requests: with 1,000-request chunks after 2 s pauses, both servers used 36-55 % more CPU per
 * request than under continuous load, and checkoutReturn 22-26 % more than the floor (6-20 %
 * with 300 untimed requests before each chunk; a few runs each). Under
 * sustained load, which is what throughput means, a server is never cold.
 */
const plan = quick
  ? {
      rounds: 3,
      warmup: { checkout: 5000, keyin: 0, payout: 0 },
      rewarm: 200,
      checkout: 1800,
      keyin: 0,
      payout: 0,
      pipeline: 20_000,
      pipelineTrials: 2,
    }
  : {
      rounds: 12,
      warmup: { checkout: 10_000, keyin: 5_000, payout: 1_000 },
      rewarm: 300,
      checkout: 18_000,
      keyin: 6_000,
      payout: 2_400,
      pipeline: 100_000,
      pipelineTrials: 5,
    };
for (const key of ['warmup', 'rewarm', 'rounds', 'checkout', 'keyin', 'payout', 'pipeline'] as const) {
  const arg = process.argv.find((a) => a.startsWith(`--${key}=`));
  if (arg === undefined) continue;
  const n = Number(arg.slice(key.length + 3));
  if (!Number.isSafeInteger(n) || n < 0 || (key === 'rounds' && n === 0))
    throw new Error(`${arg}: expected a whole number${key === 'rounds' ? ' above 0' : ''}`);
  // autocannon refuses a load of fewer requests than connections.
  if ((key === 'warmup' || key === 'rewarm') && n > 0 && n < MAX_CONNECTIONS)
    throw new Error(`${arg}: expected 0 or at least ${MAX_CONNECTIONS} (one request per connection)`);
  if (key === 'warmup') plan.warmup = { checkout: n, keyin: n, payout: n };
  else plan[key] = n;
}
// The default re-warm (300) is below a large --connections: raise it to one request per connection.
if (plan.rewarm > 0 && plan.rewarm < MAX_CONNECTIONS) plan.rewarm = MAX_CONNECTIONS;
type Group = keyof typeof plan.warmup;

/**
 * The order of the servers in round `r`: rows of a Williams Latin square. Over n rounds (2n
 * for an odd n) every server runs once in every position and, within the rounds, directly after
 * every other server equally often (the change from one round's last server to the next
 * round's first is not balanced). A plain rotation (a b c, b c a, c a b) gives each server the
 * same predecessor inside every round, so whatever one server leaves behind (the
 * official-sample approach leaves a thousand closed connections and the sandbox's garbage per
 * round) would always fall on the same next one.
 */
function roundOrder(n: number, r: number): number[] {
  const first: number[] = [];
  for (let i = 0, lo = 0, hi = n - 1; i < n; i++) first.push(i === 0 ? lo++ : i % 2 ? lo++ : hi--);
  const row = first.map((k) => (k + r) % n);
  // For an odd n the mirrored rows complete the balance.
  return n % 2 === 1 && Math.floor(r / n) % 2 === 1 ? row.reverse() : row;
}
/** Only the default full plan is recorded; quick runs and experiments print. */
const record =
  !quick &&
  !only &&
  !baseArg &&
  !alloc &&
  rate === undefined &&
  !stores &&
  !hookArg &&
  gatewayArg === 'both' &&
  connectionsArg === undefined &&
  latencyMs === 0 &&
  !process.argv.some((a) => /^--(warmup|rewarm|rounds|checkout|keyin|payout|pipeline)=/.test(a));
/** The tree of --base, once resolved (a directory, or a temporary worktree of a revision). */
let base: string | undefined;

/** 09:00 KST on the next Monday: a business day, before the 10:30 payout cut-off. */
function payoutMorning(): string {
  const now = kstParts(new Date());
  const base = fromKst(now.year, now.month, now.day, 9, 0);
  const days = (8 - now.weekday) % 7 || 7;
  return new Date(base.getTime() + days * 86_400_000).toISOString();
}

interface Round {
  requests: number;
  durationS: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  cpuUs: number;
  /** Server child GC pauses, microseconds. */
  gcUs: number;
  /** Server child's main thread alone, microseconds (NaN without /proc). */
  mainCpuUs: number;
  /** Server child's helper threads by name, microseconds. */
  helperCpuUs: Record<string, number>;
  sandboxCpuUs: number;
  non2xx: number;
  errors: number;
}

interface Measurement {
  /** The server's name in this run: its kind, with `-<store>` for a --store server. */
  id: string;
  name: string;
  kind: ServerKind;
  /** The ledger store of a --store server. */
  store?: StoreName;
  /** Store calls per request (--store servers), else null. */
  storeCallsPerReq: number | null;
  /** Commands its redis store sent per request (redis stores), else null. */
  redisCommandsPerReq: number | null;
  gateway: Gateway;
  requests: number;
  durationS: number;
  /** Total requests over total load time, all rounds. */
  reqPerSec: number;
  /** Median over the rounds of each round's percentile. */
  p50Ms: number;
  p99Ms: number;
  /** Server child CPU (user + system) per request, microseconds. */
  cpuUsPerReq: number;
  /** Server child GC pauses per request, microseconds (part of its CPU). */
  gcUsPerReq: number;
  /** Sandbox CPU per request, microseconds (the other side of every call). */
  sandboxCpuUsPerReq: number;
  peakRssMb: number;
  /** KB allocated per request, from the untimed allocation pass (full runs and --alloc), else null. */
  allocKbPerReq: number | null;
  non2xx: number;
  errors: number;
  outcomes: Record<string, number>;
  firstErrors: string[];
  /** What the sandbox ledger / books say happened. */
  verified: string;
  rounds: Round[];
}

const clockIso = payoutMorning();

/** One measured server of a group: its kind and, for a --store server, its ledger store. */
interface Server {
  id: string;
  kind: ServerKind;
  name: string;
  store?: StoreName;
}
const server = (kind: ServerKind, name: string, store?: StoreName): Server => ({
  id: store ? `${kind}-${store}` : kind,
  kind,
  name,
  ...(store ? { store } : {}),
});
/**
 * What --store servers need besides themselves: a redis-server of its own for each redis store,
 * redis-replica's with a replica, and a directory for SQLite files.
 */
interface StoreHosts {
  redisUrl: Partial<Record<StoreName, string>>;
  sqliteDir?: string;
  stop(): Promise<void>;
}
let hosts: StoreHosts = { redisUrl: {}, stop: async () => {} };

/** Starts what the stores of --store need (see {@link StoreHosts}). */
async function startStoreHosts(list: readonly StoreName[]): Promise<StoreHosts> {
  const started: RedisServer[] = [];
  const out: StoreHosts = {
    redisUrl: {},
    async stop() {
      for (const r of started.reverse()) await r.stop();
      if (out.sqliteDir) rmSync(out.sqliteDir, { recursive: true, force: true });
    },
  };
  if (list.includes('sqlite')) out.sqliteDir = mkdtempSync(join(os.tmpdir(), 'express-nicepay-bench-sqlite-'));
  for (const store of list.filter((s) => s.startsWith('redis'))) {
    const master = await startRedisServer();
    started.push(master);
    out.redisUrl[store] = master.url;
    // WAIT (waitForReplicas) needs a replica that has finished its first sync.
    // Its first sync loads an RDB file: written in a directory of its own, removed afterwards.
    if (store === 'redis-replica') {
      const dir = mkdtempSync(join(os.tmpdir(), 'express-nicepay-bench-replica-'));
      const replica = await startRedisServer(
        ['--replicaof', '127.0.0.1', new URL(master.url).port, '--dir', dir],
        'sync: Finished with success',
      );
      started.push({
        url: replica.url,
        stop: async () => {
          await replica.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      });
    }
  }
  return out;
}
const log = (...a: unknown[]): void => console.error('[bench]', ...a);

/**
 * Builds the package (npm run build) in `root`: the servers load the library from its dist/,
 * as a shop's server does, rather than from the TypeScript sources through tsx.
 */
function buildLibrary(root: string): void {
  try {
    execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run build failed in ${root}:\n${String(e.stdout ?? '')}${String(e.stderr ?? '')}`);
  }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The tree --base names: a directory as it is, or a git revision checked out (detached) into a
 * temporary worktree that shares this tree's node_modules. Returns it and its clean-up.
 */
function resolveBase(arg: string): { dir: string; remove: () => void } {
  if (existsSync(arg) && statSync(arg).isDirectory()) return { dir: arg, remove: () => {} };
  const dir = join(mkdtempSync(join(os.tmpdir(), 'express-nicepay-base-')), 'tree');
  try {
    execFileSync('git', ['worktree', 'add', '--detach', dir, arg], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    throw new Error(
      `--base=${arg}: neither a directory nor a git revision (${String((err as { stderr?: Buffer }).stderr ?? err).trim()})`,
    );
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    remove: () => {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'pipe' });
      rmSync(dirname(dir), { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const resolved = baseArg ? resolveBase(baseArg) : undefined;
  base = resolved?.dir;
  try {
    if (stores) hosts = await startStoreHosts(stores);
    await measureAll();
  } finally {
    await hosts.stop();
    resolved?.remove();
  }
}

async function measureAll(): Promise<void> {
  log(`building the package (dist/)${base ? ` here and in ${base}` : ''}`);
  buildLibrary(ROOT);
  if (base) buildLibrary(base);
  const started = Date.now();
  const loadBefore = os.loadavg();
  const results: Measurement[] = [];
  const want = (k: string): boolean => !only || only.some((o) => k.startsWith(o));

  for (const gateway of gateways) {
    const env: Record<string, string> =
      gateway === 'stub' ? { BENCH_LATENCY_MS: String(latencyMs) } : { BENCH_CLOCK: clockIso };
    const sandbox = forkTs(gateway === 'stub' ? './stub-gateway-process.ts' : './sandbox-process.ts', env);
    const { url } = (await sandbox.ready) as unknown as { url: string };
    log(
      gateway === 'stub'
        ? `stub gateway at ${url}${latencyMs ? `, ${latencyMs} ms per answer` : ''}`
        : `sandbox at ${url}, virtual clock from ${clockIso}`,
    );
    const tag = gateway === 'stub' ? '[stub] ' : '';
    try {
      const hooked = hookArg ? ' with an onApproved' : '';
      const checkout = [
        server('checkout-floor', `${tag}(a) floor: pre-built approval, bare undici`),
        ...(stores
          ? stores.map((st) =>
              server('checkout-ours', `${tag}(b) express-nicepay checkoutReturn${hooked}, ${st} store`, st),
            )
          : [server('checkout-ours', `${tag}(b) express-nicepay checkoutReturn${hooked}`)]),
        ...(base ? [server('checkout-base', `${tag}(b0) checkoutReturn of ${baseArg}${hooked}`)] : []),
        // Where the gap to the floor comes from: the plumbing alone, without the checks (full runs).
        ...(!quick && gateway === 'sandbox'
          ? [server('checkout-skeleton', "(s) checkoutReturn's plumbing only: no check, store or mapping")]
          : []),
        server('checkout-sample', `${tag}(c) official-sample approach (urlencoded + axios)`),
      ].filter((s) => want(s.id));
      if (checkout.length)
        results.push(
          ...(await runGroup(sandbox, url, gateway, 'checkout', checkout, '/return', plan.checkout, checkoutFeeder)),
        );
      if (gateway === 'stub') continue; // key-in and payout: against the sandbox only

      const keyin = [
        server('keyin-floor', 'key-in floor: pre-built form, bare undici'),
        server('keyin-ours', 'key-in nicepay.keyin()'),
      ].filter((s) => want(s.id));
      if (plan.keyin && keyin.length)
        results.push(...(await runGroup(sandbox, url, gateway, 'keyin', keyin, '/keyin', plan.keyin, simpleFeeder)));

      const payout = [
        server('payout-floor', 'payout floor: pre-built envelope, bare undici'),
        server('payout-ours', 'payout nicepay.payout.request()'),
      ].filter((s) => want(s.id));
      if (plan.payout && payout.length) {
        // One sub-merchant, registered at 09:00 KST on the virtual clock the server children share.
        const admin = createNicepay({
          mid: BENCH_MID,
          merchantKey: BENCH_KEY,
          baseUrl: url,
          clock: () => new Date(new Date(clockIso).getTime() + (Date.now() - started)),
        });
        await admin.payout.registerSubMerchant({
          subId: BENCH_SUB_ID,
          subNm: '벤치 하위몰',
          subCoNo: '1234567890',
          bankCd: '004',
          accntNo: '12345678901234',
          accntNm: '홍길동',
        });
        await admin.close();
        results.push(
          ...(await runGroup(sandbox, url, gateway, 'payout', payout, '/payout', plan.payout, simpleFeeder)),
        );
      }
    } finally {
      await sandbox.stop();
    }
  }

  log('pipeline micro-benchmark');
  const pipeline = await bestPipeline(plan.pipeline, plan.pipelineTrials);
  report(results, pipeline, loadBefore, Date.now() - started);
}

/** Forks a server and waits for its port. */
async function startServer({ id, kind, store }: Server, url: string): Promise<{ child: Child; port: number }> {
  const profileDir = join(os.tmpdir(), 'express-nicepay-bench-profiles', id);
  const extra = profile
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${profileIntervalUs}`]
    : [];
  const storeEnv: Record<string, string> = !store
    ? {}
    : store === 'sqlite'
      ? { BENCH_STORE: store, BENCH_SQLITE_PATH: join(hosts.sqliteDir!, `${id}.db`) }
      : store === 'memory'
        ? { BENCH_STORE: store }
        : { BENCH_STORE: store, BENCH_REDIS_URL: hosts.redisUrl[store]!, BENCH_REDIS_PREFIX: `bench:${id}:` };
  const env = {
    BENCH_KIND: kind,
    SANDBOX_URL: url,
    BENCH_CLOCK: clockIso,
    ...storeEnv,
    ...(hookArg ? { BENCH_ON_APPROVED: '1' } : {}),
    ...(base ? { BENCH_BASE: base } : {}),
    ...(profile ? { BENCH_HEAP_PROFILE_DIR: profileDir } : {}),
  };
  const child = forkTs('./server-process.ts', env, extra);
  const { port } = (await child.ready) as unknown as { port: number };
  return { child, port };
}

/** What a server says of its store in `stats` (0 without one). */
interface StoreStats {
  storeCalls: number;
  redisCommands: number;
}

type BodyFn = () => { body: string; contentType: string };

/**
 * Runs autocannon for exactly `n` requests; `body()` gives each request its own body.
 * Resolves with autocannon's result and the time from start to the last response: autocannon
 * notices that `amount` is reached on its 1-second tick, so its own duration (and anything
 * computed from it) is quantised to whole seconds.
 */
function load(
  port: number,
  path: string,
  n: number,
  connections: number,
  body?: BodyFn,
): Promise<autocannon.Result & { activeS: number }> {
  const requests: autocannon.Request[] = [
    body
      ? {
          method: 'POST',
          path,
          setupRequest: (req) => {
            const b = body();
            return { ...req, method: 'POST', path, body: b.body, headers: { 'content-type': b.contentType } };
          },
        }
      : { method: 'POST', path, body: '', headers: { 'content-type': 'text/plain' } },
  ];
  const t0 = process.hrtime.bigint();
  let last = t0;
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections,
        amount: n,
        requests,
        timeout: 30,
        ...(rate ? { overallRate: rate } : {}),
      },
      (err, res) => (err ? reject(err) : resolve({ ...res, activeS: Number(last - t0) / 1e9 })),
    );
    inst.on('response', () => {
      last = process.hrtime.bigint();
    });
  });
}

/**
 * Makes what one load phase of `n` requests needs: for checkout, fresh auth returns from the
 * sandbox (and, for the floor, its pre-built approval forms); for key-in and payout, the
 * floor's pre-built forms. Returns the per-request body function, if any, and the Moid prefix.
 */
type Feeder = (sandbox: Child, child: Child, server: Server, tag: string, n: number) => Promise<BodyFn | undefined>;

const SPARE = MAX_CONNECTIONS * 2;

const checkoutFeeder: Feeder = async (sandbox, child, { id, kind }, tag, n) => {
  // The sample's urlencoded parser only takes UTF-8 bodies (415 on charset=euc-kr), so its
  // shop must use CharSet=utf-8 windows; the others get the gateway's default EUC-KR.
  const charset = kind === 'checkout-sample' ? 'utf-8' : 'euc-kr';
  const list = await sandbox.call<WireAuthReturn[]>('auth', {
    n: n + SPARE,
    amount: BENCH_AMOUNT,
    prefix: `bench-${id}-${tag}`,
    charset,
  });
  if (kind === 'checkout-floor') {
    // Exactly the first n are pre-built: the floor approves what it was given, in order.
    await child.call('prepare', {
      items: list.slice(0, n).map(({ tid, authToken, amt, nextAppUrl }) => ({ tid, authToken, amt, nextAppUrl })),
    });
  }
  let i = 0;
  return () => {
    const r = list[i++];
    if (!r) throw new Error('ran out of auth returns');
    return { body: r.body, contentType: r.contentType };
  };
};

const simpleFeeder: Feeder = async (_sandbox, child, { kind }, _tag, n) => {
  if (kind.endsWith('-floor')) await child.call('prepare', { n: n + SPARE });
  return undefined;
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function runGroup(
  sandbox: Child,
  url: string,
  gateway: Gateway,
  group: Group,
  kinds: Server[],
  path: string,
  total: number,
  feeder: Feeder,
): Promise<Measurement[]> {
  const servers = new Map<
    string,
    { child: Child; port: number; rounds: Round[]; untimed: number; storeCalls: number; redisCommands: number }
  >();
  const connections = CONNECTIONS[gateway];
  try {
    for (const k of kinds)
      servers.set(k.id, { ...(await startServer(k, url)), rounds: [], untimed: 0, storeCalls: 0, redisCommands: 0 });
    for (const k of kinds) {
      const s = servers.get(k.id)!;
      const warmup = plan.warmup[group];
      log(`${k.name}: warm-up ${warmup}`);
      if (warmup) await load(s.port, path, warmup, connections, await feeder(sandbox, s.child, k, 'warm', warmup));
      await s.child.call('reset');
    }
    const perRound = Math.ceil(total / plan.rounds);
    const rewarm = Math.min(plan.rewarm, perRound);
    for (let r = 0; r < plan.rounds; r++) {
      const order = roundOrder(kinds.length, r).map((i) => kinds[i]!);
      for (const k of order) {
        const s = servers.get(k.id)!;
        // One batch for the untimed re-warm and the round, fetched first: a server that sat
        // idle while the others ran starts cold (see `rewarm`), and the round follows its
        // re-warm at once. SPARE more in case a reconnect makes the re-warm take a few extra.
        const body = await feeder(sandbox, s.child, k, `run${r}`, (rewarm ? rewarm + SPARE : 0) + perRound);
        if (rewarm) s.untimed += (await load(s.port, path, rewarm, connections, body)).requests.total;
        const s0 = await s.child.call<ProcStats & StoreStats>('stats');
        const b0 = await sandbox.call<ProcStats>('stats');
        const res = await load(s.port, path, perRound, connections, body);
        const durationS = res.activeS;
        const s1 = await s.child.call<ProcStats & StoreStats>('stats');
        s.storeCalls += s1.storeCalls - s0.storeCalls;
        s.redisCommands += s1.redisCommands - s0.redisCommands;
        const b1 = await sandbox.call<ProcStats>('stats');
        const cpu = (a: ProcStats, b: ProcStats): number => b.user - a.user + b.system - a.system;
        s.rounds.push({
          requests: res.requests.total,
          durationS,
          reqPerSec: res.requests.total / durationS,
          p50Ms: res.latency.p50,
          p99Ms: res.latency.p99,
          cpuUs: cpu(s0, s1),
          gcUs: s1.gc - s0.gc,
          mainCpuUs: (s1.mainCpu ?? NaN) - (s0.mainCpu ?? NaN),
          sandboxCpuUs: cpu(b0, b1),
          helperCpuUs: Object.fromEntries(
            Object.entries(s1.helperCpu ?? {}).map(([name, us]) => [name, us - (s0.helperCpu?.[name] ?? 0)]),
          ),
          non2xx: res.non2xx,
          errors: res.errors + res.timeouts,
        });
      }
      // Per request: all threads' CPU, then the main thread's alone and GC pauses, so that a
      // slow round shows whether JavaScript or V8's helper threads took the extra time.
      log(
        `round ${r + 1}/${plan.rounds}: ${kinds
          .map(({ id: k }) => {
            const last = servers.get(k)!.rounds.at(-1)!;
            const per = (us: number): string => (us / last.requests).toFixed(0);
            const helpers = Object.entries(last.helperCpuUs)
              .filter(([, us]) => us > 0)
              .map(([name, us]) => `${name.trim()} ${per(us)}`)
              .join(', ');
            return `${k} ${last.reqPerSec.toFixed(0)} req/s ${per(last.cpuUs)} us/req (main ${per(last.mainCpuUs)}, gc ${per(last.gcUs)}${helpers ? `; ${helpers}` : ''})`;
          })
          .join(', ')}; order ${order.map(({ id }) => id.replace(/^[a-z]+-/, '')).join(' > ')}`,
      );
    }
    const allocKb = new Map<string, number>();
    if (record || alloc) {
      const n = Math.min(perRound, 1000);
      for (const k of kinds) {
        const s = servers.get(k.id)!;
        const body = await feeder(sandbox, s.child, k, 'alloc', n);
        await s.child.call('allocStart');
        const res = await load(s.port, path, n, connections, body);
        allocKb.set(k.id, (await s.child.call<number>('allocStop')) / res.requests.total / 1024);
      }
    }
    const out: Measurement[] = [];
    for (const { id, kind, name, store } of kinds) {
      const s = servers.get(id)!;
      const st = await s.child.call<ProcStats & { outcomes: Record<string, number>; firstErrors: string[] }>('stats');
      const sum = (f: (r: Round) => number): number => s.rounds.reduce((a, r) => a + f(r), 0);
      const requests = sum((r) => r.requests);
      const durationS = sum((r) => r.durationS);
      const m: Measurement = {
        id,
        name,
        kind,
        ...(store ? { store } : {}),
        gateway,
        requests,
        durationS,
        storeCallsPerReq: store ? s.storeCalls / requests : null,
        redisCommandsPerReq: store?.startsWith('redis') ? s.redisCommands / requests : null,
        reqPerSec: requests / durationS,
        p50Ms: median(s.rounds.map((r) => r.p50Ms)),
        p99Ms: median(s.rounds.map((r) => r.p99Ms)),
        cpuUsPerReq: sum((r) => r.cpuUs) / requests,
        gcUsPerReq: sum((r) => r.gcUs) / requests,
        sandboxCpuUsPerReq: sum((r) => r.sandboxCpuUs) / requests,
        peakRssMb: st.maxRss / 1024 / 1024,
        allocKbPerReq: allocKb.get(id) ?? null,
        non2xx: sum((r) => r.non2xx),
        errors: sum((r) => r.errors),
        outcomes: st.outcomes,
        firstErrors: st.firstErrors,
        verified: await verify(sandbox, gateway, id, kind, requests, s.untimed),
        rounds: s.rounds,
      };
      log(
        `${name}: ${m.reqPerSec.toFixed(0)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, ${m.cpuUsPerReq.toFixed(0)} us CPU/req (GC ${m.gcUsPerReq.toFixed(0)}), ${m.allocKbPerReq === null ? '' : `${m.allocKbPerReq.toFixed(1)} KB allocated/req, `}${m.peakRssMb.toFixed(0)} MB${m.storeCallsPerReq === null ? '' : `, ${m.storeCallsPerReq.toFixed(2)} store calls/req`}${m.redisCommandsPerReq === null ? '' : `, ${m.redisCommandsPerReq.toFixed(2)} redis commands/req`}; ${JSON.stringify(m.outcomes)}; ${m.verified}`,
      );
      if (m.firstErrors.length) log('  first errors:', m.firstErrors);
      out.push(m);
    }
    return out;
  } finally {
    await Promise.all([...servers.values()].map((s) => s.child.stop()));
  }
}

/** What the sandbox recorded for the measured rounds of `kind`. */
async function verify(
  sandbox: Child,
  gateway: Gateway,
  id: string,
  kind: ServerKind,
  requests: number,
  untimed: number,
): Promise<string> {
  if (gateway === 'stub') {
    const c = await sandbox.call<{ approved: number; unanswerable: number }>('count', { prefix: `bench-${id}-run` });
    return `stub: ${c.approved} precomputed answers sent for ${requests + untimed} requests (${requests} measured, ${untimed} re-warm); ${c.unanswerable} requests in all it had no answer for`;
  }
  if (kind.startsWith('checkout')) {
    const byStatus = await sandbox.call<Record<string, number>>('count', { prefix: `bench-${id}-run` });
    return `ledger: ${byStatus.approved ?? 0} approved for ${requests + untimed} requests (${requests} measured, ${untimed} re-warm)`;
  }
  if (kind.startsWith('keyin')) {
    const byStatus = await sandbox.call<Record<string, number>>('count', {
      prefix: kind === 'keyin-floor' ? 'kfloor-' : 'kours-',
    });
    return `ledger (warm-up and re-warm included): ${JSON.stringify(byStatus)}`;
  }
  return `sandbox books: ${await sandbox.call<number>('payouts')} payout requests in all (both servers, warm-up and re-warm included)`;
}

/** The pipeline is noisy on a shared machine: best of a few trials. */
async function bestPipeline(iterations: number, trials: number): Promise<PipelineResult> {
  let best: PipelineResult | undefined;
  for (let i = 0; i < trials; i++) {
    const r = await measurePipeline(iterations);
    if (!best || r.usPerApproval < best.usPerApproval) best = r;
  }
  return best!;
}

function report(results: Measurement[], pipeline: PipelineResult, loadBefore: number[], elapsedMs: number): void {
  const by = (k: ServerKind, gateway: Gateway = 'sandbox'): Measurement | undefined =>
    results.find((r) => r.id === k && r.gateway === gateway);
  const ratio = (x: Measurement | undefined, y: Measurement | undefined): number | null =>
    x && y ? Math.round((x.reqPerSec / y.reqPerSec) * 1000) / 1000 : null;
  const cpus = os.cpus();
  const machine = {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
    loadAverageAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
  /** Each ratio: [name, numerator, denominator]. */
  const RATIOS = [
    ['checkoutBoverA', 'checkout-ours', 'checkout-floor'],
    ['checkoutBoverC', 'checkout-ours', 'checkout-sample'],
    ['checkoutBoverB0', 'checkout-ours', 'checkout-base'],
    ['checkoutSoverA', 'checkout-skeleton', 'checkout-floor'],
    ['keyinOursOverFloor', 'keyin-ours', 'keyin-floor'],
    ['payoutOursOverFloor', 'payout-ours', 'payout-floor'],
  ] as const satisfies ReadonlyArray<readonly [string, ServerKind, ServerKind]>;
  // The same ratios round by round: the servers of a round run back to back, so a round's
  // ratio is free of the machine's slower and faster minutes; the median is the robust figure.
  const paired = (x: Measurement | undefined, y: Measurement | undefined): number | null =>
    x && y && x.rounds.length === y.rounds.length
      ? Math.round(median(x.rounds.map((r, i) => r.reqPerSec / y.rounds[i]!.reqPerSec)) * 1000) / 1000
      : null;
  const table = (f: typeof ratio): Record<(typeof RATIOS)[number][0], number | null> =>
    Object.fromEntries(RATIOS.map(([name, x, y]) => [name, f(by(x), by(y))])) as Record<
      (typeof RATIOS)[number][0],
      number | null
    >;
  const ratios = table(ratio);
  const pairedRatios = table(paired);
  const STUB_RATIOS = [
    ['checkoutBoverA', 'checkout-ours', 'checkout-floor'],
    ['checkoutBoverC', 'checkout-ours', 'checkout-sample'],
    ['checkoutBoverB0', 'checkout-ours', 'checkout-base'],
  ] as const;
  const stubTable = (f: typeof ratio): Record<(typeof STUB_RATIOS)[number][0], number | null> =>
    Object.fromEntries(STUB_RATIOS.map(([name, x, y]) => [name, f(by(x, 'stub'), by(y, 'stub'))])) as Record<
      (typeof STUB_RATIOS)[number][0],
      number | null
    >;
  const stubRatios = stubTable(ratio);
  const stubPairedRatios = stubTable(paired);
  const json = {
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    machine,
    settings: { connections: CONNECTIONS, stubLatencyMs: latencyMs, ...plan, sandboxClockStart: clockIso },
    results,
    ratios,
    pairedRatios,
    stubRatios,
    stubPairedRatios,
    pipeline,
    elapsedS: Math.round(elapsedMs / 100) / 10,
  };
  // A quick run is a smoke test: it prints, and leaves the recorded full results alone.
  if (record) writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(json, null, 2)}\n`);

  const f = (n: number, d = 0): string => n.toFixed(d);
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.requests} | ${f(r.reqPerSec)} | ${f(r.p50Ms, 1)} | ${f(r.p99Ms, 1)} | ${f(r.cpuUsPerReq)} | ${f(r.gcUsPerReq)} | ${r.allocKbPerReq === null ? '–' : f(r.allocKbPerReq, 1)} | ${f(r.sandboxCpuUsPerReq)} | ${f(r.peakRssMb)} | ${r.non2xx + r.errors} |`,
  );
  const fr = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(3));
  const md = `## Latest run (\`npm run bench${quick ? ' -- --quick' : ''}\`, ${json.date})

Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}, Node ${machine.node}.
Load average before / after: ${machine.loadAverageBefore.join(' ')} / ${machine.loadAverageAfter.join(' ')}
(the machine is shared; the sandbox, the measured server and autocannon share its ${machine.cores} cores).
${CONNECTIONS.sandbox} connections against the sandbox, ${CONNECTIONS.stub} against the stub gateway${latencyMs ? ` (holding each answer ${latencyMs} ms)` : ''}; per server ${plan.warmup.checkout} / ${plan.warmup.keyin} / ${plan.warmup.payout} warm-up requests (checkout / key-in / payout), then ${plan.rounds} interleaved rounds, each after ${plan.rewarm} untimed requests (at most the round's size) (${plan.checkout} checkout,
${plan.keyin} key-in, ${plan.payout} payout requests in all); every checkout request carries its own fresh auth return.
req/s = all measured requests / all load time; p50 and p99 = median over the rounds. "of which GC": the
server's main-thread GC pauses (perf_hooks); allocated KB/req: an untimed pass of up to 1000 more requests
per server under V8's sampling heap profiler, collected objects included (noise does not move it).

| server | requests | req/s | p50 ms | p99 ms | server CPU us/req | of which GC | allocated KB/req | sandbox CPU us/req | peak RSS MB | failed |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Ratios (throughput): checkout b/a = **${fr(ratios.checkoutBoverA)}**, b/c = **${fr(ratios.checkoutBoverC)}**, s/a = ${fr(ratios.checkoutSoverA)},
key-in ours/floor = ${fr(ratios.keyinOursOverFloor)}, payout ours/floor = ${fr(ratios.payoutOursOverFloor)}.
Median of the per-round ratios: checkout b/a = ${fr(pairedRatios.checkoutBoverA)}, b/c = ${fr(pairedRatios.checkoutBoverC)}, s/a = ${fr(pairedRatios.checkoutSoverA)},
key-in ${fr(pairedRatios.keyinOursOverFloor)}, payout ${fr(pairedRatios.payoutOursOverFloor)}${base ? `, b/b0 = ${fr(pairedRatios.checkoutBoverB0)}` : ''}.
Against the stub gateway: checkout b/a = **${fr(stubRatios.checkoutBoverA)}**, b/c = **${fr(stubRatios.checkoutBoverC)}**; median of the per-round ratios:
b/a = ${fr(stubPairedRatios.checkoutBoverA)}, b/c = ${fr(stubPairedRatios.checkoutBoverC)}${base ? `, b/b0 = ${fr(stubPairedRatios.checkoutBoverB0)}` : ''}.

${
  results.some((r) => r.storeCallsPerReq !== null)
    ? `Ledger store calls per approval (and the Redis commands they sent): ${results
        .filter((r) => r.storeCallsPerReq !== null)
        .map(
          (r) =>
            `${r.id} ${f(r.storeCallsPerReq!, 2)}${r.redisCommandsPerReq === null ? '' : ` (${f(r.redisCommandsPerReq, 2)} commands)`}`,
        )
        .join(', ')}.\n\n`
    : ''
}What the gateway side recorded:
${results.map((r) => `- ${r.name}: ${r.verified}`).join('\n')}

Pipeline micro-benchmark (\`npx tsx bench/pipeline.ts\`, best of trials, ${pipeline.iterations} iterations):
**${f(pipeline.usPerApproval, 1)} us per approval**.
${Object.entries(pipeline.stages)
  .map(([k, v]) => `- ${k}: ${f(v, 2)} us`)
  .join('\n')}
`;
  if (!record) {
    console.error(md);
  } else {
    // The generated part goes between the markers; the written analysis around it stays.
    const file = new URL('./RESULTS.md', import.meta.url);
    const START = '<!-- results:start -->';
    const END = '<!-- results:end -->';
    const old = existsSync(file) ? readFileSync(file, 'utf8') : `# Approval-path benchmark\n\n${START}\n${END}\n`;
    const a = old.indexOf(START);
    const b = old.indexOf(END);
    const next =
      a !== -1 && b > a ? `${old.slice(0, a + START.length)}\n${md}${old.slice(b)}` : `${old}\n${START}\n${md}${END}\n`;
    writeFileSync(file, next);
  }
  const ab = base ? ` b/b0=${fr(pairedRatios.checkoutBoverB0)} stub b/b0=${fr(stubPairedRatios.checkoutBoverB0)}` : '';
  console.log(
    `checkout b/a=${fr(ratios.checkoutBoverA)} b/c=${fr(ratios.checkoutBoverC)} stub b/a=${fr(stubRatios.checkoutBoverA)} stub b/c=${fr(stubRatios.checkoutBoverC)}${ab} pipeline=${f(pipeline.usPerApproval, 1)}us`,
  );
}

await main();
