import { NicepayConfigError, NicepayRequestError } from '../errors/index.js';

/**
 * Every key of `T`, optional ones included, each set to `true`: the form a type's list of
 * known option names is written in. Written as `knownKeys<T>({ ... })`, the compiler refuses a
 * list that misses a key of `T` or names one `T` does not have, so the list cannot drift from
 * the type it guards.
 */
export type KeyList<T> = { readonly [K in keyof T]-?: true };

/** The names of a {@link KeyList}, checked against `T` by the compiler where it is written. */
export function knownKeys<T>(list: KeyList<T>): readonly string[] {
  return Object.freeze(Object.keys(list));
}

/** A key of `given` that `known` does not list, with the known name it is plausibly a typo of. */
export interface UnknownKey {
  key: string;
  near: string | undefined;
}

/**
 * The first own key of `given` that is not in `known`, or undefined when every key is known.
 * TypeScript refuses an unknown key in an object literal, but JavaScript (or an options object
 * built elsewhere) would pass it and have it silently ignored: `idempotencykey` for
 * `idempotencyKey` drops the very key that stops a second refund.
 */
export function unknownKeyOf(given: object, known: readonly string[]): UnknownKey | undefined {
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) return { key, near: closest(key, known) };
  }
  return undefined;
}

/**
 * Refuses an input of one call that carries a key its type does not declare: 400
 * NICEPAY_FIELD_INVALID naming the key (`prefix` gives its path, `card.` for a nested object),
 * with the closest known name as a hint. Thrown before anything is sent or recorded.
 */
export function refuseUnknownInput(given: object, known: readonly string[], caller: string, prefix = ''): void {
  const unknown = unknownKeyOf(given, known);
  if (unknown === undefined) return;
  const field = `${prefix}${unknown.key}`;
  throw new NicepayRequestError(
    'NICEPAY_FIELD_INVALID',
    `${caller}: ${field} is not an input of ${caller}; nothing was sent.${hintOf(unknown, prefix)} ` +
      `(known: ${known.map((k) => prefix + k).join(', ')})`,
    field,
  );
}

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

/** The did-you-mean sentence for an unknown key, or '' when no known name is near it. */
export function hintOf(unknown: UnknownKey, prefix: string): string {
  return unknown.near === undefined ? '' : ` Did you mean '${prefix}${unknown.near}'?`;
}

/** The known name nearest to `key` by edit distance (case-insensitive), if it is plausibly a typo. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** Levenshtein distance, for the did-you-mean hint of a misspelt option. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}
