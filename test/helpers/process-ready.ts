import type { ChildProcess } from 'node:child_process';

/**
 * Waits until `child` prints `marker` on stdout or stderr (an event, not a poll): rejects
 * after 10 s or when the child exits first, with `what` and its output so far. Resolves with
 * a function giving the output printed until then and since (for later error messages).
 */
export function waitForOutput(
  child: ChildProcess,
  marker: string,
  what: { notReady: string; exited: string },
): Promise<() => string> {
  let log = '';
  return new Promise<() => string>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`${what.notReady}:\n${log}`)), 10_000);
    const onData = (d: Buffer): void => {
      log += d.toString();
      if (log.includes(marker)) {
        clearTimeout(guard);
        resolve(() => log);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => {
      clearTimeout(guard);
      reject(new Error(`${what.exited}:\n${log}`));
    });
  });
}
