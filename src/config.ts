import type { LedgerStore } from './store/types.js';
import { memoryStore } from './store/memory-store.js';
import type { Logger } from './logger.js';
import { debugLogger } from './debug-logger.js';
import { redactingLogger } from './redact.js';
import type { Timeouts } from './transport.js';
import { NicepayConfigError } from './errors/index.js';
import { type BusinessDays, weekdaysOnly } from './business-days.js';
import { type Charset, normalizeCharset } from './wire/charset.js';
import { isObject } from './util/is-object.js';

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

/** Options of the in-process settler (`createNicepay({ settle })`). */
export interface SettleOptions {
  /** How often the settler runs a pass, in ms (its timer never keeps the process alive). @default 60000 */
  intervalMs?: number;
  /** How long a record may stay open before it needs attention (error log, diagnostics). @default 86400000 (24 h) */
  attentionAfterMs?: number;
  /** Most records one pass looks at. @default 100 */
  batch?: number;
  /**
   * The merchant admin login reconciliation is asked with (interface D), which settles a cash
   * receipt whose answer was lost. Without it such a receipt stays unsettled and needs attention.
   */
  reconciliation?: { usrId: string; idCl?: '2' | '3' | '4'; searchID?: string };
}

/** {@link SettleOptions} with the defaults filled in; `intervalMs` false when no settler runs. */
export interface ResolvedSettleOptions {
  intervalMs: number | false;
  attentionAfterMs: number;
  batch: number;
  reconciliation: { usrId: string; idCl: '2' | '3' | '4'; searchID: string } | undefined;
}

/** Options of the payout client (`createNicepay({ payout })`). */
export interface PayoutOptions {
  /**
   * Check the schedule rules (past date, business day, 10:30 cut-off, 23:00-01:00
   * registration blackout, results from 16:00) before sending, so a call that the gateway
   * would refuse fails fast with a NicepayScheduleError naming the rule. Turn off to let
   * the gateway decide (it checks the same rules; see docs/payout.md).
   * @default true
   */
  scheduleChecks?: boolean;
  /**
   * Says whether a KST date (YYYYMMDD) is a business day. Plug in the Korean bank-holiday
   * calendar here; the library ships none.
   * @default Monday to Friday are business days
   */
  businessDays?: (yyyymmdd: string) => boolean;
}

