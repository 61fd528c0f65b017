/**
 * The transport's edge cases against real loopback servers: what reaches the server, an
 * answer split over many chunks, 1xx before the answer, non-2xx, the size limit, the overall
 * deadline against an answer that trickles in, a refused connection (never sent) and a
 * closed transport. Each failure must be a TransportError of the right kind.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createTransport, TransportError, type Transport, type TransportOptions } from '../src/transport.js';
import { rejectedWith } from './helpers/rejected.js';
import { withHeldTimers } from './helpers/fake-deadline.js';

type Handler = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void;

/** A loopback server that reads each request body, then hands it to `handler`. */
async function serve(handler: Handler): Promise<{ url: URL; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/webapi/pay_process.jsp`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const failure = (p: Promise<unknown>): Promise<TransportError> => rejectedWith(p, TransportError);

describe('transport', function () {
  this.timeout(10_000);
  const options: TransportOptions = { connectMs: 1_000, responseMs: 1_000, maxResponseBytes: 4_096 };
  let transport: Transport;
  let server: { url: URL; close: () => Promise<void> } | undefined;
  beforeEach(() => {
    transport = createTransport(options);
  });
  afterEach(async () => {
    await transport.close();
    await server?.close();
    server = undefined;
  });

  it('posts the body with its content type and returns the answer bytes as sent', async () => {
    let seen: { method?: string; path?: string; type?: string; length?: string; body?: string } = {};
    const answer = Buffer.from([0x7b, 0xc7, 0xd1, 0x7d]); // bytes are returned undecoded
    server = await serve((req, body, res) => {
      seen = {
        method: req.method,
        path: req.url,
        type: req.headers['content-type'],
        length: req.headers['content-length'],
        body: body.toString('latin1'),
      };
      res.end(answer);
    });
    const res = await transport.post(
      server.url,
      Buffer.from('TID=abc&Amt=1004'),
      'application/x-www-form-urlencoded; charset=euc-kr',
    );
    expect(seen).to.deep.equal({
      method: 'POST',
      path: '/webapi/pay_process.jsp',
      type: 'application/x-www-form-urlencoded; charset=euc-kr',
      length: '16',
      body: 'TID=abc&Amt=1004',
    });
    expect(res.statusCode).to.equal(200);
    expect(res.body.equals(answer)).to.equal(true);
  });

  it('joins an answer written in many chunks, after a 1xx informational response', async () => {
    server = await serve((_req, _body, res) => {
      res.writeEarlyHints({ link: '</x>; rel=preload' });
      res.writeHead(200, { 'content-type': 'text/html' });
      let i = 0;
      const next = (): void => {
        if (i === 10) {
          res.end();
          return;
        }
        res.write(`part${i++};`);
        setTimeout(next, 2);
      };
      next();
    });
    const res = await transport.post(server.url, 'x=1', 'application/x-www-form-urlencoded');
    expect(res.statusCode).to.equal(200);
    expect(res.body.toString()).to.equal(Array.from({ length: 10 }, (_, i) => `part${i};`).join(''));
  });

  it('a non-2xx answer is a status failure that says it was sent', async () => {
    server = await serve((_req, _body, res) => {
      res.writeHead(502);
      res.end('bad gateway');
    });
    const err = await failure(transport.post(server.url, 'x=1', 'text/plain'));
    expect(err).to.include({ kind: 'status', sent: true, statusCode: 502 });
  });

  it('an answer larger than maxResponseBytes is too-large', async () => {
    server = await serve((_req, _body, res) => res.end(Buffer.alloc(options.maxResponseBytes + 1, 0x61)));
    const err = await failure(transport.post(server.url, 'x=1', 'text/plain'));
    expect(err).to.include({ kind: 'too-large', sent: true });
  });

  it('an answer that trickles in past connect + response time is cut off by the deadline and aborted', async () => {
    // Each byte comes well inside undici's body timeout, so only the overall deadline can stop
    // it. The deadline is held and fired once the answer is dripping (no waiting for it).
    const slow = createTransport({ connectMs: 5_000, responseMs: 5_000, maxResponseBytes: 4_096 });
    let dripping!: () => void;
    const isDripping = new Promise<void>((r) => (dripping = r));
    let aborted!: () => void;
    const wasAborted = new Promise<void>((r) => (aborted = r));
    server = await serve((_req, _body, res) => {
      res.writeHead(200);
      let sent = 0;
      const drip = setInterval(() => {
        if (res.destroyed) return;
        res.write('.');
        if (++sent === 3) dripping();
      }, 20);
      res.on('close', () => {
        clearInterval(drip);
        aborted();
      });
    });
    try {
      const err = await withHeldTimers(async (timers) => {
        const call = failure(slow.post(server!.url, 'x=1', 'text/plain'));
        await isDripping;
        timers.jump(10_000);
        return call;
      });
      expect(err).to.include({ kind: 'timeout', sent: true });
      expect(err.message).to.include('(deadline)');
      // The connection was aborted, not left dripping: the server sees it close.
      await wasAborted;
    } finally {
      await slow.close();
    }
  });

  it('a refused connection is a connect failure that was never sent', async () => {
    server = await serve(() => undefined);
    const url = new URL(server.url);
    await server.close();
    server = undefined;
    const err = await failure(transport.post(url, 'x=1', 'text/plain'));
    expect(err).to.include({ kind: 'connect', sent: false });
    expect(err.message).to.include(`http://${url.host}/webapi/pay_process.jsp`);
  });

  it('a request undici refuses before writing it is a failure that was never sent', async () => {
    let calls = 0;
    server = await serve((_req, _body, res) => {
      calls++;
      res.end('ok');
    });
    const err = await failure(transport.post(server.url, 'x=1', 'text/plain\r\nx-injected: 1'));
    expect(err).to.include({ sent: false });
    expect(err.message).to.include('before it was sent');
    expect(calls).to.equal(0);
  });

  it('a socket reset after the request was sent is a reset that may have been acted on', async () => {
    server = await serve((req) => req.socket.destroy());
    const err = await failure(transport.post(server.url, 'x=1', 'text/plain'));
    expect(err).to.include({ kind: 'reset', sent: true });
  });

  it('after close() nothing is sent', async () => {
    let calls = 0;
    server = await serve((_req, _body, res) => {
      calls++;
      res.end('ok');
    });
    await transport.close();
    const err = await failure(transport.post(server.url, 'x=1', 'text/plain'));
    expect(err).to.include({ kind: 'closed', sent: false });
    expect(calls).to.equal(0);
  });
});
