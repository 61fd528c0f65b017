import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it reached the raw server: the exact bytes, never re-encoded. */
export interface CapturedRequest {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

/** A loopback HTTP server that records every request and answers with `reply`. */
export interface RawGateway {
  url: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a plain node:http server on 127.0.0.1 that stands in for the gateway in wire tests:
 * it keeps the request bytes as sent (so a test compares them with a literal built from the
 * spec's text, not with the sandbox's code) and answers with whatever `reply` returns.
 */
export async function startRawGateway(
  reply: (req: CapturedRequest) => { body: Buffer | string; contentType?: string },
): Promise<RawGateway> {
  const requests: CapturedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const captured = {
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      };
      requests.push(captured);
      const out = reply(captured);
      res.writeHead(200, { 'content-type': out.contentType ?? 'text/html;charset=euc-kr' });
      res.end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
