/**
 * redisStore's due index: a sorted set `${prefix}due` of ledger keys scored by dueAt, read by
 * due() and open().
 *
 * In Redis Cluster the index lives in one slot and each record in its own, so no script can
 * change a record and the index together. The index is kept correct without that:
 *
 * - **It holds every open key (a superset).** A key is added *before* its record becomes open
 *   (only a lease holder opens a record, and it adds first) and removed only *after* it closed
 *   or was removed, by {@link DueIndex.unindex}, which removes and *then* looks at the record
 *   again: if by then the key is open, or has a holder who may open it, it is added back. An
 *   opener that took its lease after that second look adds its key after the removal; one that
 *   took it before is seen by the second look. So no interleaving leaves an open key out, and
 *   a crash between two steps leaves at most an extra entry. Extra entries (a process died
 *   after closing, an acquirer's add whose write failed) are harmless: due() and open() read
 *   each listed record and unindex the ones that are not open and have no holder.
 * - **A score is at most the record's dueAt**, so due(now) finds every record due by now. The
 *   add before a write only lowers a score (ZADD LT); after the write succeeds the score is
 *   raised to the dueAt written (ZADD XX GT). Only that raise can overshoot, when it lands after
 *   the next holder already moved the record earlier: the record then comes due at the time
 *   the first writer set, never later, and open() lowers the score again when it sees it.
 *
 * Every add and lowering goes through {@link IndexAccess.add}, which a store waiting for
 * replicas makes as durable as a record write: a failover cannot drop the entry of a record
 * written after it. A lost removal or raise only leaves an extra entry or an early score.
 */
import type { Peek, Script } from './redis-scripts.js';
import { INDEX_PAGE, text } from './redis-scripts.js';
import type { StoredRecord } from './types.js';

/** What the index needs of the store: plain commands, its scripts, and a look at one key. */
export interface IndexAccess {
  /** The index's key. */
  key: string;
  /** Sends one command whose key is the index. */
  command(args: string[]): Promise<unknown>;
  /** Runs a script on the index. */
  script(s: Script, args: string[]): Promise<unknown>;
  /**
   * Adds `member` with `score`, or lowers its score (ZADD LT), acknowledged by the replicas the
   * store waits for; rejects when they did not acknowledge it.
   */
  add(member: string, score: string): Promise<void>;
  /** The ledger key as it is now. */
  peek(key: string): Promise<Peek>;
}

/** Bounds one step of a listing (a page's round trips): rejects when it takes too long. */
export type Bound = <T>(work: Promise<T>) => Promise<T>;

/** Members read per page of the index. */
const PAGE = 100;

/** The index operations the store's methods call. */
export interface DueIndex {
  /** Before a holder writes an open record with `dueAt`: adds the key, or lowers its score. */
  beforeOpen(key: string, dueAt: number): Promise<void>;
  /** After that write succeeded: raises the score to `dueAt` (the key stays if it was removed). */
  afterOpen(key: string, dueAt: number): Promise<void>;
  /** Removes the key, unless a second look finds it open or held (then it is added back). */
  unindex(key: string): Promise<void>;
  /**
   * Up to `limit` open records listed with a score up to `maxScore` that `pick` keeps, earliest
   * dueAt first (then by key); unindexes the stale entries it met. Each page (its read, then the
   * reads of its records at once) is bounded by `bound`, so a long index takes as many bounds as
   * it has pages; the clean-up is best effort (an entry it could not fix is met again next time).
   */
  list(
    maxScore: number,
    limit: number,
    pick: (p: Peek & { record: StoredRecord }) => boolean,
    bound: Bound,
  ): Promise<StoredRecord[]>;
}

const score = (n: number): string =>
  n === Number.NEGATIVE_INFINITY ? '-inf' : n === Number.POSITIVE_INFINITY ? '+inf' : String(n);
const earliest = (x: StoredRecord, y: StoredRecord): number =>
  x.dueAt - y.dueAt || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);

/** The due index reached through `io`. */
export function dueIndex(io: IndexAccess): DueIndex {
  const index: DueIndex = {
    async beforeOpen(key, dueAt) {
      await io.add(key, score(dueAt));
    },
    async afterOpen(key, dueAt) {
      await io.command(['ZADD', io.key, 'XX', 'GT', score(dueAt), key]);
    },
    async unindex(key) {
      await io.command(['ZREM', io.key, key]);
      const now = await io.peek(key);
      if (now.record?.open) await io.add(key, score(now.record.dueAt));
      else if (now.held) await io.add(key, '-inf');
    },
    async list(maxScore, limit, pick, bound) {
      const found: StoredRecord[] = [];
      const stale: string[] = [];
      const lower: [string, number][] = [];
      for (let offset = 0; ; offset += PAGE) {
        const page = pairs(await bound(io.script(INDEX_PAGE, [score(maxScore), String(offset), String(PAGE)])));
        // Scores are at most each dueAt: once `limit` records are found no later than this
        // page's lowest score, nothing further in the index can come before them.
        if (page.length === 0 || (found.length >= limit && found.sort(earliest)[limit - 1]!.dueAt <= page[0]![1]))
          break;
        const peeks = await bound(Promise.all(page.map(([key]) => io.peek(key))));
        peeks.forEach((p, i) => {
          const [key, at] = page[i]!;
          if (p.record?.open) {
            if (p.record.dueAt < at) lower.push([key, p.record.dueAt]);
            if (pick(p as Peek & { record: StoredRecord })) found.push(p.record);
          } else if (!p.held) stale.push(key);
        });
        if (page.length < PAGE) break;
      }
      await bound(
        Promise.all([
          ...stale.map((key) => index.unindex(key)),
          ...lower.map(([key, dueAt]) => io.add(key, score(dueAt))),
        ]),
      ).catch(() => undefined);
      return found.sort(earliest).slice(0, limit);
    },
  };
  return index;
}

/** A flat {member, score, ...} reply as [member, score] pairs. */
function pairs(reply: unknown): [string, number][] {
  if (!Array.isArray(reply)) throw new Error('redisStore: unexpected reply from the due index');
  const out: [string, number][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([text(reply[i]), Number(text(reply[i + 1]))]);
  return out;
}
