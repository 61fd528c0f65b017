import { NicepayConfigError } from '../errors/index.js';
import { hintOf, unknownKeyOf } from '../validation/known-keys.js';

/**
 * Refuses an option name the type does not declare (`timeout: 5` instead of `timeouts`), which
 * TypeScript catches but JavaScript would silently ignore; suggests the closest known name.
 * `caller` names the factory the option belongs to (`createNicepay()`, `checkoutReturn()`);
 * thrown when it is called, as every misconfiguration is.
 */
export function refuseUnknown(
  given: object,
  known: readonly string[],
  prefix: string,
  caller = 'createNicepay()',
): void {
  const unknown = unknownKeyOf(given, known);
  if (unknown === undefined) return;
  throw new NicepayConfigError(
    `${prefix}${unknown.key}`,
    `not an option of ${caller} (known: ${known.map((k) => prefix + k).join(', ')}).${hintOf(unknown, prefix)}`,
  );
}

/** The number given, refused unless it is a finite number above zero. */
export function positive(n: unknown, name: string): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new NicepayConfigError(name, 'a positive number');
  return n;
}
