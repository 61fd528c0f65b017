import type { Logger } from '../../src/index.js';

/** Everything a test run wrote to a logger or threw, as text to search for secrets. */
export interface Captured {
  logger: Logger;
  lines: string[];
  /** Records an error: its message, stack and JSON form. */
  record(err: unknown): void;
  text(): string;
}

/**
 * Every line any captureLogger() of the whole mocha run was given, in this process, for the
 * suite-wide secret scan of test/hooks/secret-guard.ts. Kept on globalThis so every import
 * path of this module shares it.
 */
const GLOBAL_KEY = Symbol.for('express-nicepay.test.captured-lines');
export function allCapturedLines(): string[] {
  const g = globalThis as unknown as Record<symbol, string[] | undefined>;
  return (g[GLOBAL_KEY] ??= []);
}

/** A logger that keeps every line it is given, as JSON. */
export function captureLogger(): Captured {
  const global = allCapturedLines();
  const lines: string[] = [];
  const keep = (...texts: string[]): void => {
    lines.push(...texts);
    global.push(...texts);
  };
  const log = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    keep(JSON.stringify({ level, ...obj, msg }));
  };
  return {
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    lines,
    record(err) {
      const e = err as Error;
      keep(String(e?.message), String(e?.stack), JSON.stringify(err));
    },
    text: () => lines.join('\n'),
  };
}
