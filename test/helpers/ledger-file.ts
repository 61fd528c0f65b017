/**
 * Reads a sqliteStore ledger file as it lies on disk, from outside any shop process: what a
 * killed process left, and what its successor made of it. Read-only, through its own
 * connection (WAL: a reader never blocks the shop that writes it).
 */
import Database from 'better-sqlite3';
import { DEFAULT_TABLE } from '../../src/store/sqlite-ledger-table.js';

/** One row of the ledger file, its record parsed. */
export interface LedgerFileRow {
  key: string;
  /** True while the record needs work (not closed). */
  open: boolean;
  /** Whether a lease token is written on the row (live or expired). */
  leased: boolean;
  /** The record, or undefined for a key holding only a lease. */
  record:
    | { op: string; state: string; hook: string; tid: string; moid: string; amount: number; reversalTried?: boolean }
    | undefined;
}

/** Every row of the ledger in `path`. */
export function readLedgerFile(path: string): LedgerFileRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(`SELECT key, value, open, lease FROM "${DEFAULT_TABLE}" ORDER BY key`).all() as {
      key: string;
      value: string | null;
      open: number;
      lease: string | null;
    }[];
    return rows.map((r) => ({
      key: r.key,
      open: r.open === 1,
      leased: r.lease !== null,
      record: r.value === null ? undefined : (JSON.parse(r.value) as LedgerFileRow['record']),
    }));
  } finally {
    db.close();
  }
}

/** The rows of `op` for order `moid` (a record names its order; a lease-only key names none). */
export function ledgerRowsOf(path: string, op: string, moid: string): LedgerFileRow[] {
  return readLedgerFile(path).filter((r) => r.record?.op === op && r.record.moid === moid);
}

/** The file's rows, one per line, for a failure message (records hold no secret). */
export function describeLedgerFile(path: string): string {
  return readLedgerFile(path)
    .map(
      (r) =>
        `${r.key}: ${r.open ? 'open' : 'closed'}${r.leased ? ', leased' : ''}, ${r.record ? `state ${r.record.state}, hook ${r.record.hook}, TID ${r.record.tid}` : 'lease only'}`,
    )
    .join('\n');
}
