import { createRequire } from 'node:module';
import { isNicepayError } from '../index.js';
import { type Command, parseCommandArgs } from './command.js';
import { CliConfigError, EXIT, type ExitCode, UsageError } from './exit-codes.js';
import type { CliIo } from './output.js';
import { payoutBalance, payoutResults } from './payout-commands.js';
import { reconCashReceipts } from './recon-commands.js';
import { sandboxCommand } from './sandbox-command.js';
import { cancelCommand, statusCommand } from './lifecycle-commands.js';
import { billingCharge, billingRemove, cashReceiptIssue } from './billing-commands.js';
import { settleCommand, unsettledCommand } from './settle-commands.js';

/** Every subcommand, in the order --help lists them. */
export const COMMANDS: readonly Command[] = [sandboxCommand, payoutBalance, payoutResults, reconCashReceipts, cancelCommand, statusCommand, billingCharge, billingRemove, cashReceiptIssue, settleCommand, unsettledCommand];

const TOP_HELP = `Usage: express-nicepay <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(21)}${c.summary}`).join('\n')}

Run "express-nicepay <command> --help" for a command's options,
"express-nicepay --version" for the version.

Exit codes: 0 ok, 1 gateway refused or unreachable, 2 usage error,
            3 configuration (environment) error, 4 outcome unknown,
            5 payments still open (settle, unsettled), 6 some need attention.
`;

/** The package's version (package.json sits two levels up from src/cli and dist/cli alike). */
export function cliVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

/** The usage of a command group such as `payout`: its subcommands. */
function groupUsage(group: string): string | undefined {
  const known = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  if (known.length === 0) return undefined;
  return `Usage: express-nicepay ${group} <command>\n\nCommands:\n${known.map((c) => `  ${c.name.padEnd(21)}${c.summary}`).join('\n')}\n`;
}

/** Finds the command its leading words name; the rest are its arguments. */
function select(argv: readonly string[]): { command: Command | undefined; rest: string[]; group: string[] } {
  for (const c of COMMANDS) {
    const words = c.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { command: c, rest: argv.slice(words.length), group: words };
  }
  const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `));
  return { command: undefined, rest: [], group: group.length > 0 ? [argv[0]!] : [] };
}

/** The exit code an error maps to (docs/cli.md). */
export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof UsageError || (err as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS')) return EXIT.USAGE;
  if (err instanceof CliConfigError) return EXIT.CONFIG;
  if (isNicepayError(err)) {
    if (err.code === 'NICEPAY_CONFIG_INVALID') return EXIT.CONFIG;
    if (err.code === 'NICEPAY_FIELD_INVALID') return EXIT.USAGE;
    if ((err as { outcomeUnknown?: boolean }).outcomeUnknown) return EXIT.OUTCOME_UNKNOWN;
  }
  return EXIT.GATEWAY;
}

function describe(err: unknown): string {
  if (isNicepayError(err)) {
    const e = err as { code: string; resCode?: string; message: string };
    return `${e.message} [${e.code}${e.resCode ? ` resCode ${e.resCode}` : ''}]`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Runs the CLI on `argv` (without node and the script) and resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    (argv.length === 0 ? io.err : io.out)(TOP_HELP);
    return argv.length === 0 ? EXIT.USAGE : EXIT.OK;
  }
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === '-v' || argv[0] === 'version') {
    io.out(`${cliVersion()}\n`);
    return EXIT.OK;
  }
  const { command, rest, group } = select(argv);
  if (!command) {
    const wantsHelp = argv.includes('--help') || argv.includes('-h');
    const text = (group.length > 0 && groupUsage(group[0]!)) || TOP_HELP;
    if (wantsHelp) {
      io.out(text);
      return EXIT.OK;
    }
    const words = argv.filter((a) => !a.startsWith('-'));
    // `payout` alone names a group: say which commands it has rather than "unknown command";
    // `--foo` before any command is an option nobody knows, not a command.
    const problem = argv[0]!.startsWith('-')
      ? `unknown option "${argv[0]}" (options follow a command: express-nicepay <command> [options])`
      : group.length > 0 && words.length <= 1
        ? `"${group[0]}" needs a command`
        : `unknown command "${words.slice(0, 2).join(' ') || argv[0]}"`;
    io.err(`express-nicepay: ${problem}\n\n${text}`);
    return EXIT.USAGE;
  }
  try {
    const values = parseCommandArgs(command, rest);
    if (values.help) {
      io.out(`${command.help}\n`);
      return EXIT.OK;
    }
    return await command.run(values, io);
  } catch (err) {
    const code = exitCodeFor(err);
    io.err(`express-nicepay ${command.name}: ${describe(err)}\n`);
    if (code === EXIT.USAGE) io.err(`Run "express-nicepay ${command.name} --help" for usage.\n`);
    if (code === EXIT.OUTCOME_UNKNOWN) io.err('The gateway may have acted; check its state before retrying.\n');
    // A lost answer whose call was reversed: known, and nothing stands (exit 1, not 4).
    if (code === EXIT.GATEWAY && (err as { netCancel?: string }).netCancel === 'succeeded') {
      io.err('The answer was lost and the call was reversed (net cancel succeeded): nothing was charged; send it again with a new Moid.\n');
    }
    return code;
  }
}
