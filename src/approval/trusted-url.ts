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

/** Each field's trusted endpoints by their exact text: what a genuine auth return carries. */
export type GatewayEndpoints = Readonly<Record<GatewayUrlField, ReadonlyMap<string, URL>>>;

/**
 * The endpoints a return may name: for each trusted host, the configured scheme, the host and
 * the field's path (`https://dc1-api.nicepay.co.kr/webapi/pay_process.jsp`; gateway facts:
 * "exactly one of"). Built once per route.
 */
export function gatewayEndpoints(config: ResolvedConfig): GatewayEndpoints {
  const of = (field: GatewayUrlField): Map<string, URL> => {
    const texts = [...config.trustedHosts].map((host) => `${config.baseUrl.protocol}//${host}${GATEWAY_PATHS[field]}`);
    return new Map(texts.map((text) => [text, new URL(text)]));
  };
  return { NextAppURL: of('NextAppURL'), NetCancelURL: of('NetCancelURL') };
}

/**
 * Accepts a URL the buyer's browser handed us (NextAppURL, NetCancelURL) only when it is
 * exactly one of the documented endpoints ({@link gatewayEndpoints}), character for
 * character: no other scheme, host, path, port spelling, query, fragment or credentials.
 * Official samples POST to whatever the form says: a forged return could aim the merchant
 * server at any URL (SSRF), or at a path that 404s on the gateway host, which makes the
 * outcome unknown and net-cancels a genuine payment with the buyer's own token. The URL itself is not echoed (it is attacker text), only why it was refused.
 * Throws NICEPAY_UNTRUSTED_URL before any request is made.
 */
export function trustedGatewayUrl(
  value: string,
  field: GatewayUrlField,
  config: ResolvedConfig,
  endpoints = gatewayEndpoints(config),
): URL {
  const url = endpoints[field].get(value);
  if (url === undefined) throw refuse(field, whyRefused(value, field, config));
  return url;
}

/** What is wrong with a URL that is not a trusted endpoint, in words that do not echo it. */
function whyRefused(value: string, field: GatewayUrlField, config: ResolvedConfig): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== config.baseUrl.protocol) return `must use ${config.baseUrl.protocol.slice(0, -1)}`;
  if (url.username || url.password) return 'must not carry credentials';
  if (!config.trustedHosts.has(url.host.toLowerCase()))
    return `points at a host that is not in trustedHosts (${[...config.trustedHosts].join(', ')}); no request was made (a genuine gateway host missing there belongs in the trustedHosts option)`;
  return `must be exactly ${config.baseUrl.protocol}//<trusted host>${GATEWAY_PATHS[field]}, with no query or fragment`;
}

function refuse(field: GatewayUrlField, what: string): NicepayRequestError {
  return new NicepayRequestError('NICEPAY_UNTRUSTED_URL', `${field} ${what}`, field);
}
