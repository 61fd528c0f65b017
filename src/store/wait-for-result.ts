import type { IdempotencyStore } from './types.js';

/** What a caller of {@link runOnce} gets back. */
export interface RunOnceOutcome {
  value: string;
  /** False when another request (or instance) did the work and this one reused its result. */
  fresh: boolean;
}

/** Timing of {@link runOnce}. */
export interface RunOnceOptions {
  lockTtlMs: number;
  resultTtlMs: number;
  /** First wait between polls of a busy key; doubles up to 250 ms. @default 10 */
  pollMs?: number;
}

/**
 * Runs `work` at most once per key across everything sharing the store. Concurrent callers
 * wait for the first one's result; if the holder dies, its lock expires and a waiter takes
 * over. `work` returns the value to cache, or undefined to release the key without caching.
 */
export async function runOnce(
  store: IdempotencyStore,
  key: string,
  options: RunOnceOptions,
  work: () => Promise<string | undefined>,
): Promise<RunOnceOutcome | undefined> {
  let wait = options.pollMs ?? 10;
  for (;;) {
    const got = await store.acquire(key, options.lockTtlMs);
    if (got.state === 'done') return { value: got.value, fresh: false };
    if (got.state === 'acquired') {
      let value: string | undefined;
      try {
        value = await work();
      } catch (err) {
        await store.release(key, got.token);
        throw err;
      }
      if (value === undefined) {
        await store.release(key, got.token);
        return undefined;
      }
      await store.complete(key, got.token, value, options.resultTtlMs);
      return { value, fresh: true };
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 250);
  }
}
