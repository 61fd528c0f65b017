import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';
import type { AcquireResult, IdempotencyStore } from './types.js';

/**
 * How a caller's result becomes the store's text and back. `parse` reads only what
 * `serialize` wrote; it may throw (the caller's own error) for a record it cannot use.
 */
export interface RecordCodec<T> {
  serialize(value: T): string;
  parse(text: string): T;
}

/** The codec of a caller whose result already is the stored text. */
export const TEXT_CODEC: RecordCodec<string> = { serialize: (v) => v, parse: (t) => t };

/** What a caller of {@link runOnce} gets back. */
export interface RunOnceOutcome<T> {
  /** The work's own value when it ran here, else the stored result parsed by the codec. */
  value: T;
  /** False when another request (or instance) did the work and this one reused its result. */
  fresh: boolean;
  /**
   * False when the work ran but its result could not be written (the value is still this
   * caller's: it did happen). Log it with the key: duplicates may redo the work.
   */
  stored: boolean;
  /** What the store threw or rejected with, when `stored` is false (may be any value). */
  storeError?: unknown;
}

/** Timing of {@link runOnce}. */
export interface RunOnceOptions {
  lockTtlMs: number;
  resultTtlMs: number;
  /** First wait between polls of a busy key; doubles up to 250 ms. @default 10 */
  pollMs?: number;
  /** Longest a caller waits behind another holder. @default lockTtlMs + 5000 */
  maxWaitMs?: number;
}

/**
 * Runs `work` at most once per key across everything sharing the store. Concurrent callers
 * wait for the first one's result; if the holder dies, its lock expires and a waiter takes
 * over. `work` returns the value to keep (written with `codec.serialize`), or undefined to
 * release the key without keeping anything. The caller that did the work gets its value as
 * it is; a duplicate gets `codec.parse` of the stored text.
 */
export async function runOnce<T = string>(
  store: IdempotencyStore,
  key: string,
  options: RunOnceOptions,
  work: () => Promise<T | undefined>,
  codec: RecordCodec<T> = TEXT_CODEC as unknown as RecordCodec<T>,
): Promise<RunOnceOutcome<T> | undefined> {
  let wait = options.pollMs ?? 10;
  const deadline = Date.now() + (options.maxWaitMs ?? options.lockTtlMs + 5_000);
  for (;;) {
    let got: AcquireResult;
    try {
      got = await store.acquire(key, options.lockTtlMs);
    } catch (err) {
      // Nothing was done yet: refuse rather than risk doing it twice.
      throw new NicepayServiceError('NICEPAY_STORE_UNAVAILABLE', 'idempotency store unavailable; nothing was sent, retry shortly', err);
    }
    if (got.state === 'done') return { value: codec.parse(got.value), fresh: false, stored: true };
    if (got.state === 'acquired') {
      let value: T | undefined;
      try {
        value = await work();
      } catch (err) {
        await releaseQuietly(store, key, got.token);
        throw err;
      }
      if (value === undefined) {
        await releaseQuietly(store, key, got.token);
        return undefined;
      }
      try {
        await store.complete(key, got.token, codec.serialize(value), options.resultTtlMs);
      } catch (err) {
        return { value, fresh: true, stored: false, storeError: err };
      }
      return { value, fresh: true, stored: true };
    }
    if (Date.now() >= deadline) {
      throw new NicepayRequestError('NICEPAY_IN_PROGRESS', 'another request for the same transaction is still being processed; retry shortly');
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 250);
  }
}

/** Drops a lock without a result; a failure is ignored, since the lock expires anyway. */
async function releaseQuietly(store: IdempotencyStore, key: string, token: string): Promise<void> {
  try {
    await store.release(key, token);
  } catch {
    // the lock expires anyway
  }
}

/** A store failure for a log line: its message, or what was thrown when it is not an Error. */
export function storeErrorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err).slice(0, 200);
}
