import type { IdempotencyStore } from '../store/types.js';
import { runOnce, type RunOnceOutcome } from '../store/wait-for-result.js';

export { storeErrorText } from '../store/wait-for-result.js';

/**
 * The one place cancel and notifications reach the store's run-once (so moving runOnce touches
 * only this file): runs `work` at most once per key across every instance sharing the store;
 * `work` returns the text to keep, or undefined to keep nothing (a retry may run it again).
 */
export function onceThroughStore(
  store: IdempotencyStore,
  key: string,
  lockTtlMs: number,
  resultTtlMs: number,
  work: () => Promise<string | undefined>,
): Promise<RunOnceOutcome | undefined> {
  return runOnce(store, key, { lockTtlMs, resultTtlMs }, work);
}
