import { NicepayRequestError } from '../errors/index.js';
import type { ResolvedConfig } from '../config.js';

/**
 * Parses a URL the buyer's browser handed us (NextAppURL, NetCancelURL) and accepts it only
 * on the configured scheme and a trusted host. Official samples POST to whatever the form
 * says: a forged return could aim the merchant server at any URL (SSRF, gateway-facts).
 * Credentials in the URL are refused too. The URL itself is not echoed (it is attacker text).
 */
export function trustedGatewayUrl(value: string, field: GatewayUrlField, config: ResolvedConfig): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} is not an absolute URL`, 400, field);
  }
  if (url.protocol !== config.baseUrl.protocol) {
    throw new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} must use ${config.baseUrl.protocol.slice(0, -1)}`, 400, field);
  }
  if (url.username || url.password) {
    throw new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} must not carry credentials`, 400, field);
  }
  if (!config.trustedHosts.has(url.host.toLowerCase())) {
    throw new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} points at a host that is not in trustedHosts; no request was made`, 400, field);
  }
  // The host alone is not enough: a forged return could swap the two URLs, or aim the signed
  // approval at any other endpoint of the gateway host (gateway-facts: the exact paths).
  if (!url.pathname.endsWith(EXPECTED_PATH[field]) || url.hash) {
    throw new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} must point at ${EXPECTED_PATH[field]} on the gateway host`, 400, field);
  }
  return url;
}

/** The two gateway URLs an auth return carries. */
export type GatewayUrlField = 'NextAppURL' | 'NetCancelURL';

/** Most accepted values a checker remembers per field; a real gateway sends one or two. */
const REMEMBERED = 8;

/**
 * {@link trustedGatewayUrl} for one configuration, remembering the values it accepted: every
 * return of a shop names the same few gateway URLs, and parsing one costs a few microseconds
 * per approval. Only accepted values in normal form without a query are remembered, at most
 * {@link REMEMBERED} per field, so a stream of forged returns can neither grow it nor get past
 * it. The URL objects returned are shared between requests: callers only read them.
 */
export function trustedUrlChecker(config: ResolvedConfig): (value: string, field: GatewayUrlField) => URL {
  const accepted: Record<GatewayUrlField, Map<string, URL>> = { NextAppURL: new Map(), NetCancelURL: new Map() };
  return (value, field) => {
    const known = accepted[field];
    let url = known.get(value);
    if (url === undefined) {
      url = trustedGatewayUrl(value, field, config);
      // Only the gateway's own form of its endpoints (no query, already normalised): a buyer
      // replaying a return with query variants cannot fill the slots the real URLs need.
      if (known.size < REMEMBERED && url.search === '' && url.href === value) known.set(value, url);
    }
    return url;
  };
}

/** The endpoint each URL of the auth return must name. */
const EXPECTED_PATH = { NextAppURL: '/pay_process.jsp', NetCancelURL: '/cancel_process.jsp' } as const;
