import type { ClientContext } from '../context.js';
import { LEASE_MS } from './lease.js';
import { readStored } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';

/**
 * Most entries one tally holds: more cancels of one TID, or payouts to one sub-merchant on one
 * day, than a shop makes. Beyond it the operation is refused (NICEPAY_STORE_FULL), never sent
 * without its entry.
 */
export const MAX_TALLY_ENTRIES = 10_000;

/** How long a tally's entries are kept: longer than the gateway retries a notice (10 × 10 min). */
export const TALLY_KEEP_MS = 35 * 24 * 60 * 60 * 1000;

/** What {@link appendToTally} did: added (or found) the entry, found the tally full, or could not ask the store. */
export type TallyAppend = 'added' | 'full' | 'store-failed';

/**
 * Adds `key`, an operation's ledger key, to the tally under `base`: the entries are closed
 * records `${base}:1`, `${base}:2`... written once each, so appending needs no update of a
 * closed record and two instances appending at once take different numbers. An operation whose
 * record the ledger holds already added its entry (the entry is written before the record), so
 * a repeat adds none. Anything but `added` means the operation must not be sent: settlement and
 * notices tell its same-amount siblings apart by the tally.
 */
export async function appendToTally(ctx: ClientContext, base: string, key: string): Promise<TallyAppend> {
  const { store } = ctx.config;
  try {
    if (await store.get(key)) return 'added';
    for (let n = await firstFreeSlot(ctx, base); n <= MAX_TALLY_ENTRIES; n++) {
      const slot = `${base}:${n}`;
      const got = await store.acquire(slot, LEASE_MS);
      if (got.record?.value === key) {
        if (got.state === 'acquired') await store.release(slot, got.token);
        return 'added';
      }
      if (got.state !== 'acquired') continue;
      if (got.record) {
        await store.release(slot, got.token);
        continue;
      }
      try {
        if (await store.write(slot, got.token, { value: key, open: false, keepMs: TALLY_KEEP_MS }, true))
          return 'added';
      } catch {
        // The slot is given back below, so it is not left a gap while its lease runs.
      }
      await store.release(slot, got.token).catch(() => undefined);
      return 'store-failed';
    }
    return 'full';
  } catch {
    return 'store-failed';
  }
}

/**
 * Where appending starts: just past the last entry, found by doubling, then halving, the slot
 * read (slots fill from 1 up), so the n-th entry costs about 2·log2(n) reads rather than n
 * leases. A slot being written or given back reads empty; the appender then leases its way on
 * from there.
 */
async function firstFreeSlot(ctx: ClientContext, base: string): Promise<number> {
  const filled = async (n: number): Promise<boolean> => (await ctx.config.store.get(`${base}:${n}`)) !== undefined;
  let last = 0;
  let next = 1;
  while (next <= MAX_TALLY_ENTRIES && (await filled(next))) {
    last = next;
    next *= 2;
  }
  // `last` is filled (or 0) and `next` empty (or past the bound): the end lies between them.
  next = Math.min(next, MAX_TALLY_ENTRIES + 1);
  while (next - last > 1) {
    const middle = (last + next) >>> 1;
    if (await filled(middle)) last = middle;
    else next = middle;
  }
  return next;
}

/**
 * Empty slots the reading looks past before it ends: a slot another instance is writing, or one
 * whose write failed, leaves a gap below entries added after it.
 */
const GAPS_READ_PAST = 3;

/**
 * The tally's entries in the order they were added (an empty list when it has none), each
 * once: an entry two callers of one key both added is read once.
 */
export async function readTally(ctx: ClientContext, base: string): Promise<string[]> {
  const out = new Set<string>();
  for (let n = 1, gaps = 0; n <= MAX_TALLY_ENTRIES && gaps <= GAPS_READ_PAST; n++) {
    const record = await ctx.config.store.get(`${base}:${n}`);
    if (!record) {
      gaps++;
      continue;
    }
    gaps = 0;
    out.add(record.value);
  }
  return [...out];
}

/**
 * The ledger records a tally names (each entry is an operation's ledger key, added before its
 * request left), as they stand now: in flight, recorded, or being settled. An operation that
 * left nothing (refused, never sent) is not among them.
 */
export async function tallyRecords(ctx: ClientContext, base: string): Promise<LedgerRecord[]> {
  return (await tallyEntries(ctx, base)).map((e) => e.record);
}

/** {@link tallyRecords} with each record's ledger key. */
export async function tallyEntries(
  ctx: ClientContext,
  base: string,
): Promise<Array<{ key: string; record: LedgerRecord }>> {
  const out: Array<{ key: string; record: LedgerRecord }> = [];
  for (const key of await readTally(ctx, base)) {
    const stored = await ctx.config.store.get(key);
    if (stored) out.push({ key, record: readStored(stored) });
  }
  return out;
}
