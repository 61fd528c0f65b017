/**
 * Resolves or rejects like `work`, or rejects with `onTimeout()` once `ms` have passed, and
 * clears its timer either way (so a settled call never keeps the process alive).
 */
export function withTimeout<T>(work: PromiseLike<T> | T, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
