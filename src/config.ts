import type { LedgerStore } from './store/types.js';
import type { Logger } from './logger.js';
import { debugLogger } from './debug-logger.js';
import { redactingLogger } from './redact.js';
import type { Timeouts } from './transport.js';
import { NicepayConfigError } from './errors/index.js';
import { type Charset, normalizeCharset } from './wire/charset.js';
import { MID_PATTERN } from './wire/keyin-fields.js';
import { isObject } from './util/is-object.js';
import { normalizeHost, parseBase } from './config/base-url.js';
import { positive } from './config/option-checks.js';
import { refuseUnknown } from './validation/known-keys.js';
import { knownKeys } from './validation/known-keys.js';
import { type PayoutOptions, type ResolvedPayoutOptions, resolvePayout } from './config/payout-options.js';
import { type ResolvedSettleOptions, type SettleOptions, resolveSettle } from './config/settle-options.js';
import { resolveStore } from './config/store-option.js';

export type { PayoutOptions, ResolvedPayoutOptions } from './config/payout-options.js';
export type { ResolvedSettleOptions, SettleOptions } from './config/settle-options.js';

/** Options of {@link createNicepay}. */
export interface NicepayOptions {
  /** Merchant id: 10 letters or digits ending in a lower-case `m`, issued by the gateway (e.g. `nicepay00m`). */
  mid: string;
  /** Merchant key. Never appears in a log line, an error message or `toJSON()`. */
  merchantKey: string;
  /**
   * Payment web API host for interfaces A and B, e.g. `https://webapi.nicepay.co.kr` or the
   * sandbox's `url`. Its scheme is the only one outbound calls may use.
   */
  baseUrl: string | URL;
  /**
   * Data API host for interfaces C and D, e.g. `https://data.nicepay.co.kr`.
   * @default `https://data.nicepay.co.kr` when baseUrl is a `nicepay.co.kr` host, else baseUrl
   */
  dataUrl?: string | URL;
  /**
   * Hosts (`host` or `host:port`) the auth return's NextAppURL and NetCancelURL may point at.
   * @default dc1-api and dc2-api.nicepay.co.kr (the production hosts) and baseUrl's host when
   * baseUrl is a `nicepay.co.kr` host; else [host of baseUrl] (the sandbox)
   * @example ['dc1-api.nicepay.co.kr', 'dc2-api.nicepay.co.kr']
   */
  trustedHosts?: readonly string[];
  /** Outbound timeouts. @default { connectMs: 5000, responseMs: 30000 } */
  timeouts?: Timeouts;
  /** Largest gateway response accepted, in bytes. @default 65536 */
  maxResponseBytes?: number;
  /**
   * Where the payment ledger lives, shared by every instance of the shop: `sqliteStore()` from
   * `express-nicepay/sqlite` for one machine, `redisStore()` from `express-nicepay/redis` for a
   * fleet. The default memoryStore forgets every record on a restart, so under
   * NODE_ENV=production it warns once (docs/stores.md). One passed in stays the shop's:
   * `close()` closes only the default it creates. @default memoryStore()
   */
  store?: LedgerStore;
  /**
   * Settlement of operations whose outcome was unknown or whose hook did not finish
   * (docs/reliability.md, "Settlement"); `false` runs no settler in this process (call
   * `settle()` yourself, or `express-nicepay settle` from cron). @default {}
   */
  settle?: SettleOptions | false;
  /**
   * pino-compatible logger; every object it receives is redacted first (keys, card data).
   * @default silent, or one line per event on stderr when `DEBUG` matches `express-nicepay`
   */
  logger?: Logger;
  /** Clock for timestamps; all gateway time is KST whatever `TZ` says. @default () => new Date() */
  clock?: () => Date;
  /** Payout client (interface C) options. @default { scheduleChecks: true, businessDays: Monday-Friday } */
  payout?: PayoutOptions;
  /**
   * The charset the payment window is opened with (its `CharSet`), and so the one the buyer's
   * browser posts the auth return in: browsers name no charset in that request, so the return
   * route decodes by this setting, and refuses a return that declares another one.
   * @default 'euc-kr'
   */
  charset?: Charset;
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
  store: LedgerStore;
  /** True when the store was created here (memoryStore default), so close() may close it. */
  ownsStore: boolean;
  settle: ResolvedSettleOptions;
  logger: Logger;
  clock: () => Date;
  /** The payment window's CharSet, which the auth return is decoded by (option `charset`). */
  windowCharset: Charset;
  payout: ResolvedPayoutOptions;
}

