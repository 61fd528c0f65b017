import type { ClientContext } from '../context.js';
import { writeOnce } from './ledger.js';

/**
 * The mark a gateway notice leaves for an operation it named while that operation's record could
 * not be moved (its request in flight, or another holder on it): settlement keeps a record so
 * marked (settle.ts), since the gateway sends no notice again once it was answered OK.
 */
function markKey(key: string): string {
  return `noticed:${key}`;
}

/** Marks the operation under `key` as named by a notice of the gateway, for `keepMs`. */
export async function markNoticed(ctx: ClientContext, key: string, keepMs: number): Promise<void> {
  await writeOnce(ctx, markKey(key), '1', keepMs);
}

/**
 * True when a notice of the gateway named the operation under `key` (see {@link markNoticed}).
 * A store that does not answer says nothing: the record stays as it is, for the next attempt.
 */
export async function wasNoticed(ctx: ClientContext, key: string): Promise<boolean> {
  return (await ctx.config.store.get(markKey(key)).catch(() => undefined)) !== undefined;
}
