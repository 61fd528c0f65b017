import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { SandboxHandler, SandboxModule, SandboxRequest, SandboxResponse, SandboxState } from './types.js';

/** Largest request body the sandbox reads. */
const MAX_BODY = 1024 * 1024;

/** The sandbox's HTTP server: routes by `METHOD /path`, applies delay and drop. */
export interface SandboxServer {
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** Builds the server over the modules' routes. */
export function createSandboxServer(modules: readonly SandboxModule[], state: SandboxState): SandboxServer {
  const routes = new Map<string, SandboxHandler>();
  for (const m of modules) {
    for (const [key, handler] of Object.entries(m.routes)) {
      if (routes.has(key)) throw new Error(`sandbox route ${key} is served twice (module ${m.name})`);
      routes.set(key, handler);
    }
  }
  const sockets = new Set<Socket>();
  /** Pending delays; close() wakes them so no handler is left hanging. */
  const timers = new Set<() => void>();
  const server: Server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: SandboxResponse;
    try {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      const handler = routes.get(`${req.method} ${url.pathname}`);
      const body = await readBody(req);
      state.tick();
      if (!handler) {
        answer = {
          status: 404,
          headers: { 'content-type': 'text/plain' },
          body: `sandbox: no route ${req.method} ${url.pathname}`,
        };
      } else {
        const request: SandboxRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          rawQuery: url.search.slice(1),
          headers: req.headers,
          body,
        };
        answer = await handler(request, state);
      }
    } catch (err) {
      answer = {
        status: 500,
        headers: { 'content-type': 'text/plain' },
        body: `sandbox error: ${(err as Error).message}`,
      };
    }
    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          timers.delete(wake);
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(wake, answer.delayMs);
        timers.add(wake);
      });
    }
    if (answer.drop) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    res.writeHead(answer.status, { 'content-type': 'text/html;charset=euc-kr', ...answer.headers });
    res.end(answer.body);
  }

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const { port: p } = server.address() as AddressInfo;
          resolve(`http://${host.includes(':') ? `[${host}]` : host}:${p}`);
        });
      });
    },
    close() {
      for (const wake of [...timers]) wake();
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
