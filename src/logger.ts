/**
 * The logger contract: the subset of pino's API the library calls (object first, then
 * message). Nothing the library logs holds a merchant key or card data; fields are tid,
 * moid, step and durationMs.
 */
export interface Logger {
  /** Each gateway call answered (data host calls). */
  debug(obj: Record<string, unknown>, msg?: string): void;
  /** An approval or key-in answered. */
  info(obj: Record<string, unknown>, msg?: string): void;
  /** A call failed without committing anything, or a net cancel was sent. */
  warn(obj: Record<string, unknown>, msg?: string): void;
  /** An outcome is unknown or a hook failed: someone should look. */
  error(obj: Record<string, unknown>, msg?: string): void;
}

/** A logger that drops everything (the default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
