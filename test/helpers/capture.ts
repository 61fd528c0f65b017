import type { Logger } from '../../src/index.js';

/** Everything a test run wrote to a logger or threw, as text to search for secrets. */
export interface Captured {
  logger: Logger;
  lines: string[];
  /** Records an error: its message, stack and JSON form. */
  record(err: unknown): void;
  text(): string;
}

/** A logger that keeps every line it is given, as JSON. */
export function captureLogger(): Captured {
  const lines: string[] = [];
  const log = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    lines.push(JSON.stringify({ level, ...obj, msg }));
  };
  return {
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    lines,
    record(err) {
      const e = err as Error;
      lines.push(String(e?.message), String(e?.stack), JSON.stringify(err));
    },
    text: () => lines.join('\n'),
  };
}
