/**
 * One shop instance's view of the ledger store, as the model sees it: the real store behind a
 * kill switch, with the leases the instance holds written down.
 *
 * A killed process makes no more calls: after `kill()` every method of this view returns a
 * promise that never settles, so whatever the dead instance was doing (a walk waiting on a hung
 * hook, a heartbeat) stops at its next store call, exactly where a dead process would.
 *
 * A live process renews its leases every LEASE_MS / 3 of real time. The model moves the
 * store's clock (the sandbox's virtual one) in jumps, which real heartbeats would not keep up
 * with; {@link InstanceStore.beat} renews every lease this instance holds, as its heartbeat
 * would have, and the world calls it at least every LEASE_MS / 3 of virtual time it advances.
 */
import type { LeaseResult, LedgerStore, RecordWrite, StoredRecord } from '../../src/store/types.js';
import { LEASE_MS } from '../../src/pipeline/lease.js';

/** The store as one instance uses it: its kill switch and the leases it holds. */
export interface InstanceStore extends LedgerStore {
  /** The store behind the switch (shared with other instances, or this instance's own connection). */
  readonly real: LedgerStore;
  /** True once killed. */
  readonly dead: boolean;
  /** Every later call hangs; returns the leases held at the time of death (key and token). */
  kill(): Array<{ key: string; token: string }>;
  /** Renews every lease this live instance holds, as its heartbeat would. */
  beat(): Promise<void>;
  /** Keys whose lease this instance holds now. */
  held(): string[];
  /**
   * Resolves once this instance holds at most `count` leases (at once if it does), or rejects
   * after `ms` of real time: how the model waits for work a settled hook let go on.
   */
  whenHolding(count: number, ms: number): Promise<void>;
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** Wraps `real` for one instance. */
export function instanceStore(real: LedgerStore): InstanceStore {
  let dead = false;
  /** key -> token of every lease this instance took and has not given up. */
  const leases = new Map<string, string>();
  const waiters = new Set<() => void>();
  const changed = (): void => {
    for (const w of [...waiters]) w();
  };
  const drop = (key: string, token: string): void => {
    if (leases.get(key) === token) leases.delete(key);
    changed();
  };
  const guard = <T>(work: () => Promise<T>): Promise<T> => (dead ? never<T>() : work());
  return {
    real,
    get dead() {
      return dead;
    },
    kill() {
      dead = true;
      const held = [...leases].map(([key, token]) => ({ key, token }));
      leases.clear();
      changed();
      return held;
    },
    async beat() {
      if (dead) return;
      for (const [key, token] of [...leases]) {
        if (!(await real.extend(key, token, LEASE_MS))) drop(key, token);
      }
    },
    held: () => [...leases.keys()],
    whenHolding(count, ms) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (leases.size > count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `the instance still holds ${leases.size} leases (${[...leases.keys()].join(', ')}) after ${ms} ms`,
            ),
          );
        }, ms);
        waiters.add(check);
        check();
      });
    },
    acquire: (key: string, leaseMs: number, initial?: RecordWrite) =>
      guard(async (): Promise<LeaseResult> => {
        const got = await real.acquire(key, leaseMs, initial);
        if (got.state === 'acquired' && !dead) leases.set(key, got.token);
        return got;
      }),
    write: (key: string, token: string, record: RecordWrite, release: boolean) =>
      guard(async () => {
        const ok = await real.write(key, token, record, release);
        if (!ok || release) drop(key, token);
        return ok;
      }),
    release: (key: string, token: string) =>
      guard(async () => {
        drop(key, token);
        await real.release(key, token);
      }),
    remove: (key: string, token: string) =>
      guard(async () => {
        drop(key, token);
        await real.remove(key, token);
      }),
    extend: (key: string, token: string, leaseMs: number) =>
      guard(async () => {
        const ok = await real.extend(key, token, leaseMs);
        if (!ok) drop(key, token);
        return ok;
      }),
    get: (key: string) => guard((): Promise<StoredRecord | undefined> => real.get(key)),
    due: (now: number, limit: number) => guard(() => real.due(now, limit)),
    open: (limit: number) => guard(() => real.open(limit)),
  };
}
