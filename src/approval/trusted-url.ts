import { NicepayRequestError } from '../errors/index.js';
import type { ResolvedConfig } from '../config.js';

/**
 * The two gateway endpoints of interface A, exactly as the gateway names them
 * (spec/gateway-interface.md: approval `POST /webapi/pay_process.jsp`, net cancel and cancel
 * `POST /webapi/cancel_process.jsp`).
 */
export const GATEWAY_PATHS = {
  NextAppURL: '/webapi/pay_process.jsp',
  NetCancelURL: '/webapi/cancel_process.jsp',
} as const;

/** The two gateway URLs an auth return carries. */
export type GatewayUrlField = keyof typeof GATEWAY_PATHS;

/**
 * Parses a URL the buyer's browser handed us (NextAppURL, NetCancelURL) and accepts it only
 * when it is exactly the documented endpoint: the configured scheme, a trusted host, the path
 * {@link GATEWAY_PATHS} names for the field, and no query, fragment or credentials. Official
 * samples POST to whatever the form says: a forged return could aim the merchant server at any
 * URL (SSRF), or at a path that 404s on the gateway host, which makes the outcome unknown and
 * net-cancels a genuine payment with the buyer's own token (issue 18 item 1). The URL itself is
 * not echoed (it is attacker text). Throws NICEPAY_UNTRUSTED_URL before any request is made.
 */
export function trustedGatewayUrl(value: string, field: GatewayUrlField, config: ResolvedConfig): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse(field, 'is not an absolute URL');
  }
  if (url.protocol !== config.baseUrl.protocol) throw refuse(field, `must use ${config.baseUrl.protocol.slice(0, -1)}`);
  if (url.username || url.password) throw refuse(field, 'must not carry credentials');
  if (!config.trustedHosts.has(url.host.toLowerCase())) {
    throw refuse(field, 'points at a host that is not in trustedHosts; no request was made');
  }
  // Checked on the text, not on url.search/url.hash: an empty query ("...jsp?") parses to an
  // empty search but would still be sent.
  if (url.pathname !== GATEWAY_PATHS[field] || value.includes('?') || value.includes('#')) {
    throw refuse(field, `must be exactly ${GATEWAY_PATHS[field]} on the gateway host, with no query or fragment`);
  }
  return url;
}

function refuse(field: GatewayUrlField, what: string): NicepayRequestError {
  return new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} ${what}`, 400, field);
}
