/**
 * What bench:instructions and bench:threads share: one shop server (bench/instructions-server.mjs,
 * the floor or checkoutReturn) started as a plain child process against an in-process sandbox,
 * fed real auth returns by 16 concurrent connections from the parent.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { createSandbox } from '../src/sandbox/index.js';
import { kstTimestamp14 } from '../src/wire/kst.js';
import { benchApprovalForm } from './approval-form.js';
import { BENCH_AMOUNT, BENCH_KEY, BENCH_MID } from './ipc.js';

type Sandbox = ReturnType<typeof createSandbox>;
type AuthReturn = Awaited<ReturnType<Sandbox['authenticate']>>;

/** The server script; run it with `node` (or under valgrind, before `node`). */
export const SHOP_SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'instructions-server.mjs');

/** Builds the library in another tree (`--base`), as `npm run bench` does, so its dist/ is current. */
export function buildTree(dir: string): void {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: dir, stdio: 'inherit' });
}

/** A running shop server and the auth returns meant for it. */
export interface StandaloneShop {
  child: ChildProcess;
  port: number;
  /** Sends the next auth returns until `upTo` of them have been sent in all; each must approve. */
  drive(upTo: number): Promise<void>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

/**
 * Books `n` auth returns in the sandbox (for the floor, also the approval forms it sends, signed
 * ahead), then starts `command` with `args` (ending in {@link SHOP_SCRIPT}) as the `kind` server
 * loading the library from `libRoot`/dist. Resolves once it listens.
 */
export async function startShop(
  kind: 'floor' | 'ours',
  libRoot: string,
  sandbox: Sandbox,
  sandboxUrl: string,
  n: number,
  tag: string,
  command: string,
  args: string[],
  stderr: 'pipe' | 'inherit' = 'inherit',
): Promise<StandaloneShop> {
  const returns: AuthReturn[] = [];
  for (let i = 0; i < n; i++) {
    returns.push(
      await sandbox.authenticate({
        moid: `${tag}-${i}`,
        amount: BENCH_AMOUNT,
        method: 'CARD',
        charset: 'euc-kr',
        goodsName: '벤치 상품',
        buyerName: '홍길동',
      }),
    );
  }
  const floorFile = join(os.tmpdir(), `express-nicepay-shop-${process.pid}-${tag}.json`);
  if (kind === 'floor') {
    const ediDate = kstTimestamp14(new Date());
    const bodies = returns.map(({ fields: f }) =>
      benchApprovalForm(f.TxTid!, f.AuthToken!, f.Amt!, ediDate).toString('latin1'),
    );
    writeFileSync(floorFile, JSON.stringify({ url: returns[0]!.fields.NextAppURL, bodies }));
  }
  const child = spawn(command, args, {
    env: {
      ...process.env,
      KIND: kind,
      ROOT: libRoot,
      FLOOR_FILE: floorFile,
      SANDBOX_URL: sandboxUrl,
      MID: BENCH_MID,
      KEY: BENCH_KEY,
      AMOUNT: String(BENCH_AMOUNT),
    },
    stdio: ['ignore', 'pipe', stderr],
  });
  let errText = '';
  child.stderr?.on('data', (d: Buffer) => (errText += d));
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        const m = /listening (\d+)/.exec(String(d));
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (code) =>
        reject(new Error(`${kind} server exited (${code})${errText ? `:\n${errText.slice(-2000)}` : ''}`)),
      );
    });
  } catch (err) {
    rmSync(floorFile, { force: true });
    throw err;
  }
  const agent = new Agent();
  let next = 0;
  return {
    child,
    port,
    async drive(upTo) {
      const worker = async (): Promise<void> => {
        while (next < Math.min(upTo, returns.length)) {
          const r = returns[next++]!;
          const res = await request(`http://127.0.0.1:${port}/return`, {
            method: 'POST',
            body: r.body,
            headers: { 'content-type': r.contentType },
            dispatcher: agent,
          });
          const text = await res.body.text();
          if (text !== 'approved') throw new Error(`${kind}: answered ${res.statusCode} ${text}`);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    },
    async stop() {
      await agent.close();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.on('exit', resolve));
        child.kill('SIGTERM');
        // The server exits on SIGTERM; valgrind may take a while to write its counts.
        const insist = setTimeout(() => child.kill('SIGKILL'), 60_000);
        await exited;
        clearTimeout(insist);
      }
      rmSync(floorFile, { force: true });
    },
  };
}
