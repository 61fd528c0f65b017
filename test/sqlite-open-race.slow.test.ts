import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { moduleChild } from './helpers/module-child.js';

const STORE_MODULE = fileURLToPath(new URL('../src/store/sqlite-store.ts', import.meta.url));
const PROCESSES = 6;
const ROUNDS = 100;

/**
 * A process that, for each file path it is sent, opens a sqliteStore on it, reads one key, closes
 * it, and answers 'ok' or the failure's innermost message.
 */
function opener(): ChildProcess {
  return moduleChild(
    `const { sqliteStore } = await import(${JSON.stringify(STORE_MODULE)});
     await import('better-sqlite3');
     process.on('message', async (file) => {
       if (file === 'done') return process.disconnect();
       try {
         const store = sqliteStore({ path: file });
         await store.get('k');
         await store.close();
         process.send('ok');
       } catch (err) {
         let inner = err;
         while (inner && inner.cause) inner = inner.cause;
         process.send(String(inner));
       }
     });
     process.send('ready');`,
    'inherit',
  );
}

describe('sqliteStore: processes opening one new file at the same moment', () => {
  it(`${PROCESSES} processes opening each of ${ROUNDS} new files at once all open it (SQLite's busy-at-once answers to the WAL switch are tried again)`, async () => {
    const kids = Array.from({ length: PROCESSES }, opener);
    const next = (kid: ChildProcess): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const exited = (code: number | null): void => reject(new Error(`an opener exited (${String(code)})`));
        kid.once('exit', exited);
        kid.once('message', (m) => {
          kid.off('exit', exited);
          resolve(m);
        });
      });
    try {
      await Promise.all(kids.map(next));
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const dir = mkdtempSync(join(tmpdir(), 'nicepay-sqlite-race-'));
        try {
          const answers = kids.map(next);
          for (const kid of kids) kid.send(join(dir, 'ledger.db'));
          for (const answer of await Promise.all(answers)) if (answer !== 'ok') failures.push(String(answer));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      expect(failures).to.deep.equal([]);
      for (const kid of kids) kid.send('done');
      await Promise.all(kids.map((kid) => (kid.exitCode === null ? once(kid, 'exit') : undefined)));
    } finally {
      for (const kid of kids) if (kid.exitCode === null && kid.signalCode === null) kid.kill('SIGKILL');
    }
  });
});
