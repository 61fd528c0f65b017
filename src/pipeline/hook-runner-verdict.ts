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

/** Aborts a context's signal: now if its hook read it, else when it does. */
let abortContext: (context: CallContext, reason: Error) => void;
/** True once a context's timeout passed. */
let contextAborted: (context: CallContext) => boolean;

/**
 * The context a hook is called with. Its `signal` is an own enumerable property, as in a plain
 * `{ signal }`, made when the hook first reads it: most hooks never do, and an AbortSignal costs
 * more to make than the rest of the call. Read before the timeout, it aborts then; read after,
 * it is made already aborted with the same reason. One accessor shared by every context keeps
 * each a fast object (a getter literal per call makes each a dictionary, which costs more in
 * the collector than the signal saves). Nothing but `signal` is reachable from the hook.
 */
class CallContext implements HookContext {
  declare readonly signal: AbortSignal;
  #controller: AbortController | undefined;
  #abortedBy: Error | undefined;
  static readonly #signal: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: CallContext): AbortSignal {
      if (!this.#controller) {
        this.#controller = new AbortController();
        if (this.#abortedBy) this.#controller.abort(this.#abortedBy);
      }
      return this.#controller.signal;
    },
  };

  static {
    abortContext = (context, reason) => {
      context.#abortedBy = reason;
      context.#controller?.abort(reason);
    };
    contextAborted = (context) => context.#abortedBy !== undefined;
  }

  constructor() {
    Object.defineProperty(this, 'signal', CallContext.#signal);
  }
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
  const context = new CallContext();
  let decide!: (verdict: HookVerdict) => void;
  const verdict = new Promise<HookVerdict>((resolve) => (decide = resolve));
  let timer = setTimeout(() => {
    abortContext(context, new Error(`the hook took longer than ${timeoutMs} ms`));
    timer = setTimeout(() => decide({ kind: 'hung' }), timeoutMs);
  }, timeoutMs);
  const settled = (async (): Promise<Exclude<HookVerdict, { kind: 'hung' }>> => {
    try {
      await hook(context);
      return { kind: 'resolved', late: contextAborted(context) };
    } catch (error) {
      return { kind: 'rejected', error, late: contextAborted(context) };
    } finally {
      clearTimeout(timer);
    }
  })();
  // Whichever comes first decides: the hook's own settling, or hung.
  void settled.then(decide);
  return { verdict, settled };
}
