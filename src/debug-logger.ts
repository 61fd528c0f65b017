import { format } from 'node:util';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';

/** The namespace `DEBUG` is matched against, as in the `debug` package. */
export const DEBUG_NAMESPACE = 'express-nicepay';

/**
 * Whether a `DEBUG` value enables `namespace`: a comma or space separated list of
 * patterns where `*` matches anything and a leading `-` excludes (the `debug` package's
 * syntax, so `DEBUG=express-nicepay,express:*` works alongside Express's own switch).
 */
export function debugEnabled(value: string | undefined, namespace: string = DEBUG_NAMESPACE): boolean {
  if (!value) return false;
  let enabled = false;
  for (const raw of value.split(/[\s,]+/)) {
    if (!raw) continue;
    const negate = raw.startsWith('-');
    const pattern = negate ? raw.slice(1) : raw;
    const re = new RegExp(`^${pattern.replace(/[|\\{}()[\]^$+?.]/g, '\\$&').replace(/\*/g, '.*?')}$`);
    if (!re.test(namespace)) continue;
    if (negate) return false;
    enabled = true;
  }
  return enabled;
}

/** Where debug lines go; a parameter so tests need not capture the real stderr. */
export type DebugSink = (line: string) => void;

/**
 * The logger used when none is configured: silent unless `DEBUG` (read once, here) matches
 * `express-nicepay`; then one line per event on stderr:
 * `express-nicepay info approval answered {"tid":"…","step":"approve","durationMs":12}`.
 * Objects reach it already redacted (config.ts wraps every logger).
 */
export function debugLogger(env: string | undefined = process.env['DEBUG'], sink?: DebugSink): Logger {
  if (!debugEnabled(env)) return silentLogger;
  const write: DebugSink = sink ?? ((line) => void process.stderr.write(line));
  const emit = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    write(`${new Date().toISOString()} ${DEBUG_NAMESPACE} ${level} ${msg ?? ''} ${safeJson(obj)}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

function safeJson(obj: unknown): string {
  try {
    return JSON.stringify(obj) ?? '';
  } catch {
    return format('%o', obj);
  }
}
