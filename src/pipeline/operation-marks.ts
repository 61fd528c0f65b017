import type { ClientContext } from '../context.js';
import { writeOnce } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';

/**
 * What settlement may learn of an operation that the gateway cannot be asked about again (a
 * partial cancel is never sent again, and the status inquiry does not show it), kept beside
 * its record under a key of its own:
 * - `noticed`: the gateway's notice named it while its record could not be moved (its request
 *   in flight, or another holder on it): it took effect. The gateway sends no notice again once
 *   it was answered OK, so the mark is written before that answer.
 * - `unsent`: its request never left: the holder that wrote the record lost its lease before
 *   sending (the fence in run-operation.ts), and nobody else sends a first request.
 * A mark names the record it was made for by its `at` (a later record under the same key is
 * another operation), and is never dropped by a full store: it is the only word on its record.
 */
export type OperationMark = 'noticed' | 'unsent';

const MARKS: readonly OperationMark[] = ['noticed', 'unsent'];

/** Marks `record` (under `key`) for `keepMs`. Rejects with what the store rejects with. */
export async function markOperation(
  ctx: ClientContext,
  mark: OperationMark,
  key: string,
  record: LedgerRecord,
  keepMs: number,
): Promise<void> {
  await writeOnce(ctx, `${mark}:${key}`, String(record.at), keepMs, false);
}

/**
 * The mark left for `record` under `key`, if any; `unreadable` when the store does not answer
 * (nothing can be said then: the record stays as it is, for the next attempt).
 */
export async function markOf(
  ctx: ClientContext,
  key: string,
  record: LedgerRecord,
): Promise<OperationMark | 'unreadable' | undefined> {
  try {
    for (const mark of MARKS) {
      if ((await ctx.config.store.get(`${mark}:${key}`))?.value === String(record.at)) return mark;
    }
    return undefined;
  } catch {
    return 'unreadable';
  }
}
