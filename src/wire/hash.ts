import { hash } from 'node:crypto';

/** Lowercase hex SHA-256 of the UTF-8 bytes of `input` (the spec's hex(sha256(...)) notation). */
export function sha256Hex(input: string): string {
  // One-shot crypto.hash (strings are hashed as UTF-8): ~3x cheaper than createHash().update().digest().
  return hash('sha256', input, 'hex');
}

/**
 * Compares two hex digests in constant time, in either case (gateway samples emit both).
 * Every character of `expected` is compared, with no exit at the first difference, so the time
 * taken says nothing about how much of a forged value was right (stripe-node's webhook check
 * and tsscmp do the same). Only A-F are folded to lowercase, so no other character can stand in
 * for a digit. Nothing is allocated: this runs twice per approval.
 */
export function hexEquals(expected: string, received: string): boolean {
  return constantTimeCompare(expected, received, true);
}

/** Compares two strings in constant time, exactly (case counts): for tokens that are not hex. */
export function safeEquals(expected: string, received: string): boolean {
  return constantTimeCompare(expected, received, false);
}

function constantTimeCompare(expected: string, received: string, foldHex: boolean): boolean {
  const n = expected.length;
  let diff = n ^ received.length;
  for (let i = 0; i < n; i++) {
    // charCodeAt is NaN past the end of `received`: the lengths already differ then.
    const a = expected.charCodeAt(i);
    const b = received.charCodeAt(i);
    diff |= foldHex ? fold(a) ^ fold(b) : a ^ b;
  }
  return diff === 0;
}

/** A-F as a-f; any other code unit as it is. */
const fold = (c: number): number => (c >= 0x41 && c <= 0x46 ? c + 0x20 : c);
