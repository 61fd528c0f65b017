import type { ClientContext } from '../context.js';
import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';
import {
  type LeaseResult,
  type LedgerStore,
  type RecordWrite,
  StoreFullError,
  type StoredRecord,
} from '../store/types.js';
import { CLOSED_STATES, type LedgerRecord, parseRecord, serializeRecord } from './ledger-record.js';

/**
 * A lease's lifetime between renewals. Whoever holds a key renews its lease every third of this
 * for as long as it works on it (a gateway call, a reversal, however slow a hook), so one formula
 * serves every operation: a live holder never loses its key, and a dead one frees it this long
 * after it stopped.
 */
export const LEASE_MS = 30_000;
/** First wait between polls of a busy key; doubles up to {@link MAX_POLL_MS}. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;

/** What taking a key found. */
export type Taken =
  | { state: 'closed'; record: LedgerRecord }
  /** Held by a hook that never settled: its state is known, waiting would not change it. */
  | { state: 'hung'; record: LedgerRecord }
  /** The lease; `record` is what an earlier holder left (undefined: the key is new), due at `dueAt`. */
  | { state: 'leased'; lease: Lease; record: LedgerRecord | undefined; dueAt: number };

/**
 * The pipeline's hold on one ledger key: every write goes through it, only while it holds the
 * lease. Its heartbeat renews the lease until it is released; once the store says the lease is
 * gone (or a write fails: the lease is then given back), `lost` is true and the holder stops
 * moving the record: whoever holds it now, or the settler, continues from what was last written.
 */
export interface Lease {
  readonly key: string;
  /** True once a renewal or a write found the lease gone or the store failing. */
  readonly lost: boolean;
  /** Writes the record (open or closed by its state) and keeps the lease; false when it could not. */
  put(record: LedgerRecord, dueAt?: number): Promise<boolean>;
  /** Writes the record and drops the lease; false when it could not. */
  putAndRelease(record: LedgerRecord, dueAt?: number): Promise<boolean>;
  /** Forgets the key: the operation left nothing to remember. */
  forget(): Promise<void>;
  /** Drops the lease, keeping the record as last written. */
  release(): Promise<void>;
}

/**
 * How a record is written: its state decides open or closed; a closed one is kept `keepMs`.
 * Its text is made when the store first reads `value` (once): a durable store reads it at once,
 * memoryStore only when the record is read back (a repeat, settlement). A record is never
 * changed once written (each move makes a new one), so the text is the same whenever it is made.
 */
function toWrite(record: LedgerRecord, keepMs: number, dueAt: number): RecordWrite {
  let text: string | undefined;
  if (!CLOSED_STATES.has(record.state)) {
    return {
      get value() {
        text ??= serializeRecord(record);
        return text;
      },
      open: true,
      dueAt,
    };
  }
  // Only a recorded payment guards money once closed: dropping a decline, a reversal or a
  // never-charged record lets a repeat be sent again, which still charges at most once.
  return {
    get value() {
      text ??= serializeRecord(record);
      return text;
    },
    open: false,
    keepMs,
    evictable: record.state !== 'recorded',
  };
}

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
    initial ? toWrite(initial, keepMs, initial.at) : undefined,
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
    lease: holdLease(ctx, ctx.config.store, key, got.token, keepMs),
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

/** Takes `key` only if it is free now (settlement: a busy key is someone else's work). */
export async function tryKey(ctx: ClientContext, key: string, keepMs: number): Promise<Taken | undefined> {
  const { store } = ctx.config;
  const got = await store.acquire(key, LEASE_MS);
  if (got.state === 'busy') return undefined;
  if (got.state === 'closed') return { state: 'closed', record: readStored(got.record) };
  const lease = holdLease(ctx, store, key, got.token, keepMs);
  if (!got.record) {
    // Nothing was ever written under it (a holder died before its first write): nothing to settle.
    await lease.forget();
    return undefined;
  }
  return { state: 'leased', lease, record: readStored(got.record), dueAt: got.record.dueAt };
}

/** Holds a taken lease: heartbeat, conditional writes, release. */
export function holdLease(ctx: ClientContext, store: LedgerStore, key: string, token: string, keepMs: number): Lease {
  const { logger } = ctx.config;
  let lost = false;
  let held = true;
  const stop = (): void => {
    held = false;
    clearInterval(beat);
  };
  const beat: NodeJS.Timeout = setInterval(() => {
    store.extend(key, token, LEASE_MS).then(
      (ok) => {
        if (!ok && held) {
          lost = true;
          stop();
          logger.error(
            { key, step: 'lease' },
            'the ledger lease was lost while its work ran: that work no longer moves the record',
          );
        }
      },
      () => undefined, // a store hiccup: the next beat tries again before the lease expires
    );
  }, LEASE_MS / 3);
  beat.unref?.();
  const write = async (record: LedgerRecord, dueAt: number | undefined, release: boolean): Promise<boolean> => {
    if (lost) return false;
    try {
      const ok = await store.write(key, token, toWrite(record, keepMs, dueAt ?? ctx.config.clock().getTime()), release);
      if (!ok) {
        lost = true;
        stop();
      }
      return ok;
    } catch (err) {
      lost = true;
      stop();
      logger.error(
        { key, tid: record.tid, moid: record.moid, state: record.state, step: 'store', error: (err as Error)?.message },
        'the ledger record could not be written: settlement continues from the last state written',
      );
      // This holder moves the record no more: its lease is given back (after the write, on the
      // same key), so a repeat or the settler goes on from the last state written now, not once
      // the lease expires. A store that cannot take the release either leaves it to expire.
      void store.release(key, token).catch(() => undefined);
      return false;
    }
  };
  return {
    key,
    get lost() {
      return lost;
    },
    put: (record, dueAt) => write(record, dueAt, false),
    async putAndRelease(record, dueAt) {
      stop();
      return write(record, dueAt, true);
    },
    async forget() {
      stop();
      await store.remove(key, token).catch(() => undefined);
    },
    async release() {
      stop();
      await store.release(key, token).catch(() => undefined);
    },
  };
}
