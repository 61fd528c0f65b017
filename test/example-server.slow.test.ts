import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';

/*
 * `npm start` as an operator meets it: the example shop binds to 127.0.0.1 unless
 * HOST says otherwise, warns when it does, and prints a one-time back-office password.
 */
const ROOT = resolve(import.meta.dirname, '..');

/** This machine's first non-loopback IPv4 address (the test needs one to prove the point). */
function lanAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal);
  if (!found) throw new Error('this test needs a non-loopback IPv4 interface');
  return found.address;
}

interface Started {
  child: ChildProcess;
  port: number;
  stdout: string;
  stderr: string;
}

function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'example-app/server.ts')], {
    cwd: ROOT,
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NICEPAY_|ADMIN_|HOST$|PORT$)/.test(k))),
      PORT: '0',
      SHOP_DB: ':memory:',
      ...env,
    },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  return new Promise((resolvePromise, reject) => {
    child.on('exit', (code) => reject(new Error(`shop exited ${code}: ${out.stderr}`)));
    const check = (): void => {
      const m = /listening on [^\s:]+:(\d+)\)/.exec(out.stdout);
      if (m && out.stdout.includes('\n', m.index))
        resolvePromise({
          child,
          port: Number(m[1]),
          get stdout() {
            return out.stdout;
          },
          get stderr() {
            return out.stderr;
          },
        });
      else setImmediate(check);
    };
    child.stdout!.on('data', check);
  });
}

/** The HTTP status of GET / at host:port, or the connection error's code. */
function probe(host: string, port: number): Promise<number | string> {
  return new Promise((resolvePromise) => {
    const req = request({ host, port, path: '/', timeout: 5000 }, (res) => {
      res.resume();
      resolvePromise(res.statusCode!);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolvePromise(err.code ?? err.message));
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.end();
  });
}

/** Runs the shop until it exits by itself (a start-up failure); its exit code and output. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'example-app/server.ts')], {
    cwd: ROOT,
    env: {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([k]) => !/^(NICEPAY_|ADMIN_|HOST$|PORT$|SANDBOX_PORT$)/.test(k)),
      ),
      SHOP_DB: ':memory:',
      ...env,
    },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  return new Promise((resolvePromise) => child.on('exit', (code) => resolvePromise({ code, ...out })));
}

/** A port some other process holds for the duration of `fn`. */
async function withBusyPort<T>(fn: (port: number) => Promise<T>): Promise<T> {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  try {
    return await fn((holder.address() as AddressInfo).port);
  } finally {
    await new Promise<void>((r) => holder.close(() => r()));
  }
}

async function stop(s: Started): Promise<number | null> {
  s.child.removeAllListeners('exit');
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  s.child.kill('SIGTERM');
  return exited;
}

describe('example-app: npm start (server.ts)', function () {
  this.timeout(60_000);

  it('answers on 127.0.0.1 only by default and prints a one-time admin password', async () => {
    const s = await start({});
    try {
      expect(s.stdout).to.include(`listening on 127.0.0.1:${s.port}`);
      expect(s.stdout).to.match(/one-time password [A-Za-z0-9_-]{16}/);
      expect(await probe('127.0.0.1', s.port)).to.equal(200);
      expect(await probe(lanAddress(), s.port)).to.equal('ECONNREFUSED');
      expect(s.stderr).to.not.include('WARNING');
    } finally {
      expect(await stop(s)).to.equal(0);
    }
  });

  it('binds another address only when HOST says so, with a warning; ADMIN_PASSWORD replaces the generated one', async () => {
    const s = await start({ HOST: '0.0.0.0', ADMIN_PASSWORD: 'a-long-admin-password' });
    try {
      expect(await probe(lanAddress(), s.port)).to.equal(200);
      expect(s.stderr).to.include('WARNING: HOST=0.0.0.0 exposes the shop and its back office');
      expect(s.stdout).to.not.include('one-time password').and.not.include('a-long-admin-password');
    } finally {
      await stop(s);
    }
  });

  it('a busy PORT or SANDBOX_PORT is one line naming the variable and what to do, exit 1, no stack trace', async () => {
    await withBusyPort(async (busy) => {
      for (const [env, variable] of [
        [{ PORT: String(busy) }, 'PORT'],
        [{ PORT: '0', SANDBOX_PORT: String(busy) }, 'SANDBOX_PORT'],
      ] as const) {
        const r = await runToExit(env);
        expect(r.code, variable).to.equal(1);
        expect(r.stderr.trim(), variable).to.equal(
          `express-nicepay example shop: ${variable === 'PORT' ? `port ${busy} is in use; set PORT to another one` : `SANDBOX_PORT ${busy} is in use; set SANDBOX_PORT to another one, or leave it unset for a free port`}`,
        );
        expect(r.stderr).to.not.match(/EADDRINUSE|\n\s+at /);
      }
    });
  });

  it('TRUST_PROXY other than a number of proxies is one line saying what it takes, exit 1, before anything listens', async () => {
    const r = await runToExit({ PORT: '0', TRUST_PROXY: 'loopback' });
    expect(r.code).to.equal(1);
    expect(r.stderr.trim()).to.equal(
      'express-nicepay example shop: TRUST_PROXY must be the number of proxies in front of the shop (1 behind one TLS proxy), got "loopback"',
    );
    expect(r.stdout).to.equal('');
  });
});
