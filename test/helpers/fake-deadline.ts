/**
 * Client timeouts without waiting for them. A sandbox `delay` fault stalls its answer; rather
 * than let the client's real deadline run out (seconds per case), the test holds the long
 * timers armed during one call and, once the sandbox has taken the delay fault (the request is
 * in, the client's deadline is armed), fires those due within {@link JUMP_MS} at once, in the
 * order they are due: the client times out exactly as it would in production, and the
 * sandbox's stalled answer (due later) never comes.
 *
 * (node:test's MockTimers would do this, but in Node 20 a second enable() after reset() did
 * not fire due timers; this holds only what it must.)
 */
import type { Sandbox } from '../../src/sandbox/index.js';

/** Timers shorter than this run for real (undici's 0.5 s timer wheel, polling, hooks). */
const HOLD_FROM_MS = 1_000;
/** How far the held time jumps: past any client deadline a test configures, short of the sandbox's delays. */
const JUMP_MS = 30_000;

/** The timers {@link withHeldTimers} holds. */
export interface HeldTimers {
  /** Fires at once, in the order they are due, the held timers due within `ms` from now. */
  jump(ms: number): void;
}

/**
 * Runs `run` with every timer of 1 s or more that it arms held: each still fires for real
 * when due, unless `jump` fires it first. Shorter timers are untouched.
 */
export async function withHeldTimers<T>(run: (timers: HeldTimers) => Promise<T>): Promise<T> {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const held = new Map<NodeJS.Timeout, { due: number; run: () => void }>();
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if ((ms ?? 0) < HOLD_FROM_MS) return realSet(fn, ms, ...args);
    // A real timer all the same: if nothing jumps, it fires when due, as it would have.
    const handle: NodeJS.Timeout = realSet(() => {
      held.delete(handle);
      fn(...args);
    }, ms);
    held.set(handle, { due: Date.now() + ms!, run: () => fn(...args) });
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: NodeJS.Timeout | undefined) => {
    if (handle !== undefined) held.delete(handle);
    realClear(handle);
  }) as typeof clearTimeout;
  const jump = (ms: number): void => {
    const horizon = Date.now() + ms;
    const due = [...held].filter(([, t]) => t.due <= horizon).sort(([, a], [, b]) => a.due - b.due);
    for (const [handle, t] of due) {
      if (!held.delete(handle)) continue; // cleared by an earlier one
      realClear(handle);
      t.run();
    }
  };
  try {
    return await run({ jump });
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
}

/**
 * Runs `call` (one request that meets a queued `delay` fault of the sandbox); each time the
 * sandbox takes a `delay` fault, every timer of 1 s or more armed since `call` began and due
 * within 30 s fires at once. Resolves with what `call` resolves with.
 */
export async function pastClientDeadline<T>(sandbox: Pick<Sandbox, 'faults'>, call: () => Promise<T>): Promise<T> {
  return withHeldTimers(async (timers) => {
    const faults = sandbox.faults;
    const take = faults.take;
    faults.take = (target) => {
      const fault = take.call(faults, target);
      // After the handler that took it returns: by then every timer of the call is armed.
      if (fault?.kind === 'delay') setImmediate(() => timers.jump(JUMP_MS));
      return fault;
    };
    try {
      return await call();
    } finally {
      faults.take = take;
    }
  });
}
