import { safeEquals, sha256Hex } from '../wire/hash.js';

/**
 * A keyed digest (hex SHA-256 of the parts followed by the merchant key) of secret values such
 * as an AuthToken or a card number and expiry, so a stored record can be bound to them without
 * holding them: without the key, the digest of a card number cannot be searched for. The key
 * comes last, as in the gateway's own Signature (sha256 of the fields then MerchantKey), so no
 * digest can be extended to one of a longer input without the key. The parts and the key are
 * joined by NUL, which none of them may contain, so no two inputs collide.
 *
 * One one-shot hash rather than an HMAC: createHmac sets up an OpenSSL MAC context per call.
 */
export function secretDigest(key: string, ...parts: string[]): string {
  return sha256Hex(`${parts.join('\0')}\0${key}`);
}

/** Compares two digests of {@link secretDigest} in constant time (they are hex text). */
export const digestEquals = safeEquals;
