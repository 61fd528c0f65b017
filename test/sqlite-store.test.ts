import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { NicepayConfigError } from '../src/errors/index.js';
import { LEASE_ONLY_KEEP_MS } from '../src/store/ledger-args.js';
import { simulateSqliteResolver } from '../src/store/sqlite-module.js';
import {
  sqliteStore,
  SWEEP_BATCH,
  SWEEP_EVERY_MS,
  type SqliteDatabase,
  type SqliteStoreOptions,
} from '../src/store/sqlite-store.js';
import type { LedgerStore, LeaseResult } from '../src/store/types.js';
import { moduleChild } from './helpers/module-child.js';
import { describeStoreContract } from './helpers/store-contract.js';

const STORE_MODULE = fileURLToPath(new URL('../src/store/sqlite-store.ts', import.meta.url));

/** A fresh folder for one test's database files, and its removal. */
function scratch(): { dir: string; file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'nicepay-sqlite-'));
  return { dir, file: join(dir, 'ledger.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * better-sqlite3 reduced to what node:sqlite's DatabaseSync also has (exec, prepare, close;
 * no pragma(), no transaction()), as the store sees a DatabaseSync on Node 22.5+.
 */
function syncShaped(db: Database.Database): SqliteDatabase {
  return {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => {
      const st = db.prepare(sql);
      return { run: (...p) => st.run(...p), get: (...p) => st.get(...p), all: (...p) => st.all(...p) };
    },
    close: () => db.close(),
  };
}

function tokenOf(got: LeaseResult): string {
  if (got.state !== 'acquired') throw new Error(`expected the lease, got ${got.state}`);
  return got.token;
}

async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('sqliteStore', () => {
  describe('against the store contract: two connections to one file', () => {
    describeStoreContract(async () => {
      const disk = scratch();
      let now = 1_000_000;
      const a = sqliteStore({ path: disk.file, now: () => now });
      const b = sqliteStore({ path: disk.file, now: () => now });
      return {
        a,
        b,
        // The suite's leases and closed records last at most 60 s: passing them expires both.
        expireLease: async () => {
          now += 60_001;
        },
        expireClosed: async () => {
          now += 60_001;
        },
        close: async () => {
          await Promise.all([a.close!(), b.close!()]);
          disk.remove();
        },
      };
    });
  });

  describe("against the store contract: one in-memory connection of node:sqlite's shape, passed in", () => {
    describeStoreContract(async () => {
      let now = 1_000_000;
      const db = new Database(':memory:');
      const database = syncShaped(db);
      const a = sqliteStore({ database, now: () => now });
      const b = sqliteStore({ database, now: () => now });
      return {
        a,
        b,
        expireLease: async () => {
          now += 60_001;
        },
        expireClosed: async () => {
          now += 60_001;
        },
        close: async () => {
          await Promise.all([a.close!(), b.close!()]);
          db.close();
        },
      };
    });
  });

  describe('options', () => {
    let disk: ReturnType<typeof scratch>;
    beforeEach(() => {
      disk = scratch();
    });
    afterEach(() => disk.remove());

    function configError(options: unknown, option: string, says?: RegExp): void {
      let thrown: unknown;
      try {
        sqliteStore(options as SqliteStoreOptions);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, `no error for ${String(JSON.stringify(options))}`).to.be.instanceOf(NicepayConfigError);
      expect((thrown as NicepayConfigError).code).to.equal('NICEPAY_CONFIG_INVALID');
      expect((thrown as Error).message).to.include(`option ${option} `);
      if (says) expect((thrown as Error).message).to.match(says);
    }

    it('refuses bad options at creation, naming the option', () => {
      const db = new Database(':memory:');
      try {
        configError(undefined, 'sqliteStore options');
        configError({}, 'path');
        configError({ path: disk.file, database: db }, 'path', /not both/);
        configError({ path: '' }, 'path');
        configError({ path: 42 }, 'path');
        configError({ path: ':memory:' }, 'path', /memoryStore/);
        configError({ path: disk.dir }, 'path', /is a folder/);
        configError({ database: {} }, 'database');
        configError({ database: { prepare: () => undefined } }, 'database');
        configError({ path: disk.file, busyTimeoutMs: -1 }, 'busyTimeoutMs');
        configError({ path: disk.file, busyTimeoutMs: 1.5 }, 'busyTimeoutMs');
        configError({ path: disk.file, now: 5 }, 'now');
      } finally {
        db.close();
      }
    });

    it('refuses a table name that is not an SQL identifier (nothing is interpolated into SQL unchecked)', () => {
      for (const table of [
        '',
        'ledger; DROP TABLE orders',
        'a"b',
        '1ledger',
        'sqlite_master',
        'a'.repeat(64),
        'led-ger',
        '원장',
      ]) {
        configError({ path: disk.file, table }, 'table');
      }
      const store = sqliteStore({ path: disk.file, table: 'Shop_2_ledger' });
      return store.close!();
    });

    it('refuses a path in a folder that does not exist, naming the folder', () => {
      const missing = join(disk.dir, 'no-such-folder');
      configError({ path: join(missing, 'ledger.db') }, 'path');
      expect(() => sqliteStore({ path: join(missing, 'ledger.db') })).to.throw(
        `a file in an existing folder (${missing} is not one)`,
      );
    });

    it('refuses a closed or read-only database passed in', () => {
      const closed = new Database(':memory:');
      closed.close();
      configError({ database: closed }, 'database', /closed/);
      new Database(disk.file).close();
      const readonly = new Database(disk.file, { readonly: true });
      try {
        configError({ database: readonly }, 'database', /read-only/);
      } finally {
        readonly.close();
      }
    });

    it('refuses a table of the same name with other columns, and leaves it alone', () => {
      const db = new Database(disk.file);
      try {
        db.exec('CREATE TABLE orders (moid TEXT PRIMARY KEY, amount INTEGER)');
        db.prepare('INSERT INTO orders VALUES (?, ?)').run('order-1', 15_000);
        configError({ database: db, table: 'orders' }, 'table', /"orders" exists with other columns \(moid, amount\)/);
        expect(db.prepare('SELECT amount FROM orders').get()).to.deep.equal({ amount: 15_000 });
      } finally {
        db.close();
      }
    });

    it('without better-sqlite3 installed, a path store fails at creation saying npm install better-sqlite3', () => {
      const restore = simulateSqliteResolver(() => {
        throw Object.assign(new Error("Cannot find package 'better-sqlite3'"), { code: 'ERR_MODULE_NOT_FOUND' });
      });
      try {
        configError({ path: disk.file }, 'path', /npm install better-sqlite3/);
        // A database passed in needs no package of the store's.
        const db = new Database(':memory:');
        const store = sqliteStore({ database: syncShaped(db) });
        void store.close!();
        db.close();
      } finally {
        restore();
      }
    });
  });

  describe('its own file', () => {
    let disk: ReturnType<typeof scratch>;
    const stores: LedgerStore[] = [];
    const track = (store: LedgerStore): LedgerStore => {
      stores.push(store);
      return store;
    };
    beforeEach(() => {
      disk = scratch();
    });
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close!()));
      disk.remove();
    });

    it('creates the file, in WAL mode, and its open records survive a restart', async () => {
      const first = sqliteStore({ path: disk.file });
      const t = tokenOf(await first.acquire('moid-1', 60_000, { value: '승인 요청 중', open: true, dueAt: 5_000 }));
      await first.write('moid-1', t, { value: '망취소 중', open: true, dueAt: 7_000 }, true);
      await first.close!();

      const admin = new Database(disk.file, { readonly: true });
      try {
        expect(admin.pragma('journal_mode', { simple: true })).to.equal('wal');
      } finally {
        admin.close();
      }
      const restarted = track(sqliteStore({ path: disk.file }));
      expect(await restarted.due(10_000, 10)).to.deep.equal([
        { key: 'moid-1', value: '망취소 중', open: true, dueAt: 7_000 },
      ]);
    });

    it('sets the connection it is given to WAL, synchronous FULL and the busy timeout, and never closes it', async () => {
      const db = new Database(disk.file);
      try {
        const store = sqliteStore({ database: db, busyTimeoutMs: 1234 });
        expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
        expect(db.pragma('synchronous', { simple: true })).to.equal(2);
        expect(db.pragma('busy_timeout', { simple: true })).to.equal(1234);
        expect((await store.acquire('k', 1_000)).state).to.equal('acquired');
        await store.close!();
        expect(db.open).to.equal(true);
        expect(db.prepare('SELECT count(*) AS n FROM nicepay_ledger').get()).to.deep.equal({ n: 1 });
        expect((await rejection(store.get('k'))).message).to.match(/sqliteStore: get after close\(\)/);
      } finally {
        db.close();
      }
    });

    it('closes the file it opened: every method rejects after close()', async () => {
      const store = sqliteStore({ path: disk.file });
      expect((await store.acquire('k', 1_000)).state).to.equal('acquired');
      await store.close!();
      await store.close!();
      expect((await rejection(store.acquire('k', 1_000))).message).to.match(/sqliteStore: acquire after close\(\)/);
      // SQLite removes the write-ahead log when the file's last connection closes.
      expect(existsSync(`${disk.file}-wal`)).to.equal(false);
    });

    it('fails a method naming it, without a secret, when another process holds the write lock past busyTimeoutMs, and changes nothing', async () => {
      const store = track(sqliteStore({ path: disk.file, busyTimeoutMs: 0 }));
      expect((await store.acquire('k', 60_000, { value: 'card 4111-1111', open: true, dueAt: 0 })).state).to.equal(
        'acquired',
      );
      const other = new Database(disk.file, { timeout: 0 });
      other.exec('BEGIN IMMEDIATE');
      try {
        const err = await rejection(store.acquire('k2', 60_000, { value: 'card 4111-1111', open: true, dueAt: 0 }));
        expect(err.message).to.equal('sqliteStore: acquire failed');
        expect(String((err.cause as Error).message)).to.match(/locked|busy/i);
        expect(JSON.stringify(err) + err.message + String(err.cause)).to.not.include('4111');
      } finally {
        other.exec('ROLLBACK');
        other.close();
      }
      expect(await store.get('k2')).to.equal(undefined);
      expect((await store.acquire('k2', 60_000)).state).to.equal('acquired');
    });

    it('rejects a bad key, duration, record or limit naming the argument, before touching the file', async () => {
      const store = track(sqliteStore({ path: disk.file }));
      expect(await store.open(10)).to.deep.equal([]); // the file and its table exist
      const errs = await Promise.all([
        rejection(store.acquire('', 1_000)),
        rejection(store.acquire('k', 0)),
        rejection(store.acquire('k', 1_000, { value: 'v', open: true, dueAt: Number.NaN })),
        rejection(store.acquire('k', 1_000, { value: 'v', open: false, keepMs: -5 })),
        rejection(store.write('k', 't', { value: 7, open: true, dueAt: 0 } as never, true)),
        rejection(store.due(0, 0)),
        rejection(store.open(1.5)),
      ]);
      expect(errs.map((e) => e.constructor.name)).to.deep.equal([
        'TypeError',
        'RangeError',
        'RangeError',
        'RangeError',
        'TypeError',
        'RangeError',
        'RangeError',
      ]);
      expect(errs.map((e) => e.message)).to.deep.equal([
        'sqliteStore: key must be a non-empty string',
        'sqliteStore: leaseMs must be a positive number of milliseconds',
        'sqliteStore: initial.dueAt must be a finite number of milliseconds',
        'sqliteStore: initial.keepMs must be a positive number of milliseconds',
        'sqliteStore: record.value must be a string',
        'sqliteStore: limit must be a positive integer',
        'sqliteStore: limit must be a positive integer',
      ]);
      const admin = new Database(disk.file, { readonly: true });
      try {
        expect(admin.prepare('SELECT count(*) AS n FROM nicepay_ledger').get()).to.deep.equal({ n: 0 });
      } finally {
        admin.close();
      }
    });
  });

  describe('setting up a file other processes are setting up', () => {
    let disk: ReturnType<typeof scratch>;
    let db: Database.Database;
    beforeEach(() => {
      disk = scratch();
      db = new Database(disk.file);
    });
    afterEach(() => {
      db.close();
      disk.remove();
    });

    const busy = (): Error => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    // node:sqlite's shape of the same error: its primary code in errcode.
    const busyOfNodeSqlite = (): Error =>
      Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 });

    /**
     * The test's connection, whose switch to WAL throws `failure(n)` at its n-th try (from 1)
     * while that is an error, as SQLite does while another process creates the same file (busy
     * at once, no busy handler); `attempts` counts the tries.
     */
    function contended(failure: (attempt: number) => Error | undefined): SqliteDatabase & { attempts: number } {
      const shaped = syncShaped(db);
      const conn = {
        ...shaped,
        attempts: 0,
        exec(sql: string): unknown {
          if (/journal_mode = WAL/.test(sql)) {
            const err = failure(++conn.attempts);
            if (err) throw err;
          }
          return shaped.exec(sql);
        },
      };
      return conn;
    }

    it('a set-up answered busy without waiting is tried again within busyTimeoutMs, and the store opens in WAL mode', async () => {
      const conn = contended((n) => [busy(), busyOfNodeSqlite()][n - 1]);
      const store = sqliteStore({ database: conn, busyTimeoutMs: 60_000 });
      expect(conn.attempts).to.equal(3);
      expect(db.pragma('journal_mode', { simple: true })).to.equal('wal');
      expect((await store.acquire('k', 1_000, { value: 'v', open: true, dueAt: 0 })).state).to.equal('acquired');
      expect((await store.get('k'))?.value).to.equal('v');
      await store.close!();
    });

    it('a set-up still busy when busyTimeoutMs has passed fails at creation with the database option named and SQLite busy as the cause', () => {
      const conn = contended(busy);
      expect(() => sqliteStore({ database: conn, busyTimeoutMs: 0 }))
        .to.throw(NicepayConfigError, 'option database ')
        .with.property('cause')
        .that.has.property('code', 'SQLITE_BUSY');
      expect(conn.attempts).to.equal(1);
    });

    it('a file another connection keeps locked past busyTimeoutMs: every method rejects saying the ledger could not be set up in that file', async () => {
      db.exec('BEGIN EXCLUSIVE');
      try {
        const store = sqliteStore({ path: disk.file, busyTimeoutMs: 0 });
        const err = await rejection(store.get('k'));
        expect(err.message).to.equal(`sqliteStore: could not set up the ledger in ${disk.file}`);
        expect((err.cause as { code?: string }).code).to.match(/^SQLITE_BUSY/);
        expect((await rejection(store.acquire('k', 1_000))).message).to.equal(err.message);
      } finally {
        db.exec('ROLLBACK');
      }
    });

    it('a set-up failing for another reason than busy is not tried again', () => {
      const conn = contended(() => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }));
      expect(() => sqliteStore({ database: conn, busyTimeoutMs: 60_000 })).to.throw(NicepayConfigError);
      expect(conn.attempts).to.equal(1);
    });
  });

  describe('forgetting what expired', () => {
    let disk: ReturnType<typeof scratch>;
    let db: Database.Database;
    let now: number;
    let store: LedgerStore;
    const rows = (): number => (db.prepare('SELECT count(*) AS n FROM nicepay_ledger').get() as { n: number }).n;
    const put = async (key: string, keepMs: number): Promise<void> => {
      const t = tokenOf(await store.acquire(key, 1_000, { value: key, open: true, dueAt: 0 }));
      await store.write(key, t, { value: key, open: false, keepMs }, true);
    };

    beforeEach(async () => {
      disk = scratch();
      now = 0;
      store = sqliteStore({ path: disk.file, now: () => now });
      await store.get('created'); // the store opens its file asynchronously: let it create it
      db = new Database(disk.file, { readonly: true });
    });
    afterEach(async () => {
      db.close();
      await store.close!();
      disk.remove();
    });

    it('never answers a closed record after keepMs, even before a sweep deletes it', async () => {
      await put('done', 5_000);
      now += 5_000;
      expect(await store.get('done')).to.equal(undefined);
      expect(rows(), 'still on disk until the sweep').to.equal(1);
      expect((await store.acquire('done', 1_000)).state).to.equal('acquired');
    });

    it('a write sweeps expired records once a minute, SWEEP_BATCH rows at a time and again at the next write after a full batch, and never an open one', async () => {
      for (let i = 0; i < SWEEP_BATCH + 50; i++) await put(`closed-${i}`, 1_000);
      const t = tokenOf(await store.acquire('open', 1_000, { value: 'open', open: true, dueAt: 0 }));
      await store.release('open', t);
      await put('kept', 10 * SWEEP_EVERY_MS);
      expect(rows()).to.equal(SWEEP_BATCH + 52);

      now += SWEEP_EVERY_MS;
      await store.get('closed-0'); // a read never sweeps
      expect(rows()).to.equal(SWEEP_BATCH + 52);
      expect((await store.acquire('new-1', 1_000)).state).to.equal('acquired');
      expect(rows(), 'one batch').to.equal(52 + 1);
      expect((await store.acquire('new-2', 1_000)).state).to.equal('acquired');
      expect(rows(), 'a full batch may leave more: the next write sweeps again').to.equal(2 + 2);

      await put('short', 1_000);
      now += 1_000;
      await store.acquire('new-3', 1_000);
      expect(rows(), 'after a batch that was not full, no second sweep within the minute').to.equal(2 + 4);

      now += SWEEP_EVERY_MS;
      await store.acquire('new-4', 1_000);
      expect(db.prepare('SELECT key FROM nicepay_ledger ORDER BY key').pluck().all()).to.deep.equal([
        'kept',
        'new-1',
        'new-2',
        'new-3',
        'new-4',
        'open',
      ]);
    });

    it('expired rows do not pile up on disk when records close faster than one batch a minute', async () => {
      // 400 closings a minute, each kept a minute: at most about two minutes of them are live.
      for (let minute = 0; minute < 6; minute++) {
        for (let i = 0; i < 2 * SWEEP_BATCH; i++) {
          await put(`r-${minute}-${i}`, SWEEP_EVERY_MS);
          now += SWEEP_EVERY_MS / (2 * SWEEP_BATCH);
        }
      }
      expect(rows()).to.be.at.most(5 * SWEEP_BATCH);
    });

    it('a key that held only a lease stays writable by its late holder, and is swept a day after its lease', async () => {
      const late = tokenOf(await store.acquire('lease-only', 1_000));
      now += LEASE_ONLY_KEEP_MS;
      await store.acquire('other', 1_000); // sweeps: the lease-only key is not yet a day past its lease
      expect(await store.write('lease-only', late, { value: 'late but first', open: true, dueAt: 0 }, true)).to.equal(
        true,
      );
      expect((await store.get('lease-only'))?.value).to.equal('late but first');

      const dead = tokenOf(await store.acquire('dead-holder', 1_000));
      now += 1_000 + LEASE_ONLY_KEEP_MS;
      await store.acquire('another', 1_000);
      expect(db.prepare("SELECT count(*) AS n FROM nicepay_ledger WHERE key = 'dead-holder'").get()).to.deep.equal({
        n: 0,
      });
      expect(await store.write('dead-holder', dead, { value: 'too late', open: true, dueAt: 0 }, true)).to.equal(false);
    });
  });

  describe('processes sharing one file', function () {
    this.timeout(60_000);

    it("two processes hammering acquire on the same 40 keys get exactly one lease per key, and each key holds its winner's record", async () => {
      const disk = scratch();
      const KEYS = 40;
      const child = (): ChildProcess =>
        moduleChild(
          `const { sqliteStore } = await import(${JSON.stringify(STORE_MODULE)});
             const store = sqliteStore({ path: ${JSON.stringify(disk.file)} });
             await store.get('warm-up');
             process.send('ready');
             await new Promise((go) => process.once('message', go));
             const won = [];
             for (let round = 0; round < 10; round++) {
               for (let k = 0; k < ${KEYS}; k++) {
                 const got = await store.acquire('key-' + k, 60000, { value: String(process.pid), open: true, dueAt: k });
                 if (got.state === 'acquired') won.push(k);
               }
             }
             await store.close();
             process.send({ won }, () => process.disconnect());`,
        );
      const kids = [child(), child()];
      let log = '';
      for (const kid of kids) {
        kid.stdout!.on('data', (d: Buffer) => (log += d.toString()));
        kid.stderr!.on('data', (d: Buffer) => (log += d.toString()));
      }
      const message = (kid: ChildProcess): Promise<unknown> =>
        new Promise((resolve, reject) => {
          kid.once('message', resolve);
          kid.once('exit', (code) => reject(new Error(`child exited (${String(code)}) early:\n${log}`)));
        });
      try {
        await Promise.all(kids.map(message));
        const results = kids.map(message);
        for (const kid of kids) kid.send('go');
        const [one, two] = (await Promise.all(results)) as { won: number[] }[];
        await Promise.all(kids.map((kid) => (kid.exitCode === null ? once(kid, 'exit') : undefined)));

        const all = [...one!.won, ...two!.won].sort((x, y) => x - y);
        expect(all).to.deep.equal(Array.from({ length: KEYS }, (_, k) => k));
        const store = sqliteStore({ path: disk.file });
        try {
          for (const [kid, got] of [
            [kids[0]!, one!],
            [kids[1]!, two!],
          ] as const) {
            for (const k of got.won) expect((await store.get(`key-${k}`))?.value).to.equal(String(kid.pid));
          }
          expect((await store.open(100)).map((r) => r.dueAt)).to.deep.equal(Array.from({ length: KEYS }, (_, k) => k));
        } finally {
          await store.close!();
        }
      } finally {
        for (const kid of kids) if (kid.exitCode === null && kid.signalCode === null) kid.kill('SIGKILL');
        disk.remove();
      }
    });
  });
});
