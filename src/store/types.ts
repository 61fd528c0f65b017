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
   * Atomically: if `token` still holds the live lock on `key`, resets the lock's expiry to
   * `lockTtlMs` from now and answers true; else (the lock expired, was taken by another
   * holder, completed or released) changes nothing and answers false.
   *
   * The hook runner calls it as a heartbeat while a merchant hook runs, so a lock outlives a
   * hook slower than `lockTtlMs` and a duplicate meanwhile is answered "in progress" instead
   * of running the hook a second time. On false the holder has lost the lock: another
   * request may already be doing the same work, so the holder must not assume it alone runs.
   *
   * Optional, so a store written before it existed keeps working: without `extend` the
   * caller cannot renew a lock, and instead takes it at `acquire` for as long as the work
   * may run (a hook's timeout plus a margin), so it still outlives the work; the price is
   * that a crashed holder's key stays locked that long before a duplicate may take over.
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
