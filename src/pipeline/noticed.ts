import type { ClientContext } from '../context.js';
import { tryKey } from './ledger.js';
import { markOperation } from './operation-marks.js';
import { CLOSED_STATES, type LedgerRecord } from './ledger-record.js';
import type { OperationKind } from './operation.js';
import { announceSettled, type SettledItem } from './settle-report.js';
import { tallyEntries } from './tally.js';
import { walk } from './walk.js';

/**
 * Settles the open operations of a tally that the gateway's own notice says took effect: each
 * record the notice names (`named`) whose outcome is still unknown is moved as a success of the
 * operation sent again would move it (kept), and reported like any settled record. A named
 * record that cannot be moved now (its request still in flight, or another holder on it) gets a
 * mark instead, written before the notice is answered, so its settlement keeps it whenever it
 * comes (a notice can beat the answer, and the gateway does not send it again once answered
 * OK). This is how a partial cancel whose answer was lost, which is never sent again, settles.
 * Resolves to what it settled now.
 */
export async function settleNoticed<R>(
  ctx: ClientContext,
  kind: OperationKind<R>,
  tally: string,
  named: (record: LedgerRecord) => boolean,
): Promise<SettledItem[]> {
  const settled: SettledItem[] = [];
  for (const { key, record } of await tallyEntries(ctx, tally)) {
    if (CLOSED_STATES.has(record.state) || !named(record)) continue;
    if (record.state === 'unknown') {
      const taken = await tryKey(ctx, key, kind.keepMs);
      if (taken?.state === 'closed') continue;
      if (taken?.state === 'leased' && taken.record?.state === 'unknown') {
        const end = await walk(
          ctx,
          kind,
          taken.lease,
          taken.record,
          { event: 'committed', patch: { reason: 'the gateway notified it', attention: false } },
          { hook: undefined },
        );
        if (!end.forgotten && end.record.state === 'recorded') {
          settled.push(announceSettled(ctx, end.record, 'recorded'));
          continue;
        }
        // Its move could not be written: the mark below keeps the gateway's word for settlement.
      } else if (taken?.state === 'leased') {
        await taken.lease.release();
        if (taken.record && CLOSED_STATES.has(taken.record.state)) continue;
      }
    }
    await markOperation(ctx, 'noticed', key, record, kind.keepMs);
  }
  return settled;
}