/** The hosts a genuine production return's NextAppURL and NetCancelURL name (gateway-facts). */
const PRODUCTION_APPROVAL_HOSTS = ['dc1-api.nicepay.co.kr', 'dc2-api.nicepay.co.kr'] as const;
/** The production data host: payout and reconciliation (gateway-facts). */
const PRODUCTION_DATA_URL = 'https://data.nicepay.co.kr';

/** Validates and fills the options once, at creation (body-parser's normalizeOptions habit). */
export function resolveConfig(options: NicepayOptions): ResolvedConfig {
  if (options === undefined) {
    throw new NicepayConfigError(
      'options',
      'createNicepay() needs an options object: createNicepay({ mid, merchantKey, baseUrl })',
    );
  }
  if (!isObject(options)) throw new NicepayConfigError('options', 'an object such as { mid, merchantKey, baseUrl }');
  refuseUnknown(options, NICEPAY_OPTION_NAMES, '');
  const { mid, merchantKey } = options;
  if (!isMid(mid))
    throw new NicepayConfigError('mid', "a 10-character merchant id ending in a lower-case 'm' (e.g. nicepay00m)");
  if (typeof merchantKey !== 'string' || merchantKey.length < 16) {
    throw new NicepayConfigError('merchantKey', 'the merchant key string (at least 16 characters)');
  }
  // A key read from a file or an environment variable often keeps its newline: every signature
  // would then fail, hinting at the wrong cause. Refused here, without quoting the key.
  if (merchantKey.trim() !== merchantKey) {
    throw new NicepayConfigError(
      'merchantKey',
      'the merchant key exactly as issued, without leading or trailing white space (a newline from a secrets file?)',
    );
  }
  const baseUrl = parseBase(options.baseUrl, 'baseUrl');
  // On NICEPAY's own hosts the defaults are the documented production hosts (gateway-facts):
  // the approval and net cancel of a genuine return name dc1-api or dc2-api, whatever host the
  // shop's other calls go to, and payout and reconciliation are on the data host.
  const production = baseUrl.hostname.endsWith('.nicepay.co.kr');
  const dataUrl =
    options.dataUrl !== undefined
      ? parseBase(options.dataUrl, 'dataUrl')
      : production
        ? new URL(PRODUCTION_DATA_URL)
        : baseUrl;
  const hosts = options.trustedHosts ?? (production ? [...PRODUCTION_APPROVAL_HOSTS, baseUrl.host] : [baseUrl.host]);
  if (!Array.isArray(hosts) || hosts.length === 0 || !hosts.every((h) => typeof h === 'string' && h.length > 0)) {
    throw new NicepayConfigError('trustedHosts', 'a non-empty array of host names');
  }
  const timeouts = options.timeouts ?? {};
  if (!isObject(timeouts)) throw new NicepayConfigError('timeouts', 'an object { connectMs, responseMs }');
  refuseUnknown(timeouts, TIMEOUT_OPTION_NAMES, 'timeouts.');
  const connectMs = positive(timeouts.connectMs ?? 5_000, 'timeouts.connectMs');
  const responseMs = positive(timeouts.responseMs ?? 30_000, 'timeouts.responseMs');
  const maxResponseBytes = positive(options.maxResponseBytes ?? 65_536, 'maxResponseBytes');
  const logger = options.logger ?? debugLogger();
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    if (typeof logger[level] !== 'function')
      throw new NicepayConfigError('logger', `a pino-compatible logger with a ${level}() method`);
  }
  const clock = options.clock ?? (() => new Date());
  if (typeof clock !== 'function') throw new NicepayConfigError('clock', 'a function returning a Date');
  const store = resolveStore(options.store);
  const windowCharset = normalizeCharset(options.charset ?? 'euc-kr');
  if (!windowCharset) throw new NicepayConfigError('charset', "'euc-kr' or 'utf-8'");
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
    settle: resolveSettle(options.settle, mid),
    logger: redactingLogger(logger),
    clock,
    windowCharset,
    payout: resolvePayout(options.payout),
  };
}

/** Every option {@link NicepayOptions} knows; anything else is a typo that JavaScript would not catch. */
const NICEPAY_OPTION_NAMES = knownKeys<NicepayOptions>({
  mid: true,
  merchantKey: true,
  baseUrl: true,
  dataUrl: true,
  trustedHosts: true,
  timeouts: true,
  maxResponseBytes: true,
  store: true,
  logger: true,
  clock: true,
  payout: true,
  charset: true,
  settle: true,
});
const TIMEOUT_OPTION_NAMES = knownKeys<Timeouts>({ connectMs: true, responseMs: true });

/** The spec's merchant-id shape: 10 letters or digits, the last a lower-case `m` (e.g. nicepay00m). */
function isMid(mid: unknown): mid is string {
  return typeof mid === 'string' && MID_PATTERN.test(mid);
}
