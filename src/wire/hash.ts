import { hash, timingSafeEqual } from 'node:crypto';

/** Lowercase hex SHA-256 of the UTF-8 bytes of `input` (the spec's hex(sha256(...)) notation). */
export function sha256Hex(input: string): string {
  // One-shot crypto.hash (strings are hashed as UTF-8): ~3x cheaper than createHash().update().digest().
  return hash('sha256', input, 'hex');
}

/**
 * Compares two hex digests in constant time. Case-insensitive, because gateway samples emit
 * either case. A length mismatch returns false without an early byte-by-byte exit
 * (stripe-node Webhooks: length check, then timingSafeEqual).
 */
export function hexEquals(expected: string, received: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(received.toLowerCase(), 'utf8');
  if (a.length !== b.length) {
    // Compare a against itself so both branches cost about the same.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
