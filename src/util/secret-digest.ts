import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A keyed digest (hex HMAC-SHA256 under the merchant key) of secret values such as an
 * AuthToken or a card number and expiry, so a stored record can be bound to them without
 * holding them: without the key, the digest of a card number cannot be searched for.
 * The parts are joined by NUL, which none of them may contain, so no two inputs collide.
 */
export function secretDigest(key: string, ...parts: string[]): string {
  return createHmac('sha256', key).update(parts.join('\0')).digest('hex');
}

/** Compares two digests of {@link secretDigest} in constant time. */
export function digestEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'latin1');
  const y = Buffer.from(b, 'latin1');
  return x.length === y.length && timingSafeEqual(x, y);
}
