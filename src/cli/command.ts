import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isDate8 } from '../payout/schedule.js';
import type { ExitCode } from './exit-codes.js';
import { UsageError } from './exit-codes.js';
import type { CliIo } from './output.js';

/** Option definitions in node:util parseArgs form. */
export type CliOptions = NonNullable<ParseArgsConfig['options']>;

/** Parsed option values. */
export type CliValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** One runnable subcommand, e.g. `payout balance`. */
export interface Command {
  /** The words that select it, e.g. `payout results`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full --help text. */
  help: string;
  options: CliOptions;
  run(values: CliValues, io: CliIo): Promise<ExitCode>;
}

/**
 * `--amount -5` as `--amount=-5`: parseArgs takes a value that starts with a dash for a
 * forgotten value ("ambiguous"), so the option's own check never sees it and cannot say what
 * is wrong with it. A value is joined to its option when the option takes one and the value
 * is not itself an option of the command.
 */
function joinDashValues(command: Command, args: readonly string[]): string[] {
  const out: string[] = [];
  const isOption = (a: string): boolean => {
    const name = a.replace(/^--?/, '').split('=')[0]!;
    return name === 'help' || name === 'h' || name in command.options || Object.values(command.options).some((o) => o.short === name);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.startsWith('--') ? a.slice(2) : undefined;
    const next = args[i + 1];
    if (name !== undefined && command.options[name]?.type === 'string' && next !== undefined && next.startsWith('-') && next !== '-' && !isOption(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

/** Parses a command's arguments strictly (unknown options and positionals are usage errors). */
export function parseCommandArgs(command: Command, args: readonly string[]): CliValues & { help?: boolean } {
  const { values } = parseArgs({
    args: joinDashValues(command, args),
    options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
  return values as CliValues & { help?: boolean };
}

/** A required string option, or a {@link UsageError} naming it. */
export function required(values: CliValues, name: string, what: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required: ${what}`);
  return v;
}

/**
 * A whole number of won (at most 12 digits) from an option; undefined when the option is
 * absent and not `needed`, a {@link UsageError} naming it otherwise.
 */
export function won(values: CliValues, name: string, needed: boolean): number | undefined {
  const v = values[name];
  if (v === undefined && !needed) return undefined;
  const text = needed ? required(values, name, 'a whole number of won') : String(v);
  if (!/^\d{1,12}$/.test(text)) throw new UsageError(`--${name} must be a whole number of won, got ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * A YYYYMMDD option, a real calendar date: checked here, before anything is said or sent, so
 * the message names the option (not the gateway field behind it).
 */
export function date8(values: CliValues, name: string): string {
  const v = required(values, name, 'a KST date YYYYMMDD');
  if (!/^\d{8}$/.test(v)) throw new UsageError(`--${name} must be a KST date YYYYMMDD, got ${JSON.stringify(v)}`);
  if (!isDate8(v)) throw new UsageError(`--${name} must be a real calendar date YYYYMMDD (KST), got ${JSON.stringify(v)}`);
  return v;
}

/** One of a fixed set of values. */
export function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

/**
 * A whole number from 1 to `max` (`what` it counts, for the message), `fallback` when the
 * option is absent; a {@link UsageError} naming the option otherwise.
 */
export function wholeNumber(values: CliValues, name: string, what: string, fallback: number, max: number): number {
  const v = values[name];
  if (v === undefined) return fallback;
  const text = String(v);
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`--${name} must be a whole number of ${what} from 1 to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}
