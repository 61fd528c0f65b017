import type { ClientContext } from '../context.js';
import { LEASE_MS } from './lease.js';
import { readStored } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';

/** Most entries one tally holds: a TID is not cancelled more often than this. */
const MAX_ENTRIES = 100;

/** How long a tally's entries are kept: longer than the gateway retries a notice (10 × 10 min). */
export const TALLY_KEEP_MS = 35 * 24 * 60 * 60 * 1000;

/**
 * Adds `value` to the tally under `base`, unless it is there already: the entries are closed
 * records `${base}:1`, `${base}:2`... written once each, so appending needs no update of a
 * closed record and two instances appending at once take different numbers. A store failure is
 * reported (false): the operation is then not sent, since settlement and notices tell its
 * same-amount siblings apart by the tally.
 */
export async function appendToTally(ctx: ClientContext, base: string, value: string): Promise<boolean> {
  const { store } = ctx.config;
  try {
    for (let n = 1; n <= MAX_ENTRIES; n++) {
      const key = `${base}:${n}`;
      const got = await store.acquire(key, LEASE_MS);
      if (got.record?.value === value) {
        if (got.state === 'acquired') await store.release(key, got.token);
        return true;
      }
      if (got.state !== 'acquired') continue;
      if (got.record) {
        await store.release(key, got.token);
        continue;
      }
      try {
        if (await store.write(key, got.token, { value, open: false, keepMs: TALLY_KEEP_MS }, true)) return true;
      } catch {
        // The slot is given back below, so it is not left a gap while its lease runs.
      }
      await store.release(key, got.token).catch(() => undefined);
      return false;
    }
  } catch {
    // reported below
  }
  return false;
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
  for (let n = 1, gaps = 0; n <= MAX_ENTRIES && gaps <= GAPS_READ_PAST; n++) {
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
