import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { waitForOutput } from './process-ready.js';

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Runs `start` again (up to 5 times) while it fails because its port was taken: a port found
 * free may be taken by another process before redis-server binds it (other suites start servers
 * too), and each try looks for a free port of its own.
 */
export async function onFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= 5 || !/Address already in use/.test(String(err))) throw err;
    }
  }
}

async function pong(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      got += chunk.toString('latin1');
      if (got.includes('\r\n')) {
        socket.destroy();
        resolve(got.startsWith('+PONG'));
      }
    });
  });
}

/** A throwaway redis-server on a free loopback port (no persistence). */
export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Spawns redis-server; fails (not skips) when it is not installed, as CI must run these.
 * `extra` arguments go after the defaults (e.g. `--replicaof 127.0.0.1 <port>`), and `ready` is
 * the log line to wait for (a replica: `sync: Finished with success`).
 */
export async function startRedisServer(
  extra: string[] = [],
  ready = 'Ready to accept connections',
): Promise<RedisServer> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error) throw new Error('redis-server is not on PATH (Debian/Ubuntu: apt-get install -y redis-server)');
  return onFreePorts(() => startOnce(extra, ready));
}

async function startOnce(extra: string[], ready: string): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // redis-server says when it accepts connections: wait for that line, not poll on a timer.
  const log = await waitForOutput(child, ready, {
    notReady: 'redis-server did not get ready',
    exited: 'redis-server exited early',
  });
  if (!(await pong(port))) throw new Error(`redis-server did not answer PING:\n${log()}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      await exit;
    },
  };
}
