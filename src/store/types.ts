/**
 * The idempotency store behind "nothing is approved twice": an atomic in-flight lock per key
 * plus a cache of the finished result. memoryStore serves one process; redisStore serves
 * many. Values are opaque strings the library writes, with newlines and characters above
 * U+007F in them: a store of your own must give back exactly the string it was given (UTF-8
 * storage does; an ASCII-only or Latin-1 column does not).
 *
 * Every method answers with a promise, memoryStore's included (simple first: answering
 * synchronously saved one microtask turn per call, too little to measure in a same-run A/B).
 */
export interface IdempotencyStore {
  /**
   * Atomically: if a result is cached, return it; else if nobody holds the lock (or the
   * holder's lock expired), take it for `lockTtlMs` and return a token; else report busy.
   */
  acquire(key: string, lockTtlMs: number): Promise<AcquireResult>;
  /** Stores the result for `resultTtlMs` and drops the lock, if `token` still holds it. */
  complete(key: string, token: string, value: string, resultTtlMs: number): Promise<void>;
  /** Drops the lock without a result (the attempt changed nothing and may be retried). */
  release(key: string, token: string): Promise<void>;
  /**
   * Resets the lock's expiry to `lockTtlMs` from now if `token` still holds it, and answers
   * true; false when the lock was lost (expired and taken, completed or released). Lets a
   * hook that runs longer than any fixed lock keep its key. Optional for a store of your
   * own: without it a hook's lock is taken once for a long, fixed time (docs/hooks.md).
   */
  extend?(key: string, token: string, lockTtlMs: number): Promise<boolean>;
  /** Frees timers and connections the store owns. */
  close?(): Promise<void>;
}

/** What {@link IdempotencyStore.acquire} found. */
export type AcquireResult =
  | { state: 'acquired'; token: string }
  | { state: 'done'; value: string }
  | { state: 'busy' };
