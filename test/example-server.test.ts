import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';

/*
 * `npm start` as an operator meets it (issue 22): the example shop binds to 127.0.0.1 unless
 * HOST says otherwise, warns when it does, and prints a one-time back-office password.
 */
const ROOT = resolve(import.meta.dirname, '..');

/** This machine's first non-loopback IPv4 address (the test needs one to prove the point). */
function lanAddress(): string {
  const found = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
  if (!found) throw new Error('this test needs a non-loopback IPv4 interface');
  return found.address;
}

interface Started { child: ChildProcess; port: number; stdout: string; stderr: string }

function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'example-app/server.ts')], {
    cwd: ROOT,
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NICEPAY_|ADMIN_|HOST$|PORT$)/.test(k))), PORT: '0', SHOP_DB: ':memory:', ...env },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  return new Promise((resolvePromise, reject) => {
    child.on('exit', (code) => reject(new Error(`shop exited ${code}: ${out.stderr}`)));
    const check = (): void => {
      const m = /listening on [^\s:]+:(\d+)\)/.exec(out.stdout);
      if (m && out.stdout.includes('\n', m.index)) resolvePromise({ child, port: Number(m[1]), get stdout() { return out.stdout; }, get stderr() { return out.stderr; } });
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
});
