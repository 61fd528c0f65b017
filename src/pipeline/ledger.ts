import type { ClientContext } from '../context.js';
import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';
import { type LeaseResult, type RecordWrite, StoreFullError, type StoredRecord } from '../store/types.js';
import { holdLease, LEASE_MS, type Lease, LedgerWrite } from './lease.js';
import { type LedgerRecord, parseRecord } from './ledger-record.js';

/** First wait between polls of a busy key (or a crowded tally); doubles up to {@link MAX_POLL_MS}. */
export const FIRST_POLL_MS = 10;
/** Longest wait between two polls. */
export const MAX_POLL_MS = 250;

/** What taking a key found. */
export type Taken =
  | { state: 'closed'; record: LedgerRecord }
  /** Held by a hook that never settled: its state is known, waiting would not change it. */
  | { state: 'hung'; record: LedgerRecord }
  /** The lease; `record` is what an earlier holder left (undefined: the key is new), due at `dueAt`. */
  | { state: 'leased'; lease: Lease; record: LedgerRecord | undefined; dueAt: number };

/** A record the store gave back, read strictly; text this version did not write is a store fault. */
export function readStored(stored: StoredRecord): LedgerRecord {
  try {
    return parseRecord(stored.value);
  } catch (err) {
    throw new NicepayServiceError(
      'NICEPAY_STORE_UNAVAILABLE',
      `the ledger record under ${stored.key} cannot be read (${(err as Error).message}); nothing was sent`,
      err,
    );
  }
}

/** A store failure as the shop is told it: full, or unavailable; nothing was sent. */
export function storeError(err: unknown): NicepayServiceError {
  if (err instanceof NicepayServiceError) return err;
  if (err instanceof StoreFullError)
    return new NicepayServiceError(
      'NICEPAY_STORE_FULL',
      `${err.message}; nothing was sent, retry once records have closed`,
      err,
    );
  return new NicepayServiceError(
    'NICEPAY_STORE_UNAVAILABLE',
    'the ledger store is unavailable; nothing was sent, retry shortly',
    err,
  );
}

/**
 * Takes `key` for one step of a money operation: a closed record is handed back as it is; a
 * busy key is waited for up to `waitMs` (then 409 NICEPAY_IN_PROGRESS); otherwise the lease is
 * taken, with `initial` written when the key is new (the record exists before any request
 * leaves). A store that fails or is full rejects with a NicepayServiceError: nothing was sent.
 */
export async function takeKey(
  ctx: ClientContext,
  key: string,
  initial: LedgerRecord | undefined,
  keepMs: number,
  waitMs: number,
): Promise<Taken> {
  let hung: LedgerRecord | undefined;
  const got = await acquireWaiting(
    ctx,
    key,
    initial ? new LedgerWrite(initial, keepMs, initial.at) : undefined,
    waitMs,
    (stored) => {
      const record = readStored(stored);
      if (record.state === 'committed' && record.hook === 'hung') hung = record;
      return hung !== undefined;
    },
  );
  if (hung) return { state: 'hung', record: hung };
  if (got.state === 'busy') throw new Error('unreachable: acquireWaiting waits out a busy key');
  if (got.state === 'closed') return { state: 'closed', record: readStored(got.record) };
  const record = got.record ? readStored(got.record) : undefined;
  return {
    state: 'leased',
    lease: holdLease(ctx, key, got.token, keepMs),
    record,
    dueAt: got.record?.dueAt ?? 0,
  };
}

/**
 * The store's acquire, waiting behind a busy key up to `waitMs` (polling, 10 ms doubling to
 * 250 ms), then 409 NICEPAY_IN_PROGRESS; `stopWaiting` may end the wait early on what the busy
 * key holds. Store failures reject with a NicepayServiceError.
 */
export async function acquireWaiting(
  ctx: ClientContext,
  key: string,
  initial: RecordWrite | undefined,
  waitMs: number,
  stopWaiting?: (record: StoredRecord) => boolean,
): Promise<LeaseResult> {
  const { store } = ctx.config;
  const deadline = Date.now() + waitMs;
  let wait = FIRST_POLL_MS;
  for (;;) {
    let got: LeaseResult;
    try {
      got = await store.acquire(key, LEASE_MS, initial);
    } catch (err) {
      throw storeError(err);
    }
    if (got.state !== 'busy' || (got.record && stopWaiting?.(got.record))) return got;
    if (Date.now() >= deadline) {
      throw new NicepayRequestError(
        'NICEPAY_IN_PROGRESS',
        'another request for the same operation is still being processed; retry shortly',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, MAX_POLL_MS);
  }
}

/**
 * Writes `value` under `key` as a closed record kept `keepMs`, unless anybody holds the key: true
 * when this call wrote it. A full store may drop it when `evictable` (a marker that guards no
 * money itself, the default). Rejects with what the store rejects with.
 */
export async function writeOnce(
  ctx: ClientContext,
  key: string,
  value: string,
  keepMs: number,
  evictable = true,
): Promise<boolean> {
  const { store } = ctx.config;
  const got = await store.acquire(key, LEASE_MS);
  if (got.state !== 'acquired') return false;
  if (!got.record && (await store.write(key, got.token, { value, open: false, keepMs, evictable }, true))) return true;
  await store.release(key, got.token);
  return false;
}

/** Takes `key` only if it is free now (settlement: a busy key is someone else's work). */
export async function tryKey(ctx: ClientContext, key: string, keepMs: number): Promise<Taken | undefined> {
  const { store } = ctx.config;
  const got = await store.acquire(key, LEASE_MS);
  if (got.state === 'busy') return undefined;
  if (got.state === 'closed') return { state: 'closed', record: readStored(got.record) };
  const lease = holdLease(ctx, key, got.token, keepMs);
  if (!got.record) {
    // Nothing was ever written under it (a holder died before its first write): nothing to settle.
    await lease.forget();
    return undefined;
  }
  return { state: 'leased', lease, record: readStored(got.record), dueAt: got.record.dueAt };
}
