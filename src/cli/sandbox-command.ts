import { readFileSync, statSync } from 'node:fs';
import { createSandbox, TEST_MERCHANTS, type SandboxMerchant } from '../sandbox/index.js';
import type { CliValues, Command } from './command.js';
import { CliConfigError, EXIT, UsageError } from './exit-codes.js';

/** The environment variable holding the sandbox's merchants, `MID:KEY` separated by commas or newlines. */
export const SANDBOX_MERCHANTS_ENV = 'NICEPAY_SANDBOX_MERCHANTS';

/** Signals that stop the sandbox cleanly. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function port(value: unknown): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n > 65_535)
    throw new UsageError(`--port must be a port number 0-65535, got ${JSON.stringify(value)}`);
  return n;
}

/** One `MID:KEY` entry; `where` names its source in the error, never the key. */
function merchant(entry: string, where: string): SandboxMerchant {
  const m = /^([A-Za-z0-9]{10}):(.{16,})$/.exec(entry.trim());
  if (!m)
    throw new CliConfigError(
      `${where}: each merchant must be MID:KEY (a 10-character MID, a key of at least 16 characters)`,
    );
  return { mid: m[1]!, merchantKey: m[2]! };
}

/** The `MID:KEY` entries of a text: separated by commas or newlines, `#` starting a comment line. */
function entries(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * The merchants the sandbox accepts, from the environment ({@link SANDBOX_MERCHANTS_ENV})
 * and/or `--merchants-file`, never from the command line, where `ps` shows every argument to
 * every local user (docs/cli.md). `--merchant` is refused (exit 2) for that reason. A file
 * readable by other users is used, with a warning. Undefined when neither is given: the
 * published test merchants.
 */
export function sandboxMerchants(
  values: CliValues,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): SandboxMerchant[] | undefined {
  if (values['merchant'] !== undefined) {
    throw new UsageError(
      `--merchant is refused: a merchant key on the command line is visible in ps to every local user. Put MID:KEY in ${SANDBOX_MERCHANTS_ENV} or in a file named by --merchants-file`,
    );
  }
  const found: SandboxMerchant[] = [];
  const fromEnv = env[SANDBOX_MERCHANTS_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '')
    found.push(...entries(fromEnv).map((e) => merchant(e, SANDBOX_MERCHANTS_ENV)));
  const file = values['merchants-file'];
  if (typeof file === 'string') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
      // Owner-only is what a key file should be (chmod 600); others may read this one.
      if ((statSync(file).mode & 0o077) !== 0)
        warn(`sandbox: warning: ${file} is readable by other users; chmod 600 it\n`);
    } catch (err) {
      throw new CliConfigError(
        `--merchants-file ${JSON.stringify(file)} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const before = found.length;
    found.push(...entries(text).map((e) => merchant(e, `--merchants-file ${file}`)));
    if (found.length === before)
      throw new CliConfigError(`--merchants-file ${JSON.stringify(file)} names no merchant (one MID:KEY per line)`);
  }
  const mids = found.map((m) => m.mid);
  const twice = mids.find((mid, i) => mids.indexOf(mid) !== i);
  if (twice) throw new CliConfigError(`merchant ${twice} is given twice`);
  return found.length > 0 ? found : undefined;
}

function clock(value: unknown): (() => Date) | undefined {
  if (value === undefined) return undefined;
  const at = new Date(String(value));
  if (Number.isNaN(at.getTime()))
    throw new UsageError(
      `--clock must be an ISO 8601 time such as 2026-03-02T10:29:00+09:00, got ${JSON.stringify(value)}`,
    );
  return () => at;
}

/**
 * `sandbox`: runs the gateway simulator (interfaces A-D) on its own, so a shop written in
 * any language can test against it. Prints the URL as the first stdout line, runs until
 * SIGINT or SIGTERM, then closes and exits 0.
 */
export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'run the gateway simulator (payment window, approval, key-in, payout, recon)',
  help: `Usage: express-nicepay sandbox [--port N] [--host H] [--merchants-file PATH] [--clock ISO]

Runs the stateful gateway simulator until SIGINT (Ctrl-C) or SIGTERM. The first line on
stdout is its URL: use it as both the payment host (baseUrl) and the data host (dataUrl).
The payment window is at <url>/window. Stderr lists the test merchants with their published
test keys, and the process id to stop it with (npx runs it as a child: "kill $!" after
"npx ... &" stops npx, not the sandbox).

Options:
  --port N           port to listen on (default 0: a free port)
  --host H           address to bind (default 127.0.0.1)
  --merchants-file PATH
                     merchants to accept, one MID:KEY per line (# comments; chmod 600 it).
                     Default: the gateway's published test merchants nicepay00m and
                     nictest04m. Data host usrId is MID + "admin".
  --clock ISO        start the virtual clock here, e.g. 2026-03-02T10:29:00+09:00

Environment:
  ${SANDBOX_MERCHANTS_ENV}  merchants to accept, MID:KEY separated by commas or
                             newlines (added to --merchants-file's). Keys never go on the
                             command line, where ps shows them: --merchant is refused.`,
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    // Parsed only to be refused with a pointed message (sandboxMerchants).
    merchant: { type: 'string', multiple: true },
    'merchants-file': { type: 'string' },
    clock: { type: 'string' },
  },
  async run(values, io) {
    const listenPort = port(values['port']);
    const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
    const accepted = sandboxMerchants(values, io.env, (line) => io.err(line));
    const start = clock(values['clock']);
    const sandbox = createSandbox({ ...(accepted ? { merchants: accepted } : {}), ...(start ? { clock: start } : {}) });
    const { url } = await sandbox.listen(listenPort, host);
    io.out(`${url}\n`);
    // The built-in merchants' keys are the gateway's published test keys (gateway-facts.md):
    // a shop in another language needs them to sign. Keys given in the environment or a
    // file are the caller's own and are never printed.
    for (const m of accepted ?? TEST_MERCHANTS) {
      const key = accepted ? '' : ` key ${m.merchantKey} (published test key)`;
      io.err(`sandbox: merchant ${m.mid}${key}; data host usrId ${m.mid}admin\n`);
    }
    io.err(`sandbox: payment window ${url}/window; pid ${process.pid}: "kill ${process.pid}" or Ctrl-C stops it\n`);
    const signal = await new Promise<string>((resolve) => {
      for (const s of STOP_SIGNALS) process.once(s, () => resolve(s));
    });
    for (const s of STOP_SIGNALS) process.removeAllListeners(s);
    await sandbox.close();
    io.err(`sandbox: stopped (${signal})\n`);
    return EXIT.OK;
  },
};
