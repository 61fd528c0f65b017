/**
 * The URL of a gateway endpoint the shop calls on its own initiative (key-in, cancel, status):
 * the endpoint's absolute path appended to `baseUrl`, keeping any path prefix baseUrl has (a
 * shop that reaches the gateway through a proxy path keeps it).
 */
export function gatewayEndpoint(baseUrl: URL, path: string): URL {
  return new URL(baseUrl.pathname.replace(/\/+$/, '') + path, baseUrl);
}
