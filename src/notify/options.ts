import { isIP } from 'node:net';
import { NicepayConfigError } from '../errors/index.js';
import { refuseUnknown } from '../validation/known-keys.js';
import { NOTIFICATIONS_OPTION_NAMES, type NotificationsOptions } from './types.js';

/** The gateway's documented notice sources (lifecycle-facts §3). */
export const GATEWAY_NOTICE_IPS: readonly string[] = ['121.133.126.10', '121.133.126.11', '211.33.136.39'];

/** {@link NotificationsOptions} validated once, every default filled. */
export interface ResolvedNotificationsOptions {
  expectedAmount: NotificationsOptions['expectedAmount'];
  onDeposit: NotificationsOptions['onDeposit'];
  onCancel: NotificationsOptions['onCancel'];
  allowedIps: ReadonlySet<string>;
  /** How many proxies of the shop to trust (0: the socket address). */
  proxyHops: number;
  limit: number;
  hookTimeoutMs: number;
}

/** An IPv4 address mapped into IPv6 (`::ffff:1.2.3.4`) as its IPv4 form; others as they are, lower case. */
export function normalizeIp(address: string): string {
  const a = address.trim().toLowerCase();
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

/** Validates the options at creation; an error names the option. */
export function resolveNotificationsOptions(options: NotificationsOptions): ResolvedNotificationsOptions {
  if (typeof options !== 'object' || options === null)
    throw new NicepayConfigError('notifications options', 'an object');
  refuseUnknown(options, NOTIFICATIONS_OPTION_NAMES, 'notifications.', 'notifications()');
  if (typeof options.expectedAmount !== 'function')
    throw new NicepayConfigError(
      'notifications.expectedAmount',
      'a function (moid) => amount | { amount, tid } | undefined',
    );
  if (typeof options.onDeposit !== 'function')
    throw new NicepayConfigError('notifications.onDeposit', 'a function recording the deposit');
  if (options.onCancel !== undefined && typeof options.onCancel !== 'function')
    throw new NicepayConfigError('notifications.onCancel', 'a function');
  const ips = options.allowedIps ?? GATEWAY_NOTICE_IPS;
  if (
    !Array.isArray(ips) ||
    ips.length === 0 ||
    !ips.every((ip) => typeof ip === 'string' && isIP(normalizeIp(ip)) !== 0)
  ) {
    throw new NicepayConfigError('notifications.allowedIps', 'a non-empty array of IP addresses');
  }
  const trust = options.trustProxy ?? false;
  let proxyHops: number;
  if (typeof trust === 'boolean') proxyHops = trust ? 1 : 0;
  else if (Number.isSafeInteger(trust) && trust >= 0 && trust <= 10) proxyHops = trust;
  else throw new NicepayConfigError('notifications.trustProxy', 'true, false or the number of proxies (0-10)');
  const limit = options.limit ?? 16_384;
  if (!Number.isSafeInteger(limit) || limit < 1024)
    throw new NicepayConfigError('notifications.limit', 'a whole number of bytes, 1024 or more');
  const hookTimeoutMs = options.hookTimeoutMs ?? 10_000;
  if (typeof hookTimeoutMs !== 'number' || !(hookTimeoutMs > 0))
    throw new NicepayConfigError('notifications.hookTimeoutMs', 'a positive number');
  return {
    expectedAmount: options.expectedAmount,
    onDeposit: options.onDeposit,
    onCancel: options.onCancel,
    allowedIps: new Set(ips.map(normalizeIp)),
    proxyHops,
    limit,
    hookTimeoutMs,
  };
}

/**
 * The address a notice came from: the socket's, or with `proxyHops` trusted proxies the
 * address the outermost trusted one saw (counting from the right of X-Forwarded-For, which a
 * client can write anything into on the left).
 */
export function sourceAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  proxyHops: number,
): string | undefined {
  if (proxyHops === 0) return socketAddress === undefined ? undefined : normalizeIp(socketAddress);
  const hops = (forwardedFor ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const at = hops.length - proxyHops;
  return at >= 0 ? normalizeIp(hops[at]!) : undefined;
}
