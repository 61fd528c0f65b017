import {
  type NetCancelOutcome,
  type NicepayError,
  NicepayGatewayError,
  NicepayHookError,
  type Settlement,
} from '../errors/index.js';
import type { LedgerRecord, UnknownCode } from './ledger-record.js';

/** How the shop learns what settlement made of it, for messages. */
const HOW_TO_LEARN =
  'settle() / the automatic settler settles it by what the gateway holds or says of it (docs/reliability.md, "Settlement"); the settle report and the express-nicepay:settle channel tell the result';

/**
 * The one factory from a ledger record to the error its state means, for the request that
 * ended there and for every repeat: an unknown outcome being settled, a reversal done, a
 * failed or unfinished hook. `what` names the operation ("approval", "key-in"...). A record
 * whose state has a result never comes here (the kind builds it).
 */
export function outcomeError(what: string, r: LedgerRecord, duplicate: boolean): NicepayError {
  const ids = { tid: r.tid, moid: r.moid, ...(r.resultCode ? { resultCode: r.resultCode } : {}) };
  const again = duplicate ? ' (this operation was submitted before; nothing was sent now)' : '';
  const why = r.reason ?? 'no usable answer';
  const subject = `${what} of order ${r.moid} (TID ${r.tid})`;
  const { settlement, netCancel } = settlementOf(r);
  const hookFailed = r.hook === 'rejected' || r.hook === 'hung';
  if (r.state === 'committed') {
    // The gateway committed and the shop's hook has not resolved: kept, never reversed under it.
    const running =
      r.hook === 'hung'
        ? 'onApproved has not settled; it is not run again while it runs, and runs again (a repeat of this operation, or the settler) until it resolves'
        : r.hook === 'rejected'
          ? 'onApproved, run again, rejected while an earlier run may still be under way; it is tried again (a repeat of this operation, or the settler), and the payment is reversed if it still rejects once no earlier run can be'
          : 'onApproved could not run to the end, and runs again (a repeat of this operation, or the settler) until it resolves';
    return new NicepayHookError(
      'NICEPAY_HOOK_FAILED',
      `${subject}: ${why}; the payment was NOT reversed: ${running}${again}`,
      {
        ...ids,
        netCancel: 'not-attempted',
        settlement: 'pending',
      },
    );
  }
  const outcome =
    settlement === 'pending'
      ? `the payment is being settled: ${HOW_TO_LEARN}`
      : settlement === 'reversed'
        ? 'it was reversed: nothing stays charged'
        : 'the gateway never committed it: nothing was charged';
  if (hookFailed) {
    return new NicepayHookError('NICEPAY_HOOK_FAILED', `${subject}: onApproved failed (${why}); ${outcome}${again}`, {
      ...ids,
      netCancel,
      settlement,
    });
  }
  const code: UnknownCode = r.error ?? 'NICEPAY_OUTCOME_UNKNOWN';
  return new NicepayGatewayError(code, `${subject}: ${why}; ${outcome}${again}`, { ...ids, netCancel, settlement });
}

/** Where a record's settlement stands, and what became of its reversal. */
function settlementOf(r: LedgerRecord): { settlement: Settlement; netCancel: NetCancelOutcome } {
  switch (r.state) {
    case 'reversed':
      return { settlement: 'reversed', netCancel: 'succeeded' };
    case 'never-charged':
      // Nothing was there to reverse: whatever a reversal did, none was needed.
      return { settlement: 'never-charged', netCancel: 'not-attempted' };
    case 'recorded':
      return { settlement: 'kept', netCancel: 'not-attempted' };
    default:
      return { settlement: 'pending', netCancel: r.reversalTried ? 'failed' : 'not-attempted' };
  }
}
