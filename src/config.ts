import type { IdempotencyStore } from './store/types.js';
import { memoryStore } from './store/memory-store.js';
import type { Logger } from './logger.js';
import { debugLogger } from './debug-logger.js';
import { redactingLogger } from './redact.js';
import type { Timeouts } from './transport.js';
import { NicepayConfigError } from './errors/index.js';
import type { PayoutOptions } from './payout/types.js';

/** Options of {@link createNicepay}. */
export interface NicepayOptions {
  /** Merchant id: 10 characters, issued by the gateway (e.g. `nicepay00m`). */
  mid: string;
  /** Merchant key. Never appears in a log line, an error message or `toJSON()`. */
  merchantKey: string;
  /**
   * Payment web API host for interfaces A and B, e.g. `https://webapi.nicepay.co.kr` or the
   * sandbox's `url`. Its scheme is the only one outbound calls may use.
   */
  baseUrl: string | URL;
  /** Data API host for interfaces C and D, e.g. `https://data.nicepay.co.kr`. @default baseUrl */
  dataUrl?: string | URL;
  /**
   * Hosts (`host` or `host:port`) the auth return's NextAppURL and NetCancelURL may point at.
   * @default [host of baseUrl]
   * @example ['dc1-api.nicepay.co.kr', 'dc2-api.nicepay.co.kr']
   */
  trustedHosts?: readonly string[];
  /** Outbound timeouts. @default { connectMs: 5000, responseMs: 30000 } */
  timeouts?: Timeouts;
  /** Largest gateway response accepted, in bytes. @default 65536 */
  maxResponseBytes?: number;
  /** Idempotency store shared by all instances of a shop. @default memoryStore() */
  store?: IdempotencyStore;
  /**
   * pino-compatible logger; every object it receives is redacted first (keys, card data).
   * @default silent, or one line per event on stderr when `DEBUG` matches `express-nicepay`
   */
  logger?: Logger;
  /** Clock for timestamps; all gateway time is KST whatever `TZ` says. @default () => new Date() */
  clock?: () => Date;
  /** Payout client (interface C) options. @default { scheduleChecks: true, businessDays: Monday-Friday } */
  payout?: PayoutOptions;
  /** The payment window's CharSet: what paymentWindow() asks for and the return is decoded by. @default 'euc-kr' */
  charset?: 'euc-kr' | 'utf-8';
}

/** The normalised configuration every module reads; nothing downstream checks for undefined. */
export interface ResolvedConfig {
  mid: string;
  merchantKey: string;
  baseUrl: URL;
  dataUrl: URL;
  trustedHosts: ReadonlySet<string>;
  connectMs: number;
  responseMs: number;
  maxResponseBytes: number;
  store: IdempotencyStore;
  /** True when the store was created here (memoryStore default), so close() may close it. */
  ownsStore: boolean;
  logger: Logger;
  clock: () => Date;
  /** The payment window's charset (option `charset`), shared by paymentWindow and checkoutReturn. */
  windowCharset: 'euc-kr' | 'utf-8';
}

/** Validates and fills the options once, at creation (body-parser's normalizeOptions habit). */
export function resolveConfig(options: NicepayOptions): ResolvedConfig {
  if (typeof options !== 'object' || options === null) throw new NicepayConfigError('options', 'an object');
  const { mid, merchantKey } = options;
  if (typeof mid !== 'string' || !/^[A-Za-z0-9]{10}$/.test(mid)) throw new NicepayConfigError('mid', 'a 10-character merchant id');
  if (typeof merchantKey !== 'string' || merchantKey.length < 16) {
    throw new NicepayConfigError('merchantKey', 'the merchant key string (at least 16 characters)');
  }
  const baseUrl = parseBase(options.baseUrl, 'baseUrl');
  const dataUrl = options.dataUrl === undefined ? baseUrl : parseBase(options.dataUrl, 'dataUrl');
  const hosts = options.trustedHosts ?? [baseUrl.host];
  if (!Array.isArray(hosts) || hosts.length === 0 || !hosts.every((h) => typeof h === 'string' && h.length > 0)) {
    throw new NicepayConfigError('trustedHosts', 'a non-empty array of host names');
  }
  const timeouts = options.timeouts ?? {};
  const connectMs = positive(timeouts.connectMs ?? 5_000, 'timeouts.connectMs');
  const responseMs = positive(timeouts.responseMs ?? 30_000, 'timeouts.responseMs');
  const maxResponseBytes = positive(options.maxResponseBytes ?? 65_536, 'maxResponseBytes');
  const logger = options.logger ?? debugLogger();
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    if (typeof logger[level] !== 'function') throw new NicepayConfigError('logger', `a pino-compatible logger with a ${level}() method`);
  }
  const clock = options.clock ?? (() => new Date());
  if (typeof clock !== 'function') throw new NicepayConfigError('clock', 'a function returning a Date');
  const store = options.store ?? memoryStore();
  if (typeof store.acquire !== 'function' || typeof store.complete !== 'function' || typeof store.release !== 'function') {
    throw new NicepayConfigError('store', 'an IdempotencyStore (acquire, complete, release)');
  }
  return {
    mid,
    merchantKey,
    baseUrl,
    dataUrl,
    trustedHosts: new Set(hosts.map((h) => normalizeHost(h, baseUrl.protocol))),
    connectMs,
    responseMs,
    maxResponseBytes,
    store,
    ownsStore: options.store === undefined,
    logger: redactingLogger(logger),
    clock,
    windowCharset: windowCharset(options.charset),
  };
}

/** The `charset` option: the window's encoding, 'euc-kr' unless 'utf-8' is asked for. */
function windowCharset(value: unknown): 'euc-kr' | 'utf-8' {
  if (value === undefined) return 'euc-kr';
  if (value !== 'euc-kr' && value !== 'utf-8') throw new NicepayConfigError('charset', "'euc-kr' or 'utf-8'");
  return value;
}

/** `host` or `host:port` as URL.host spells it for the scheme (a default port dropped). */
function normalizeHost(host: string, protocol: string): string {
  try {
    const url = new URL(`${protocol}//${host}`);
    if (url.pathname !== '/' || url.username || url.password || url.search) throw new Error('not a bare host');
    return url.host;
  } catch {
    throw new NicepayConfigError('trustedHosts', `host names such as 'dc1-api.nicepay.co.kr' (got an entry that is not a bare host)`);
  }
}

function parseBase(value: string | URL | undefined, name: string): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new NicepayConfigError(name, 'an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new NicepayConfigError(name, 'an http: or https: URL');
  if (url.username || url.password) throw new NicepayConfigError(name, 'a URL without credentials');
  return url;
}

function positive(n: unknown, name: string): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new NicepayConfigError(name, 'a positive number');
  return n;
}
