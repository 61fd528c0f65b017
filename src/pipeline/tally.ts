import type { ClientContext } from '../context.js';
import { ownCopy } from '../own-copy.js';
import { LEASE_MS } from './lease.js';
import { FIRST_POLL_MS, MAX_POLL_MS, readStored, writeOnce } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';

/**
 * Most entries one tally holds: more cancels of one TID, or payouts to one sub-merchant on one
 * day, than a shop makes. Beyond it the operation is refused (NICEPAY_STORE_FULL), never sent
 * without its entry.
 */
export const MAX_TALLY_ENTRIES = 10_000;

/** How long a tally's entries are kept: longer than the gateway retries a notice (10 × 10 min). */
export const TALLY_KEEP_MS = 35 * 24 * 60 * 60 * 1000;

/**
 * Empty slots a reader looks past before it ends, and the most an appender leases past: a slot
 * another appender is writing, or one given back after its write failed, is empty below the
 * entries added after it. An appender that would pass more waits for them instead, so no entry
 * ever lies beyond the readers' reach.
 */
const GAPS_READ_PAST = 32;

/** What {@link appendToTally} did: added (or found) the entry, found the tally full, or could not ask the store. */
export type TallyAppend = { state: 'added' } | { state: 'full' } | { state: 'store-failed'; error: unknown };

const ADDED = { state: 'added' } as const;

/**
 * Adds `key`, an operation's ledger key, to the tally under `base`, once: the entries are closed
 * records `${base}:1`, `${base}:2`... written once each, so appending needs no update of a
 * closed record and two instances appending at once take different numbers. A mark
 * `${base}#${key}` written after the entry answers a repeat of the operation (its record may be
 * gone: a refusal or a request not sent leaves none), so retries do not fill the tally. Anything
 * but `added` means the operation must not be sent: settlement and notices tell its same-amount
 * siblings apart by the tally.
 */
export async function appendToTally(ctx: ClientContext, base: string, key: string): Promise<TallyAppend> {
  const { store } = ctx.config;
  const mark = `${base}#${key}`;
  try {
    if (await store.get(mark)) return ADDED;
    const deadline = Date.now() + LEASE_MS;
    for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, MAX_POLL_MS)) {
      const slot = await claimSlot(ctx, base, key);
      if (slot === 'crowded') {
        // More empty slots held by others than readers look past: wait for their writes (or, for
        // a holder that died, for its lease to end) rather than add an entry nobody reads.
        if (Date.now() >= deadline) throw new Error(`the tally ${base} stayed crowded with unwritten slots`);
        await new Promise((resolve) => setTimeout(resolve, wait));
        // A repeat of this operation may have added its entry meanwhile.
        if (await store.get(mark)) return ADDED;
        continue;
      }
      if (slot === 'full') return { state: 'full' };
      await writeMark(ctx, mark, slot);
      return ADDED;
    }
  } catch (error) {
    return { state: 'store-failed', error };
  }
}

/**
 * Writes `key` into the first free slot from just past the last entry: its number, `full`, or
 * `crowded` when more than {@link GAPS_READ_PAST} empty slots in a row are held by others.
 * Throws what the store throws; a slot whose write failed is given back first.
 */
async function claimSlot(ctx: ClientContext, base: string, key: string): Promise<number | 'full' | 'crowded'> {
  const { store } = ctx.config;
  let held = 0;
  for (let n = await firstFreeSlot(ctx, base); n <= MAX_TALLY_ENTRIES; n++) {
    const slot = `${base}:${n}`;
    const got = await store.acquire(slot, LEASE_MS);
    if (got.record) {
      if (got.state === 'acquired') await store.release(slot, got.token);
      if (got.record.value === key) return n;
      held = 0;
      continue;
    }
    if (got.state !== 'acquired') {
      if (++held > GAPS_READ_PAST) return 'crowded';
      continue;
    }
    let written = false;
    try {
      written = await store.write(slot, got.token, { value: ownCopy(key), open: false, keepMs: TALLY_KEEP_MS }, true);
    } finally {
      // A failed write gives the slot back at once, so it is not left a gap while its lease runs.
      if (!written) await store.release(slot, got.token).catch(() => undefined);
    }
    if (!written) throw new Error(`the tally slot ${slot} could not be written`);
    return n;
  }
  return 'full';
}

/**
 * Marks `key` as in the tally (slot `n`). Best effort, and the first thing a full memoryStore may
 * drop: without the mark a repeat adds a second entry, which readers read once; no money hangs on it.
 */
async function writeMark(ctx: ClientContext, mark: string, n: number): Promise<void> {
  try {
    await writeOnce(ctx, mark, String(n), TALLY_KEEP_MS);
  } catch {
    // The entry is written; only the shortcut for a repeat is missing.
  }
}

/**
 * Where appending starts: just past the last entry, found by doubling, then halving, the slot
 * read (slots fill from 1 up), so the n-th entry costs about 2·log2(n) reads rather than n
 * leases. The slot below the result held an entry when read.
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
 * The tally's entries in the order they were added (an empty list when it has none), each
 * once: an entry two callers of one key both added is read once. Slots are read a window at a
 * time, the window one more than the gaps a reader looks past.
 */
export async function readTally(ctx: ClientContext, base: string): Promise<string[]> {
  const out = new Set<string>();
  const window = GAPS_READ_PAST + 1;
  for (let from = 1, gaps = 0; from <= MAX_TALLY_ENTRIES && gaps <= GAPS_READ_PAST; from += window) {
    const slots = Array.from({ length: Math.min(window, MAX_TALLY_ENTRIES + 1 - from) }, (_, i) => from + i);
    for (const record of await Promise.all(slots.map((n) => ctx.config.store.get(`${base}:${n}`)))) {
      if (!record) {
        gaps++;
        continue;
      }
      gaps = 0;
      out.add(record.value);
    }
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
  const keys = await readTally(ctx, base);
  const stored = await Promise.all(keys.map((key) => ctx.config.store.get(key)));
  return keys.flatMap((key, i) => {
    const found = stored[i];
    return found ? [{ key, record: readStored(found) }] : [];
  });
}
