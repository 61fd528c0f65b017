import { NicepayConfigError } from '../errors/index.js';

/** The number given, refused unless it is a finite number above zero. */
export function positive(n: unknown, name: string): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new NicepayConfigError(name, 'a positive number');
  return n;
}
