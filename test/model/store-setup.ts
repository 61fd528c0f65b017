/**
 * The ledger stores the model runs on, each as a shop would deploy it, and what an instance's
 * death means for each (docs/reliability.md, "The money invariant, checked by a model"):
 *
 * - `memory`: one process. Its instances share the one memoryStore object; a restart is the
 *   whole process restarting, and a new memoryStore forgets every record, open ones included,
 *   by design. So the model restarts a memory shop only once nothing is open (quiescent).
 * - `sqlite`: one machine. Each instance has its own connection to the same file, as separate
 *   processes would; one can die while the other goes on.
 * - `redis`: a fleet. Each instance has its own client on one redis-server, under a prefix of
 *   the sequence's own.
 *
 * Leases and closed records run on the store's clock: the sandbox's virtual clock for memory and
 * SQLite; Redis keeps its own, so a dead instance's leases there are expired by hand once the
 * model's clock has passed their lifetime, as the crash-recovery test does.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { memoryStore } from '../../src/store/memory-store.js';
import { redisStore } from '../../src/store/redis-store.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { LedgerStore } from '../../src/store/types.js';

/** The stores the model runs on. */
export type StoreKind = 'memory' | 'sqlite' | 'redis';
/** Every store kind, in the order the runner reports them. */
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'sqlite', 'redis'];

/** The ledger of one sequence, on one kind of store. */
export interface StoreSetup {
  readonly kind: StoreKind;
  /** The store a new instance uses: the shared object (memory) or a new connection (sqlite, redis). */
  forInstance(): LedgerStore;
  /** memory: the process restarted, its store is a new, empty one. */
  restartMemory(): void;
  /** redis: frees leases whose holder died, as their expiry would. */
  expireLeases(leases: ReadonlyArray<{ key: string; token: string }>): Promise<void>;
  /** Closes every connection and removes every file it made. */
  close(): Promise<void>;
}

/** Creates the ledger of one sequence; `now` is the store clock for memory and SQLite. */
export async function openStores(
  kind: StoreKind,
  now: () => number,
  redisUrl: string | undefined,
  tag: string,
): Promise<StoreSetup> {
  const made: LedgerStore[] = [];
  const track = (s: LedgerStore): LedgerStore => {
    made.push(s);
    return s;
  };
  const closeAll = async (): Promise<void> => {
    await Promise.all(made.splice(0).map((s) => s.close?.().catch(() => undefined)));
  };
  if (kind === 'memory') {
    let current = memoryStore({ now });
    return {
      kind,
      forInstance: () => current,
      restartMemory: () => {
        current = memoryStore({ now });
      },
      expireLeases: async () => undefined,
      close: async () => undefined,
    };
  }
  if (kind === 'sqlite') {
    // On tmpfs when there is one: the same file semantics without a disk's fsync per write.
    const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'nicepay-model-'));
    const path = join(dir, 'ledger.db');
    return {
      kind,
      forInstance: () => track(sqliteStore({ path, now })),
      restartMemory: () => undefined,
      expireLeases: async () => undefined,
      async close() {
        await closeAll();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!redisUrl) throw new Error('the redis store kind needs a redis-server (startRedisServer)');
  const prefix = `model${tag}:`;
  const admin = createClient({ url: redisUrl });
  await admin.connect();
  return {
    kind,
    forInstance: () => track(redisStore({ url: redisUrl, prefix })),
    restartMemory: () => undefined,
    async expireLeases(leases) {
      for (const { key, token } of leases) {
        const lease = `${prefix}{${key}}:lease`;
        if ((await admin.get(lease)) === token) await admin.del(lease);
      }
    },
    async close() {
      await closeAll();
      for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
        if (keys.length > 0) await admin.del(keys);
      }
      await admin.quit();
    },
  };
}
