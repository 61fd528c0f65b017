/**
 * Runs the express-nicepay CLI as a script sees it: spawned from source (node --import tsx),
 * or in this process through main() with a {@link memoryIo}.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { CliIo } from '../../src/cli/output.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = ['--import', 'tsx', resolve(ROOT, 'src/cli/index.ts')];

/** How one CLI run ended: its exit code and everything it printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with `args` in the repository root, with this process's environment minus
 * every NICEPAY_* variable and DEBUG, plus `env`; `stdin` is written to its standard input,
 * which is then closed (empty when not given).
 */
export function runCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliRun> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('NICEPAY_') && k !== 'DEBUG'),
  );
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A CliIo in memory for main(): what the command printed, the environment and standard input it gets. */
export function memoryIo(
  env: NodeJS.ProcessEnv = {},
  stdin = '',
): CliIo & { stdout: string; stderr: string; stdinReads: number } {
  const r = {
    stdout: '',
    stderr: '',
    stdinReads: 0,
    env,
    out: (t: string) => {
      r.stdout += t;
    },
    err: (t: string) => {
      r.stderr += t;
    },
    readStdin: () => {
      r.stdinReads += 1;
      return Promise.resolve(stdin);
    },
  };
  return r;
}
