/** Runs the express-nicepay CLI as a script sees it: spawned from source (node --import tsx). */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

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
 * every NICEPAY_* variable and DEBUG, plus `env`.
 */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NICEPAY_') && k !== 'DEBUG'));
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
