import { createSandbox, TEST_MERCHANTS, type SandboxMerchant } from '../sandbox/index.js';
import type { Command } from './command.js';
import { EXIT, UsageError } from './exit-codes.js';

/** Signals that stop the sandbox cleanly. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function port(value: unknown): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n > 65_535) throw new UsageError(`--port must be a port number 0-65535, got ${JSON.stringify(value)}`);
  return n;
}

function merchants(values: unknown): SandboxMerchant[] | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  return values.map((v) => {
    const m = /^([A-Za-z0-9]{10}):(.{16,})$/.exec(String(v));
    if (!m) throw new UsageError('--merchant must be MID:KEY (a 10-character MID, a key of at least 16 characters)');
    return { mid: m[1]!, merchantKey: m[2]! };
  });
}

function clock(value: unknown): (() => Date) | undefined {
  if (value === undefined) return undefined;
  const at = new Date(String(value));
  if (Number.isNaN(at.getTime())) throw new UsageError(`--clock must be an ISO 8601 time such as 2026-03-02T10:29:00+09:00, got ${JSON.stringify(value)}`);
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
  help: `Usage: express-nicepay sandbox [--port N] [--host H] [--merchant MID:KEY]... [--clock ISO]

Runs the stateful gateway simulator until SIGINT (Ctrl-C) or SIGTERM. The first line on
stdout is its URL: use it as both the payment host (baseUrl) and the data host (dataUrl).
The payment window is at <url>/window. Stderr lists the test merchants with their published
test keys, and the process id to stop it with (npx runs it as a child: "kill $!" after
"npx ... &" stops npx, not the sandbox).

Options:
  --port N           port to listen on (default 0: a free port)
  --host H           address to bind (default 127.0.0.1)
  --merchant MID:KEY a merchant to accept (repeatable; default the gateway's published test
                     merchants nicepay00m and nictest04m). Data host usrId is MID + "admin".
  --clock ISO        start the virtual clock here, e.g. 2026-03-02T10:29:00+09:00`,
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    merchant: { type: 'string', multiple: true },
    clock: { type: 'string' },
  },
  async run(values, io) {
    const listenPort = port(values['port']);
    const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
    const accepted = merchants(values['merchant']);
    const start = clock(values['clock']);
    const sandbox = createSandbox({ ...(accepted ? { merchants: accepted } : {}), ...(start ? { clock: start } : {}) });
    const { url } = await sandbox.listen(listenPort, host);
    io.out(`${url}\n`);
    // The built-in merchants' keys are the gateway's published test keys (gateway-facts.md):
    // a shop in another language needs them to sign. Keys given with --merchant are the
    // caller's own and are never printed.
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
