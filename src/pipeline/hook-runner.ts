import type { ClientContext } from '../context.js';
import { renewWhileHeld } from './lease.js';
import { acquireWaiting } from './ledger.js';
import { callHook, type HookContext, type HookVerdict } from './hook-runner-verdict.js';

export { callHook, type HookCall, type HookContext, type HookVerdict } from './hook-runner-verdict.js';

/** The mark a notice's hook that resolved leaves under its key (never a ledger record). */
const RAN = 'ran';

/** One run of a notice hook (onDeposit, onCancel), keyed by the notice. */
export interface NoticeHookOptions {
  /** The once-key: the hook runs at most once at a time per key, and not again once it resolved. */
  key: string;
  /** When the hook's signal aborts; it is reported hung a second `timeoutMs` later. */
  timeoutMs: number;
  /** How long the mark of a resolved hook answers repeats. */
  keepMs: number;
  /** The hook's name and the fields to log with (tid, moid): never a secret. */
  hookName: string;
  log: Record<string, unknown>;
}

/** What {@link runNoticeHook} did. */
export type HookRun =
  /**
   * The hook ran here. After `resolved` or `rejected` its mark is written or its key freed
   * (`stored` false: the store failed, a repeat may run it again); after `hung` the key stays
   * leased until the hook settles.
   */
  | { state: 'ran'; verdict: HookVerdict; stored: boolean }
  /** It resolved before, here or on another instance: it is not run again. */
  | { state: 'done' }
  /** It is running elsewhere (or here) and did not finish within `timeoutMs`: answer "in progress". */
  | { state: 'in-progress' };

/**
 * Runs a notice's hook: at most once at a time per key, however long it runs, across every
 * instance sharing the store. Its lease outlives it (renewed while it runs) and becomes a mark
 * once it resolved, or is freed once it rejected, so the gateway's retry runs it again. A
 * duplicate waits up to `timeoutMs` for a running hook, then is told it is in progress; it never
 * hears "done" before the hook resolved. (A money operation's own hook runs under its ledger
 * record's lease instead: src/pipeline/run-operation.ts.) Rejects with NICEPAY_STORE_UNAVAILABLE
 * when the store cannot be asked: nothing ran.
 */
export async function runNoticeHook(
  ctx: ClientContext,
  options: NoticeHookOptions,
  hook: (context: HookContext) => unknown,
): Promise<HookRun> {
  const { store, logger } = ctx.config;
  const { key, hookName, log } = options;
  let got: Awaited<ReturnType<typeof acquireWaiting>>;
  try {
    got = await acquireWaiting(ctx, key, undefined, options.timeoutMs);
  } catch (err) {
    if ((err as { code?: string }).code === 'NICEPAY_IN_PROGRESS') return { state: 'in-progress' };
    throw err;
  }
  if (got.state === 'closed') return { state: 'done' };
  if (got.state === 'busy') return { state: 'in-progress' };
  const token = got.token;
  const stopBeat = renewWhileHeld(store, key, token, () =>
    logger.error(
      { ...log, step: 'hook-lock' },
      `${hookName} lost its lease while running: a duplicate may run it again`,
    ),
  );

  const call = callHook(hook, options.timeoutMs);
  const finished = call.settled.then(async (outcome): Promise<boolean> => {
    try {
      if (outcome.kind === 'resolved')
        await store.write(key, token, { value: RAN, open: false, keepMs: options.keepMs }, true);
      else await store.release(key, token);
      return true;
    } catch (err) {
      logger.error(
        { ...log, step: 'store', error: errorText(err) },
        `${hookName} ${outcome.kind}, but the store did not record it: a repeat may run it again`,
      );
      return false;
    } finally {
      stopBeat();
    }
  });
  const verdict = await call.verdict;
  if (verdict.kind === 'hung') {
    logger.error(
      { ...log, step: 'hook' },
      `${hookName} has not settled ${2 * options.timeoutMs} ms after it started; its key stays leased until it does`,
    );
    void call.settled.then(async (outcome) => {
      await finished;
      if (outcome.kind === 'resolved')
        logger.warn(
          { ...log, step: 'hook', outcome: 'late' },
          `${hookName} resolved after it was reported hung: a repeat is answered as done`,
        );
      else
        logger.error(
          { ...log, step: 'hook', outcome: 'late', error: errorText(outcome.error) },
          `${hookName} failed after it was reported hung: a repeat runs it again`,
        );
    });
    return { state: 'ran', verdict, stored: false };
  }
  return { state: 'ran', verdict, stored: await finished };
}

/** A hook's failure for a log line: its message, never the whole object. */
export function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}
