/**
 * The books of the shop in test/fixtures/sqlite-shop.ts, in an SQLite file of its own: what
 * its hooks saw (every run, with its start and end), the payments it recorded (idempotent by
 * TID, as docs/hooks.md asks), and its customers' billing keys. The shop writes them; the
 * restart tests read them once the shop was killed or stopped, to compare with the sandbox.
 */
import Database from 'better-sqlite3';

/** One run of a hook, as the shop logged it. */
export interface HookRun {
  op: string;
  tid: string;
  moid: string;
  /** The process that ran it. */
  pid: number;
  /** Wall clock (ms) when the hook started and returned; `endedAt` null: its process died in it. */
  startedAt: number;
  endedAt: number | null;
}

/** One payment the shop recorded. Unique by (op, tid, moid): a TID seen for two orders shows as two rows. */
export interface PaidRow {
  op: string;
  tid: string;
  moid: string;
  amount: number;
}

/** The shop's books over one SQLite connection. */
export interface ShopBook {
  /** Logs a hook's start; answers the run's id for {@link ShopBook.endRun}. */
  startRun(op: string, tid: string, moid: string): number;
  endRun(id: number): void;
  /** Records a payment; recording it again changes nothing. */
  recordPaid(row: PaidRow): void;
  saveCard(customer: string, bid: string): void;
  cardOf(customer: string): string | undefined;
  runs(): HookRun[];
  paid(): PaidRow[];
  close(): void;
}

/**
 * Opens (creating when absent) the books in `path`. `readonly` opens an existing file for the
 * test to read. Several processes may write one file: WAL, and a busy wait of 5 s.
 */
export function openShopBook(path: string, readonly = false): ShopBook {
  const db = new Database(path, { readonly, fileMustExist: readonly });
  if (!readonly) {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS hook_runs (
      id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, tid TEXT NOT NULL, moid TEXT NOT NULL,
      pid INTEGER NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS paid (
      op TEXT NOT NULL, tid TEXT NOT NULL, moid TEXT NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (op, tid, moid)
    );
    CREATE TABLE IF NOT EXISTS cards (customer TEXT PRIMARY KEY, bid TEXT NOT NULL);`);
  }
  const exists = (table: string): boolean =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  return {
    startRun(op, tid, moid) {
      const info = db
        .prepare('INSERT INTO hook_runs (op, tid, moid, pid, started_at) VALUES (?, ?, ?, ?, ?)')
        .run(op, tid, moid, process.pid, Date.now());
      return Number(info.lastInsertRowid);
    },
    endRun(id) {
      db.prepare('UPDATE hook_runs SET ended_at = ? WHERE id = ?').run(Date.now(), id);
    },
    recordPaid({ op, tid, moid, amount }) {
      db.prepare('INSERT INTO paid (op, tid, moid, amount) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
        op,
        tid,
        moid,
        amount,
      );
    },
    saveCard(customer, bid) {
      db.prepare(
        'INSERT INTO cards (customer, bid) VALUES (?, ?) ON CONFLICT (customer) DO UPDATE SET bid = excluded.bid',
      ).run(customer, bid);
    },
    cardOf(customer) {
      return (db.prepare('SELECT bid FROM cards WHERE customer = ?').get(customer) as { bid: string } | undefined)?.bid;
    },
    runs() {
      if (!exists('hook_runs')) return [];
      return db
        .prepare('SELECT op, tid, moid, pid, started_at AS startedAt, ended_at AS endedAt FROM hook_runs ORDER BY id')
        .all() as HookRun[];
    },
    paid() {
      if (!exists('paid')) return [];
      return db.prepare('SELECT op, tid, moid, amount FROM paid ORDER BY rowid').all() as PaidRow[];
    },
    close: () => db.close(),
  };
}

/**
 * Pairs of runs of one TID that ran at the same time. A run whose process died has no end:
 * `deathOf(pid)` says when that process was seen dead (it ran until then at the latest).
 */
export function overlappingRuns(runs: readonly HookRun[], deathOf: (pid: number) => number): [HookRun, HookRun][] {
  const end = (r: HookRun): number => r.endedAt ?? deathOf(r.pid);
  const pairs: [HookRun, HookRun][] = [];
  runs.forEach((a, i) => {
    for (const b of runs.slice(i + 1))
      if (a.tid === b.tid && a.startedAt < end(b) && b.startedAt < end(a)) pairs.push([a, b]);
  });
  return pairs;
}