/** {@link PayoutOptions} with the defaults filled in. */
export interface ResolvedPayoutOptions {
  scheduleChecks: boolean;
  businessDays: BusinessDays;
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

/** Validates and fills the options once, at creation (body-parser's normalizeOptions habit). */
export function resolveConfig(options: NicepayOptions): ResolvedConfig {
  if (options === undefined) {
    throw new NicepayConfigError('options', 'createNicepay() needs an options object: createNicepay({ mid, merchantKey, baseUrl })');
  }
  if (!isObject(options)) throw new NicepayConfigError('options', 'an object such as { mid, merchantKey, baseUrl }');
  refuseUnknown(options, NICEPAY_OPTION_NAMES, '');
  const { mid, merchantKey } = options;
  if (!isMid(mid)) throw new NicepayConfigError('mid', "a 10-character merchant id ending in a lower-case 'm' (e.g. nicepay00m)");
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
  if (!isObject(timeouts)) throw new NicepayConfigError('timeouts', 'an object { connectMs, responseMs }');
  refuseUnknown(timeouts, TIMEOUT_OPTION_NAMES, 'timeouts.');
  const connectMs = positive(timeouts.connectMs ?? 5_000, 'timeouts.connectMs');
  const responseMs = positive(timeouts.responseMs ?? 30_000, 'timeouts.responseMs');
  const maxResponseBytes = positive(options.maxResponseBytes ?? 65_536, 'maxResponseBytes');
  const logger = options.logger ?? debugLogger();
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    if (typeof logger[level] !== 'function') throw new NicepayConfigError('logger', `a pino-compatible logger with a ${level}() method`);
  }
  const clock = options.clock ?? (() => new Date());
  if (typeof clock !== 'function') throw new NicepayConfigError('clock', 'a function returning a Date');
  if (options.store === undefined) warnMemoryStore();
  const store = options.store ?? memoryStore();
  const missing = STORE_METHODS.find((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function');
  if (!isObject(store) || missing) throw new NicepayConfigError('store', `a ledger store (memoryStore, sqliteStore or redisStore; ${missing ?? 'an object'} is missing)`);
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

/** What a ledger store must have (src/store/types.ts). */
const STORE_METHODS = ['acquire', 'write', 'release', 'remove', 'extend', 'get', 'due', 'open'] as const;

let warnedMemoryStore = false;

/**
 * Warns once per process, as a Node warning (filterable like any other), when a production
 * shop runs on the default memoryStore: a restart forgets every once-key and every record
 * settlement has not closed. express-session warns the same way about its MemoryStore.
 */
function warnMemoryStore(): void {
  if (warnedMemoryStore || process.env.NODE_ENV !== 'production') return;
  warnedMemoryStore = true;
  process.emitWarning(
    'express-nicepay is running on the default memoryStore under NODE_ENV=production: a restart forgets every payment it has not settled and every once-key (a Moid resubmitted after a restart is charged again). Pass store: sqliteStore() from express-nicepay/sqlite (one machine) or redisStore() from express-nicepay/redis (several instances).',
    { code: 'NICEPAY_MEMORY_STORE', detail: 'docs/stores.md' },
  );
}

function resolveSettle(options: SettleOptions | false | undefined, mid: string): ResolvedSettleOptions {
  if (options === false) return { intervalMs: false, attentionAfterMs: 86_400_000, batch: 100, reconciliation: undefined };
  if (options !== undefined && !isObject(options)) throw new NicepayConfigError('settle', 'an object, or false for no settler in this process');
  if (options !== undefined) refuseUnknown(options, SETTLE_OPTION_NAMES, 'settle.');
  const given: SettleOptions = options ?? {};
  const intervalMs = positive(given.intervalMs ?? 60_000, 'settle.intervalMs');
  const attentionAfterMs = positive(given.attentionAfterMs ?? 86_400_000, 'settle.attentionAfterMs');
  const batch: unknown = given.batch ?? 100;
  if (typeof batch !== 'number' || !Number.isSafeInteger(batch) || batch <= 0) throw new NicepayConfigError('settle.batch', 'a positive integer');
  const login = given.reconciliation;
  if (login === undefined) return { intervalMs, attentionAfterMs, batch, reconciliation: undefined };
  if (typeof login !== 'object' || login === null || typeof login.usrId !== 'string' || login.usrId === '') throw new NicepayConfigError('settle.reconciliation', 'an object { usrId, idCl?, searchID? } with the merchant admin login id');
  const idCl = login.idCl ?? '2';
  if (idCl !== '2' && idCl !== '3' && idCl !== '4') throw new NicepayConfigError('settle.reconciliation.idCl', "'2' (MID), '3' (GID) or '4' (AID)");
  if (login.searchID !== undefined && (typeof login.searchID !== 'string' || login.searchID === '')) throw new NicepayConfigError('settle.reconciliation.searchID', 'the MID, GID or AID to query (default: this MID)');
  return { intervalMs, attentionAfterMs, batch, reconciliation: { usrId: login.usrId, idCl, searchID: login.searchID ?? mid } };
}

function resolvePayout(options: PayoutOptions | undefined): ResolvedPayoutOptions {
  if (options !== undefined && !isObject(options)) throw new NicepayConfigError('payout', 'an object');
  if (options !== undefined) refuseUnknown(options, PAYOUT_OPTION_NAMES, 'payout.');
  const scheduleChecks = options?.scheduleChecks ?? true;
  if (typeof scheduleChecks !== 'boolean') throw new NicepayConfigError('payout.scheduleChecks', 'a boolean');
  const businessDays: unknown = options?.businessDays ?? weekdaysOnly;
  if (typeof businessDays !== 'function') throw new NicepayConfigError('payout.businessDays', 'a function (yyyymmdd: string) => boolean');
  return { scheduleChecks, businessDays: businessDays as BusinessDays };
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
  if (url.search || url.hash) throw new NicepayConfigError(name, `a URL without a query or fragment (e.g. '${url.origin}')`);
  // Each interface's path (/webapi/..., /om/api, /recon/api) is appended to this URL. The
  // gateway's own hosts serve nothing under a prefix, and a path naming an interface doubles
  // it: either way every call would 404. A prefix of a shop's own proxy is kept.
  if ((url.pathname !== '/' && isGatewayHost(url.hostname)) || INTERFACE_PATH.test(url.pathname)) {
    throw new NicepayConfigError(name, `the host without a path: the interface paths are appended to it (e.g. '${url.origin}', got '${url.origin}${url.pathname}')`);
  }
  // On another host a path is a proxy's prefix only when it says so the way URLs do, with a
  // closing '/': '/nicepay/' is a folder the interface paths go under, '/window' (the sandbox's
  // payment window) or '/nicepay' names a page, and every call under it would answer 404.
  if (url.pathname !== '/' && !url.pathname.endsWith('/')) {
    throw new NicepayConfigError(name, `the host alone ('${url.origin}'), or a proxy's path prefix ending in '/' ('${url.origin}${url.pathname}/'); got '${url.origin}${url.pathname}', which names a page: every call under it would answer 404`);
  }
  if (url.protocol === 'http:' && isGatewayHost(url.hostname)) {
    throw new NicepayConfigError(name, `https: for the gateway's own host ${url.hostname} (plain http: would send the merchant's signed requests unencrypted)`);
  }
  return url;
}

/**
 * A path that names a gateway interface (or its folder), which the client appends itself, or
 * the sandbox's payment window (a page, not an API host).
 */
const INTERFACE_PATH = /\/(?:webapi|om\/api|recon\/api|window)(?:\/|$)|\.jsp$/i;

/** The gateway's production and test hosts (*.nicepay.co.kr), which only ever speak HTTPS. */
function isGatewayHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'nicepay.co.kr' || host.endsWith('.nicepay.co.kr');
}

/** Every option {@link NicepayOptions} knows; anything else is a typo that JavaScript would not catch. */
const NICEPAY_OPTION_NAMES: readonly (keyof NicepayOptions)[] = [
  'mid', 'merchantKey', 'baseUrl', 'dataUrl', 'trustedHosts', 'timeouts', 'maxResponseBytes',
  'store', 'logger', 'clock', 'payout', 'charset', 'settle',
];
const SETTLE_OPTION_NAMES: readonly (keyof SettleOptions)[] = ['intervalMs', 'attentionAfterMs', 'batch', 'reconciliation'];
const TIMEOUT_OPTION_NAMES: readonly (keyof Timeouts)[] = ['connectMs', 'responseMs'];
const PAYOUT_OPTION_NAMES: readonly (keyof PayoutOptions)[] = ['scheduleChecks', 'businessDays'];

/**
 * Refuses an option name the type does not declare (`timeout: 5` instead of `timeouts`), which
 * TypeScript catches but JavaScript would silently ignore; suggests the closest known name.
 */
function refuseUnknown(given: object, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(given)) {
    if (known.includes(key)) continue;
    const near = closest(key, known);
    const hint = near === undefined ? '' : ` Did you mean '${prefix}${near}'?`;
    throw new NicepayConfigError(`${prefix}${key}`, `not an option of createNicepay() (known: ${known.map((k) => prefix + k).join(', ')}).${hint}`);
  }
}

/** The known name nearest to `key` by edit distance (case-insensitive), if it is plausibly a typo. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** Levenshtein distance, for the did-you-mean hint of a misspelt option. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

function positive(n: unknown, name: string): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new NicepayConfigError(name, 'a positive number');
  return n;
}

/**
 * The spec's merchant-id shape: 10 letters or digits, the last a lower-case `m`
 * (gateway-interface.md, "TID format"). Same rule as src/wire MID_PATTERN, kept here so
 * config stays free of wire imports.
 */
function isMid(mid: unknown): mid is string {
  return typeof mid === 'string' && /^[A-Za-z0-9]{9}m$/.test(mid);
}
