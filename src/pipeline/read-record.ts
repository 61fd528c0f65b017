import type { ClientContext } from '../context.js';
import { readStored, storeError } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';
import { readTally } from './tally.js';

/**
 * The ledger record under `key` as it stands, open or closed, without taking its lease
 * (undefined: there is none). A failing store rejects with NICEPAY_STORE_UNAVAILABLE.
 */
export function readRecord(ctx: ClientContext, key: string): Promise<LedgerRecord | undefined> {
  return guarded(async () => {
    const stored = await ctx.config.store.get(key);
    return stored ? readStored(stored) : undefined;
  });
}

/** The values of the tally under `base` (tally.ts), in the order added; a failing store rejects as above. */
export function readTallyValues(ctx: ClientContext, base: string): Promise<string[]> {
  return guarded(() => readTally(ctx, base));
}

/** A read of the ledger whose store failure is the pipeline's NicepayServiceError (nothing was sent). */
function guarded<T>(read: () => Promise<T>): Promise<T> {
  return read().catch((err: unknown) => {
    throw storeError(err);
  });
}
