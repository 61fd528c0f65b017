/**
 * The sandbox's clock. It follows real time from an offset that tests can move, so a test
 * can jump to 10:29 KST on a payout day and watch the cut-off, whatever `TZ` says.
 */
export interface VirtualClock {
  /** The current virtual time. */
  now(): Date;
  /** Sets the current time to `date` (time keeps flowing from there). */
  set(date: Date): void;
  /** Moves the current time forward by `ms`. */
  advance(ms: number): void;
  /** Stops (or restarts) the flow of real time, for exact assertions. */
  freeze(frozen?: boolean): void;
}

/** Creates a clock starting at `start` (default: real time). */
export function createVirtualClock(start?: () => Date): VirtualClock {
  let offset = start ? start().getTime() - Date.now() : 0;
  let frozenAt: number | undefined;
  const current = (): number => frozenAt ?? Date.now() + offset;
  return {
    now: () => new Date(current()),
    set(date) {
      if (frozenAt !== undefined) frozenAt = date.getTime();
      else offset = date.getTime() - Date.now();
    },
    advance(ms) {
      if (frozenAt !== undefined) frozenAt += ms;
      else offset += ms;
    },
    freeze(frozen = true) {
      if (frozen && frozenAt === undefined) frozenAt = current();
      if (!frozen && frozenAt !== undefined) {
        offset = frozenAt - Date.now();
        frozenAt = undefined;
      }
    },
  };
}
