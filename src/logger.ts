/**
 * The logger contract: the subset of pino's API the library calls (object first, then
 * message). Nothing the library logs holds a merchant key or card data; fields are tid,
 * moid, step and durationMs.
 */
export interface Logger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

/** A logger that drops everything (the default). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
