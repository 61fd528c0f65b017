import type { CliValues } from './command.js';
import { CliConfigError, UsageError } from './exit-codes.js';
import type { CliIo } from './output.js';

/**
 * Secrets and personal identifiers a command needs (a billing key, a cash-receipt identity, a
 * buyer's refund account) come from the environment or from standard input, never from the
 * command line: an argument stays in the shell history and shows in `ps` to every local user.
 * A command names them as a {@link SecretInput}: one environment variable per value, or one
 * `--…-stdin` flag that reads all of them, one per line, from standard input.
 */
export interface SecretInput {
  /** The flag that reads the values from standard input, e.g. `bid-stdin`. */
  stdinFlag: string;
  /** The values, in the order their lines come on standard input. */
  values: ReadonlyArray<{ env: string; what: string }>;
  /** The command-line options refused for these values (parsed only to be refused). */
  refused?: readonly string[];
}

/** The `Environment:` lines of a command's --help for `input`, aligned as the others are. */
export function secretHelp(input: SecretInput): string {
  const width = Math.max(22, ...input.values.map((v) => v.env.length + 2));
  const lines = input.values.map((v) => `  ${v.env.padEnd(width)}${v.what}; never printed`);
  const many = input.values.length > 1;
  return `${lines.join('\n')}\n  ${' '.repeat(width)}(${many ? 'or all of them' : 'or'} from standard input with --${input.stdinFlag}${many ? ', one per line' : ''})`;
}

/** Refuses any of `input.refused` on the command line, saying where the value goes instead. */
export function refuseOnCommandLine(values: CliValues, input: SecretInput): void {
  const given = input.refused?.find((o) => values[o] !== undefined);
  if (given === undefined) return;
  throw new UsageError(
    `--${given} is refused: on the command line it stays in the shell history and shows in ps to every local user. ` +
      `Put it in ${input.values.map((v) => v.env).join(' and ')}, or pipe it with --${input.stdinFlag}`,
  );
}

/**
 * The values of `input`, in its order: from standard input when the command line has its
 * `--…-stdin` flag (one value per line; blank lines and a trailing CR ignored), else from the
 * environment. A missing one is a {@link CliConfigError} (exit 3) naming every variable
 * missing and the flag; the values themselves are never part of a message.
 */
export async function readSecrets(values: CliValues, io: CliIo, input: SecretInput): Promise<string[]> {
  refuseOnCommandLine(values, input);
  if (values[input.stdinFlag] === true) {
    const lines = (await io.readStdin())
      .split('\n')
      .map((l) => l.replace(/\r$/, '').trim())
      .filter((l) => l !== '');
    if (lines.length < input.values.length) {
      const wanted = input.values.map((v) => v.what).join(', then ');
      throw new CliConfigError(
        `--${input.stdinFlag}: standard input holds ${lines.length} of the ${input.values.length} line${input.values.length > 1 ? 's' : ''} expected (${wanted})`,
      );
    }
    return lines.slice(0, input.values.length);
  }
  const missing = input.values.filter((v) => !io.env[v.env]);
  if (missing.length > 0) {
    throw new CliConfigError(
      `missing environment variable${missing.length > 1 ? 's' : ''} ${missing.map((v) => v.env).join(', ')} (${missing.map((v) => v.what).join('; ')}), or pipe ${missing.length > 1 || input.values.length > 1 ? 'them' : 'it'} with --${input.stdinFlag} (see --help)`,
    );
  }
  return input.values.map((v) => io.env[v.env]!);
}
