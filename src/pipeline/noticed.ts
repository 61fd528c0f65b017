import type { ClientContext } from '../context.js';
import { tryKey } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';
import type { OperationKind } from './operation.js';
import { announceSettled, type SettledItem } from './settle.js';
import { tallyEntries } from './tally.js';
import { walk } from './walk.js';

/**
 * Settles the open operations of a tally that the gateway's own notice says took effect: each
 * record the notice names (`named`) whose outcome is still unknown is moved as a success of the
 * operation sent again would move it (kept), and reported like any settled record. A record in
 * flight, closed, or held by another holder is left alone: its holder learns its outcome itself.
 * This is how a partial cancel whose answer was lost, which is never sent again, settles when
 * the gateway's cancel notice for it arrives. Resolves to what it settled.
 */
export async function settleNoticed<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  tally: string,
  named: (record: LedgerRecord) => boolean,
): Promise<SettledItem[]> {
  const settled: SettledItem[] = [];
  for (const { key, record } of await tallyEntries(ctx, tally)) {
    if (record.state !== 'unknown' || !named(record)) continue;
    const taken = await tryKey(ctx, key, kind.keepMs);
    if (taken?.state !== 'leased') continue;
    if (taken.record?.state !== 'unknown') {
      await taken.lease.release();
      continue;
    }
    const end = await walk(
      ctx,
      kind,
      taken.lease,
      taken.record,
      { event: 'committed', patch: { reason: 'the gateway notified it', attention: false } },
      { hook: undefined },
    );
    if (!end.forgotten && end.record.state === 'recorded') settled.push(announceSettled(ctx, end.record, 'recorded'));
  }
  return settled;
}
