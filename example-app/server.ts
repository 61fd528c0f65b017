/**
 * `npm start`: the example shop on PORT (default 3000). Without NICEPAY_BASE_URL it starts
 * the gateway sandbox in-process and pays against it; with it, it talks to that gateway.
 *
 *   PORT                  shop port (default 3000)
 *   HOST                  address to bind (default 127.0.0.1: only this machine; another
 *                         address exposes the shop, back office included, to the network)
 *   ADMIN_USER, ADMIN_PASSWORD  back-office login (default user admin; without a password a
 *                         one-time one is generated and printed at start-up)
 *   SESSION_SECRET        signs the back-office session cookie (default: random per start)
 *   TRUST_PROXY           how many proxies of the shop's own stand in front of it (1 behind one
 *                         TLS proxy): the session cookie gets Secure, the login limit counts
 *                         clients, and deposit notices are checked by the gateway's address
 *   SHOP_URL              public origin for ReturnURL (default: from the request's Host)
 *   SHOP_DB               SQLite file (default: ':memory:' with the embedded sandbox, whose books
 *                         live in memory too; example-app/data/shop.db with NICEPAY_BASE_URL)
 *   SANDBOX_PORT          embedded sandbox port (default: any free port)
 *   NICEPAY_MID, NICEPAY_MERCHANT_KEY   merchant (default: the published test merchant nicepay00m)
 *   NICEPAY_BASE_URL      approval host; when set, no sandbox starts
 *   NICEPAY_DATA_URL      data host (payout / reconciliation; default NICEPAY_BASE_URL)
 *   NICEPAY_WINDOW_URL    payment window host (default NICEPAY_BASE_URL)
 *   NICEPAY_TRUSTED_HOSTS comma list of hosts NextAppURL / NetCancelURL may name
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { pino } from 'pino';
import { createShop, type ShopOptions } from './app.js';

const env = process.env;

function fail(message: string): never {
  console.error(`express-nicepay example shop: ${message}`);
  process.exit(1);
}

function portFrom(name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    fail(`${name} must be a port number, got ${JSON.stringify(raw)}`);
  return port;
}

/** TRUST_PROXY: how many proxies of the shop's own stand in front of it. */
function proxiesFrom(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 10)
    fail(
      `TRUST_PROXY must be the number of proxies in front of the shop (1 behind one TLS proxy), got ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}

const port = portFrom('PORT', 3000);
const proxies = env.TRUST_PROXY ? proxiesFrom(env.TRUST_PROXY) : undefined;
const host = env.HOST || '127.0.0.1';
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
// The shop's server listens first: the embedded sandbox needs the shop's address to post its
// payment notices to (/pay/notify); the app is attached once it exists.
let sandbox: Sandbox | undefined;
const server = createServer();
server.on('error', (err: NodeJS.ErrnoException) => {
  void sandbox?.close();
  fail(err.code === 'EADDRINUSE' ? `port ${port} is in use; set PORT to another one` : err.message);
});
await new Promise<void>((resolve) => server.listen(port, host, resolve));
const { port: actual, address } = server.address() as AddressInfo;
const bound = address.includes(':') ? `[${address}]` : address;
const loopbackUrl = `http://${address === '0.0.0.0' || address === '::' ? '127.0.0.1' : bound}:${actual}`;

let gateway: Pick<ShopOptions, 'mid' | 'merchantKey' | 'baseUrl' | 'dataUrl' | 'windowUrl' | 'trustedHosts'>;
let gatewayLabel: string;

if (env.NICEPAY_BASE_URL) {
  if (!env.NICEPAY_MID || !env.NICEPAY_MERCHANT_KEY)
    fail('NICEPAY_BASE_URL needs NICEPAY_MID and NICEPAY_MERCHANT_KEY');
  const trusted = env.NICEPAY_TRUSTED_HOSTS?.split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  gateway = {
    mid: env.NICEPAY_MID,
    merchantKey: env.NICEPAY_MERCHANT_KEY,
    baseUrl: env.NICEPAY_BASE_URL,
    ...(env.NICEPAY_DATA_URL ? { dataUrl: env.NICEPAY_DATA_URL } : {}),
    ...(env.NICEPAY_WINDOW_URL ? { windowUrl: env.NICEPAY_WINDOW_URL } : {}),
    ...(trusted?.length ? { trustedHosts: trusted } : {}),
  };
  gatewayLabel = env.NICEPAY_BASE_URL;
} else {
  // Your own merchant in the sandbox if both are given, else the published test merchant.
  // Its deposit notices go to this shop's /pay/notify, as the merchant admin would configure.
  const own = env.NICEPAY_MID && env.NICEPAY_MERCHANT_KEY;
  const merchant = {
    ...(own ? { mid: env.NICEPAY_MID!, merchantKey: env.NICEPAY_MERCHANT_KEY! } : TEST_MERCHANTS[0]!),
    notificationUrl: `${loopbackUrl}/pay/notify`,
  };
  sandbox = createSandbox({ merchants: [merchant, ...TEST_MERCHANTS.filter((m) => m.mid !== merchant.mid)] });
  const sandboxPort = portFrom('SANDBOX_PORT', 0);
  let url: string;
  try {
    ({ url } = await sandbox.listen(sandboxPort));
  } catch (err) {
    // Said like a busy PORT: which variable, and what to do (unset, a free port is taken).
    const code = (err as NodeJS.ErrnoException).code;
    fail(
      code === 'EADDRINUSE'
        ? `SANDBOX_PORT ${sandboxPort} is in use; set SANDBOX_PORT to another one, or leave it unset for a free port`
        : `the embedded sandbox cannot listen on SANDBOX_PORT ${sandboxPort}: ${(err as Error).message}`,
    );
  }
  gateway = { mid: merchant.mid, merchantKey: merchant.merchantKey, baseUrl: url };
  gatewayLabel = `embedded sandbox at ${url}`;
}

let shop: ReturnType<typeof createShop>;
try {
  shop = createShop({
    ...gateway,
    // pino, as a real shop would: the library logs tid, moid, step and durationMs (never the
    // merchant key or card data), one line per gateway operation at info.
    logger: pino({ level: env.LOG_LEVEL ?? 'info', redact: ['merchantKey', '*.merchantKey'] }),
    ...(env.SHOP_URL ? { publicUrl: env.SHOP_URL } : {}),
    // The embedded sandbox keeps its books in memory: the shop keeps its records there too,
    // unless SHOP_DB says otherwise, so a restart never leaves orders the gateway never saw.
    ...(env.SHOP_DB ? { dbFile: env.SHOP_DB } : sandbox ? { dbFile: ':memory:' } : {}),
    admin: {
      ...(env.ADMIN_USER ? { user: env.ADMIN_USER } : {}),
      ...(env.ADMIN_PASSWORD ? { password: env.ADMIN_PASSWORD } : {}),
      ...(env.SESSION_SECRET ? { sessionSecret: env.SESSION_SECRET } : {}),
    },
    ...(sandbox ? { sandbox } : {}),
    ...(proxies !== undefined ? { trustProxy: proxies } : {}),
  });
} catch (err) {
  await sandbox?.close();
  fail((err as Error).message);
}

server.on('request', shop.app);
{
  const shopUrl = env.SHOP_URL ?? `http://${bound}:${actual}`;
  if (!LOOPBACK.has(host)) {
    console.warn(
      `express-nicepay example shop: WARNING: HOST=${host} exposes the shop and its back office to the network; serve it over HTTPS and set ADMIN_PASSWORD`,
    );
  }
  // One write, so a script reading the first line also sees the password line with it.
  // The generated password is printed once, on the terminal of whoever started the shop.
  console.log(
    [
      `express-nicepay example shop: ${shopUrl} (gateway: ${gatewayLabel}; listening on ${bound}:${actual})`,
      ...(sandbox
        ? [
            env.SHOP_DB && env.SHOP_DB !== ':memory:'
              ? `express-nicepay example shop: SHOP_DB keeps the shop's records across restarts, but the embedded sandbox forgets its books: after a restart it knows none of those payments`
              : `express-nicepay example shop: records kept in memory, like the embedded sandbox's books (a restart starts both afresh)`,
          ]
        : []),
      ...(shop.admin.generated
        ? [
            `express-nicepay example shop: back office ${shopUrl}/admin  user ${shop.admin.user}  one-time password ${shop.admin.password}  (set ADMIN_PASSWORD to choose one)`,
          ]
        : []),
    ].join('\n'),
  );
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  // A stuck connection must not keep the process alive forever.
  setTimeout(() => process.exit(1), 10_000).unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  await shop.close(); // waits for approvals in flight, then closes the client and SQLite
  await sandbox?.close();
  console.log(`express-nicepay example shop: stopped (${signal})`);
  process.exit(0);
}
process.on('SIGINT', (s) => void shutdown(s));
process.on('SIGTERM', (s) => void shutdown(s));
