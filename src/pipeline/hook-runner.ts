import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import type { IdempotencyStore } from '../store/types.js';
import { callHook, type HookContext, type HookVerdict } from './hook-runner-verdict.js';

export { callHook, type HookCall, type HookContext, type HookVerdict } from './hook-runner-verdict.js';

/**
 * A running hook's lock when the store can extend it: short, so a crashed instance frees the
 * key quickly, and renewed every third of it for as long as the hook runs.
 */
export const HOOK_LOCK_TTL_MS = 30_000;
/**
 * A store without `extend` cannot renew a lock: the hook's lock is then taken once for its
 * verdict budget (twice its timeout) plus this. A hook running longer than that on such a
 * store may run a second time; a crash leaves its key locked for as long.
 */
export const HOOK_LOCK_WITHOUT_EXTEND_MS = 10 * 60_000;
/** The mark a hook that resolved leaves under its key. */
const RAN = 'ran';
/** First wait between polls of a busy key; doubles up to {@link MAX_POLL_MS}. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;

/** One run of a merchant hook, keyed by what it is about (a TID, a notice). */
export interface HookRunOptions {
  store: IdempotencyStore;
  /** The once-key: a hook runs at most once at a time per key, and not again once it resolved. */
  key: string;
  /** When the hook's signal aborts; it is reported hung a second `timeoutMs` later. */
  timeoutMs: number;
  /** How long the mark of a resolved hook answers repeats. */
  resultTtlMs: number;
  /**
   * The lock's lifetime between renewals, with a store that has `extend` (renewed every third
   * of it). @default {@link HOOK_LOCK_TTL_MS}
   */
  lockTtlMs?: number;
  logger: Logger;
  /** The hook's name and the fields to log with (tid, moid): never a secret. */
  hookName: string;
  log: Record<string, unknown>;
}

/** What {@link runHookOnce} did. */
export type HookRun =
  /**
   * The hook ran here. After `resolved` or `rejected` its mark is written or its key freed
   * (`stored` false: the store failed, a repeat may run it again); after `hung` the key stays
   * locked until the hook settles, and `settled` resolves then.
   */
  | { state: 'ran'; verdict: HookVerdict; stored: boolean; settled: Promise<void> }
  /** It resolved before, here or on another instance: it is not run again. */
  | { state: 'done' }
  /** It is running elsewhere (or here) and did not finish within `timeoutMs`: answer "in progress". */
  | { state: 'in-progress' };

/**
 * The one way every merchant hook runs (onApproved of checkout and key-in, onDeposit,
 * onCancel): at most once at a time per key, however long it runs, in one process or across
 * instances sharing the store. The hook's own promise decides ({@link callHook}); its lock
 * outlives it, renewed through `store.extend` while it runs (or, with a store without
 * `extend`, taken once for long enough) and turned into a mark once it resolved, or freed once
 * it rejected, so a retry runs it again. A duplicate waits up to `timeoutMs` for a running
 * hook, then is told it is in progress; it never hears "done" before the hook resolved.
 * A hook runs a second time only when its first run left nothing in the store (a crash, a
 * lost write, an expired mark): hooks are at-least-once, and shops make them idempotent.
 */
export async function runHookOnce(options: HookRunOptions, hook: (context: HookContext) => unknown): Promise<HookRun> {
  const { store, key, timeoutMs, logger, hookName, log } = options;
  const extend = store.extend?.bind(store);
  const lockTtlMs = extend ? options.lockTtlMs ?? HOOK_LOCK_TTL_MS : 2 * timeoutMs + HOOK_LOCK_WITHOUT_EXTEND_MS;
  const deadline = Date.now() + timeoutMs;
  let wait = FIRST_POLL_MS;
  let token: string;
  for (;;) {
    let got;
    try {
      got = await store.acquire(key, lockTtlMs);
    } catch (err) {
      // Nothing ran yet: refuse rather than risk running it twice.
      throw new NicepayServiceError('NICEPAY_STORE_UNAVAILABLE', `idempotency store unavailable; ${hookName} did not run, retry shortly`, err);
    }
    if (got.state === 'done') return { state: 'done' };
    if (got.state === 'acquired') {
      token = got.token;
      break;
    }
    if (Date.now() >= deadline) return { state: 'in-progress' };
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, MAX_POLL_MS);
  }

  let running = true;
  let beat: NodeJS.Timeout | undefined;
  if (extend) {
    beat = setInterval(() => {
      extend(key, token, lockTtlMs).then(
        (held) => {
          if (!held && running) logger.error({ ...log, step: 'hook-lock' }, `${hookName} lost its lock while running: a duplicate may run it again`);
        },
        () => undefined, // a store hiccup: the next beat tries again before the lock expires
      );
    }, lockTtlMs / 3);
    beat.unref?.();
  }

  const call = callHook(hook, timeoutMs);
  const finished = call.settled.then(async (outcome): Promise<boolean> => {
    try {
      if (outcome.kind === 'resolved') await store.complete(key, token, RAN, options.resultTtlMs);
      else await store.release(key, token);
      return true;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err).slice(0, 200);
      logger.error({ ...log, step: 'store', error: why }, `${hookName} ${outcome.kind}, but the store did not record it: a repeat may run it again`);
      return false;
    } finally {
      running = false;
      clearInterval(beat);
    }
  });
  const verdict = await call.verdict;
  if (verdict.kind === 'hung') {
    logger.error({ ...log, step: 'hook' }, `${hookName} has not settled ${2 * timeoutMs} ms after it started; its key stays locked until it does`);
    const settled = call.settled.then(async (outcome) => {
      await finished;
      if (outcome.kind === 'resolved') logger.warn({ ...log, step: 'hook', outcome: 'late' }, `${hookName} resolved after it was reported hung: a repeat is answered as done`);
      else logger.error({ ...log, step: 'hook', outcome: 'late', error: errorText(outcome.error) }, `${hookName} failed after it was reported hung: a repeat runs it again`);
    });
    return { state: 'ran', verdict, stored: false, settled };
  }
  const stored = await finished;
  return { state: 'ran', verdict, stored, settled: Promise.resolve() };
}

/**
 * The once-key of onApproved for one payment: one per TID, whichever flow approved it
 * (checkout, key-in, or an approval recovered after a crash), so none runs beside another.
 */
export function approvedHookKey(mid: string, tid: string): string {
  return `hook:onApproved:${mid}:${tid}`;
}

/** A hook's failure for a log line: its message, never the whole object. */
export function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}
