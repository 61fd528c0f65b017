import { NicepayConfigError } from '../errors/index.js';

/**
 * Refuses an option name the type does not declare (`timeout: 5` instead of `timeouts`), which
 * TypeScript catches but JavaScript would silently ignore; suggests the closest known name.
 */
export function refuseUnknown(given: object, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(given)) {
    if (known.includes(key)) continue;
    const near = closest(key, known);
    const hint = near === undefined ? '' : ` Did you mean '${prefix}${near}'?`;
    throw new NicepayConfigError(
      `${prefix}${key}`,
      `not an option of createNicepay() (known: ${known.map((k) => prefix + k).join(', ')}).${hint}`,
    );
  }
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

/** The number given, refused unless it is a finite number above zero. */
export function positive(n: unknown, name: string): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new NicepayConfigError(name, 'a positive number');
  return n;
}
