/**
 * Small tools for tests that drive promises by hand: let pending I/O and promise callbacks run,
 * and a promise the test settles itself.
 */

/** Lets `turns` rounds of pending I/O callbacks and the promise jobs they start run. */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** A promise the test settles (a hook under test, say), with its resolve and reject. */
export function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
