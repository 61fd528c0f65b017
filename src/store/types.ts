/**
 * The idempotency store behind "nothing is approved twice": an atomic in-flight lock per key
 * plus a cache of the finished result. memoryStore serves one process; redisStore serves
 * many. Values are opaque strings the library writes, with newlines and characters above
 * U+007F in them: a store of your own must give back exactly the string it was given (UTF-8
 * storage does; an ASCII-only or Latin-1 column does not).
 *
 * Each method may answer with a promise (a networked store) or with its value directly (an
 * in-process store, like memoryStore): the library awaits only what is a promise, which saves
 * a microtask turn per call on the approval path.
 */
export interface IdempotencyStore {
  /**
   * Atomically: if a result is cached, return it; else if nobody holds the lock (or the
   * holder's lock expired), take it for `lockTtlMs` and return a token; else report busy.
   */
  acquire(key: string, lockTtlMs: number): MaybePromise<AcquireResult>;
  /** Stores the result for `resultTtlMs` and drops the lock, if `token` still holds it. */
  complete(key: string, token: string, value: string, resultTtlMs: number): MaybePromise<void>;
  /** Drops the lock without a result (the attempt changed nothing and may be retried). */
  release(key: string, token: string): MaybePromise<void>;
  /** Frees timers and connections the store owns. */
  close?(): MaybePromise<void>;
}

/** A value, or a promise of it (what a store method may return). */
export type MaybePromise<T> = T | PromiseLike<T>;

/** What {@link IdempotencyStore.acquire} found. */
export type AcquireResult =
  | { state: 'acquired'; token: string }
  | { state: 'done'; value: string }
  | { state: 'busy' };
