/**
 * Exit codes of the `express-nicepay` CLI. Scripts may branch on them; they are part of
 * the public interface (docs/cli.md) and do not change between minor versions.
 */
export const EXIT = {
  /** The command did what it was asked. */
  OK: 0,
  /** The gateway refused the call or could not be reached; nothing happened. */
  GATEWAY: 1,
  /** Bad command line: unknown command or option, missing or malformed value. */
  USAGE: 2,
  /** Configuration: a NICEPAY_* environment variable is missing or invalid. */
  CONFIG: 3,
  /** The gateway may have acted but its answer was lost; check before retrying a change. */
  OUTCOME_UNKNOWN: 4,
  /** `settle` / `unsettled`: payments are still open in the ledger; settlement keeps trying them. */
  UNSETTLED: 5,
  /** `settle` / `unsettled`: some open payment has been open past its bound: a person should look. */
  NEEDS_ATTENTION: 6,
} as const;

/** One of the {@link EXIT} values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A command-line mistake; the CLI prints the message and the command's usage, exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A missing or invalid environment variable; the CLI prints the message, exits 3. */
export class CliConfigError extends Error {
  override name = 'CliConfigError';
}
