import { type Logger, silentLogger } from './logger.js';

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Keys whose values never reach a log, compared case-insensitively without `_` / `-`:
 * the merchant key, encrypted card data and signatures, and every card field of key-in
 * (gateway-interface.md, B) in both the wire spelling and the library's.
 */
const SECRET_KEYS = new Set(
  [
    'merchantKey',
    'encKey',
    'EncData',
    'SignData',
    'Signature',
    'password',
    'authorization',
    'CardNo',
    'cardNumber',
    'number',
    'CardExpire',
    'expiry',
    'CardPwd',
    'password2',
    'BuyerAuthNum',
    'buyerAuthNum',
    'cvc',
  ].map(norm),
);

/**
 * 13 to 19 digits, optionally grouped by spaces or dashes: a full card number (ISO/IEC 7812).
 * A run glued to letters is part of an identifier (a TID is MID + digits + random letters), so
 * it is left alone: masking it would make the TID useless for reconciliation.
 */
const CARD_NUMBER = /(?<![0-9A-Za-z])\d(?:[ -]?\d){12,18}(?![0-9A-Za-z])/g;

/** Identifiers a shop needs to reconcile; never card data, so never masked. */
const ID_KEYS = new Set(['tid', 'txtid', 'moid', 'seq', 'orgtid', 'otid']);

/** Deepest nesting walked; anything deeper is dropped rather than risk a secret. */
const MAX_DEPTH = 6;

function norm(key: string): string {
  return key.replace(/[_-]/g, '').toLowerCase();
}

/**
 * A copy of `value` with secrets masked: values under the keys above become `[REDACTED]`
 * and any 13-19 digit run in a string (a card number) is masked to its last 4 digits.
 * Walks plain objects, arrays and Errors (message only); never mutates the input.
 */
export function redact<T>(value: T): T {
  return walk(value, 0, new WeakSet()) as T;
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return maskDigits(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value) || depth >= MAX_DEPTH) return '[…]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1, seen));
  if (value instanceof Error) return { name: value.name, message: maskDigits(value.message) };
  if (value instanceof Date || Buffer.isBuffer(value)) return value instanceof Date ? value : REDACTED;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = norm(k);
    if (ID_KEYS.has(key) && typeof v === 'string') out[k] = v;
    else out[k] = SECRET_KEYS.has(key) && v !== undefined && v !== '' ? REDACTED : walk(v, depth + 1, seen);
  }
  return out;
}

function maskDigits(s: string): string {
  return s.replace(
    CARD_NUMBER,
    (m) => `${'*'.repeat(m.replace(/\D/g, '').length - 4)}${m.replace(/\D/g, '').slice(-4)}`,
  );
}

/** Wraps a logger so every object and message it receives is redacted first. */
export function redactingLogger(logger: Logger): Logger {
  // Nothing reaches a silent logger, so there is nothing to redact (and no walk per event).
  if (logger === silentLogger) return logger;
  const wrap = (level: keyof Logger) => (obj: Record<string, unknown>, msg?: string) =>
    msg === undefined ? logger[level](redact(obj)) : logger[level](redact(obj), maskDigits(msg));
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}
