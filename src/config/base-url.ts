import { NicepayConfigError } from '../errors/index.js';

/** `host` or `host:port` as URL.host spells it for the scheme (a default port dropped). */
export function normalizeHost(host: string, protocol: string): string {
  try {
    const url = new URL(`${protocol}//${host}`);
    if (url.pathname !== '/' || url.username || url.password || url.search) throw new Error('not a bare host');
    return url.host;
  } catch {
    throw new NicepayConfigError(
      'trustedHosts',
      `host names such as 'dc1-api.nicepay.co.kr' (got an entry that is not a bare host)`,
    );
  }
}

/** `baseUrl` or `dataUrl` as a URL the interface paths are appended to, or a config error saying why not. */
export function parseBase(value: string | URL | undefined, name: string): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new NicepayConfigError(name, 'an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new NicepayConfigError(name, 'an http: or https: URL');
  if (url.username || url.password) throw new NicepayConfigError(name, 'a URL without credentials');
  if (url.search || url.hash)
    throw new NicepayConfigError(name, `a URL without a query or fragment (e.g. '${url.origin}')`);
  // Each interface's path (/webapi/..., /om/api, /recon/api) is appended to this URL. The
  // gateway's own hosts serve nothing under a prefix, and a path naming an interface doubles
  // it: either way every call would 404. A prefix of a shop's own proxy is kept.
  if ((url.pathname !== '/' && isGatewayHost(url.hostname)) || INTERFACE_PATH.test(url.pathname)) {
    throw new NicepayConfigError(
      name,
      `the host without a path: the interface paths are appended to it (e.g. '${url.origin}', got '${url.origin}${url.pathname}')`,
    );
  }
  // On another host a path is a proxy's prefix only when it says so the way URLs do, with a
  // closing '/': '/nicepay/' is a folder the interface paths go under, '/window' (the sandbox's
  // payment window) or '/nicepay' names a page, and every call under it would answer 404.
  if (url.pathname !== '/' && !url.pathname.endsWith('/')) {
    throw new NicepayConfigError(
      name,
      `the host alone ('${url.origin}'), or a proxy's path prefix ending in '/' ('${url.origin}${url.pathname}/'); got '${url.origin}${url.pathname}', which names a page: every call under it would answer 404`,
    );
  }
  if (url.protocol === 'http:' && isGatewayHost(url.hostname)) {
    throw new NicepayConfigError(
      name,
      `https: for the gateway's own host ${url.hostname} (plain http: would send the merchant's signed requests unencrypted)`,
    );
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
