import { hash, timingSafeEqual } from 'node:crypto';

/** Lowercase hex SHA-256 of the UTF-8 bytes of `input` (the spec's hex(sha256(...)) notation). */
export function sha256Hex(input: string): string {
  // Node's one-shot digest (strings are hashed as UTF-8): as plain as createHash, and cheaper.
  return hash('sha256', input, 'hex');
}

/**
 * Compares two hex digests in constant time, in either case (gateway samples emit both). A
 * received value with any character other than 0-9, a-f, A-F is refused before the case is
 * folded, so no other character can stand in for a digit.
 */
export function hexEquals(expected: string, received: string): boolean {
  // A regex test and toLowerCase: cheaper than folding A-F through a replace callback.
  if (expected.length !== received.length || !HEX_DIGITS.test(received)) return false;
  return safeEquals(expected.toLowerCase(), received.toLowerCase());
}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/**
 * Compares two strings exactly (case counts), for tokens that are not hex: the lengths first
 * (a length says nothing secret), then crypto.timingSafeEqual, so the time taken does not tell
 * how much of a forged value was right.
 */
export function safeEquals(expected: string, received: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(received, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
