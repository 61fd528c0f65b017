/**
 * `err` with its stack made text now, and the stacks of the errors it wraps (`cause`, a few
 * deep). V8 makes an error's stack text on the first read; until then the error keeps the
 * functions and receivers of every frame it was made in, and with them what their closures
 * hold: a posted form, a card number, a request. An error the package makes or passes on may be
 * kept by the shop (an error tracker's queue), so none of them keeps its frames.
 */
export function withStackText<T>(err: T): T {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e instanceof Error; depth++) {
    void e.stack;
    e = e.cause;
  }
  return err;
}
