/**
 * The sandbox's log: a line for a request it accepted but a merchant should look at, such as
 * bytes that are not EUC-KR, which the gateway reads garbled rather than refuses. Written as a
 * process warning (type `SandboxWarning`): stderr for the CLI sandbox and for a test run,
 * `process.on('warning')` for a test that wants to see it. A line names fields, never values.
 */

/** The warning type of every sandbox log line. */
export const SANDBOX_WARNING = 'SandboxWarning';

/** The code of the line for bytes that are not EUC-KR. */
export const NOT_EUC_KR = 'SANDBOX_NOT_EUC_KR';

/** Writes one line of the sandbox's log. */
export function sandboxLog(code: string, line: string): void {
  process.emitWarning(line, { type: SANDBOX_WARNING, code });
}

/**
 * Logs that `fields` of a request to `path` were sent in another charset than EUC-KR (bytes not
 * valid EUC-KR, or UTF-8 text under a UTF-8 label) and were read as EUC-KR, as the gateway reads
 * them: garbled, invalid sequences as U+FFFD. Nothing when there are none.
 */
export function logGarbled(path: string, fields: readonly string[]): void {
  if (fields.length === 0) return;
  sandboxLog(
    NOT_EUC_KR,
    `${path}: ${[...new Set(fields)].join(', ')} not EUC-KR: read as EUC-KR, garbled, as the gateway reads it (send the form in EUC-KR)`,
  );
}
