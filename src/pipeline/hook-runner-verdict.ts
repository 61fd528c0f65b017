/** What every merchant hook receives beside its own arguments. */
export interface HookContext {
  /**
   * Aborted once the hook's timeout has passed: the hook should then give up and undo what
   * it did, or finish quickly. Its own promise still decides what happens (docs/hooks.md).
   */
  signal: AbortSignal;
}

/**
 * What a merchant hook finally did: resolved or rejected (`late` when after its signal
 * aborted), or `hung`: still unsettled a second `timeoutMs` after the abort.
 */
export type HookVerdict =
  | { kind: 'resolved'; late: boolean }
  | { kind: 'rejected'; error: unknown; late: boolean }
  | { kind: 'hung' };

/** A hook call under way: the verdict the caller answers by, and the hook's own settling. */
export interface HookCall {
  /** Resolved, rejected, or hung a second `timeoutMs` after the abort, whichever comes first. */
  verdict: Promise<HookVerdict>;
  /** The hook's own outcome, however long it takes (never rejects). */
  settled: Promise<Exclude<HookVerdict, { kind: 'hung' }>>;
}

/**
 * Calls a hook and lets its own promise decide. `timeoutMs` decides nothing by itself: it
 * aborts the hook's `signal`, asking it to give up. Deciding at the timeout would split the
 * truth: a hook that goes on to record the order after the caller gave up on it leaves the
 * shop and the gateway disagreeing. So the caller follows the hook: resolved means done,
 * rejected means not done, late or not. A hook still unsettled `timeoutMs` after the abort
 * is reported `hung`, which bounds the request and close(); the hook's lock is held until it
 * settles (hook-runner.ts), so nothing runs it a second time meanwhile.
 */
export function callHook(hook: (context: HookContext) => unknown, timeoutMs: number): HookCall {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<HookVerdict>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`the hook took longer than ${timeoutMs} ms`));
      timer = setTimeout(() => resolve({ kind: 'hung' }), timeoutMs);
    }, timeoutMs);
  });
  const settled = (async (): Promise<Exclude<HookVerdict, { kind: 'hung' }>> => {
    try {
      await hook({ signal: controller.signal });
      return { kind: 'resolved', late: controller.signal.aborted };
    } catch (error) {
      return { kind: 'rejected', error, late: controller.signal.aborted };
    } finally {
      clearTimeout(timer);
    }
  })();
  return { verdict: Promise.race([settled, hung]), settled };
}
