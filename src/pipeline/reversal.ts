import type { ClientContext } from '../context.js';
import { cancelRefusalReason } from '../wire/cancel-codes.js';
import { readAnswer } from './answer-rules.js';
import { callGateway } from './gateway-call.js';
import type { LedgerRecord } from './ledger-record.js';
import type { ReversalRequest } from './operation.js';

/** What one reversal did: confirmed, the gateway holds nothing to reverse, or not confirmed. */
export type ReversalOutcome = 'reversal-confirmed' | 'gateway-none' | 'reversal-failed';

/**
 * Sends one reversal of `record` (a net cancel within its window, or a cancel of the whole
 * amount) as a continuation of the work in flight, and reads its answer by the reversal's own
 * table, as every answer is read: confirmed by a success the table verifies (signed, naming the
 * TID, the whole amount), or by a refusal saying the TID is already cancelled (2013, 2015);
 * "no such transaction" (2012) means nothing was ever committed. Anything else (another code,
 * a refusal naming another TID, a lost or unreadable answer, an unsigned success) is not
 * confirmed: settlement sends it again. Never throws.
 */
export async function reverse(
  ctx: ClientContext,
  record: LedgerRecord,
  reversal: ReversalRequest,
): Promise<ReversalOutcome> {
  try {
    return await callGateway<{ outcome: ReversalOutcome; code?: string }>(ctx, {
      operation: 'net-cancel',
      host: 'web',
      url: reversal.url,
      ids: { tid: record.tid, moid: record.moid },
      continuation: true,
      request: reversal.request,
      answer(body) {
        const reading = readAnswer(body, reversal.table);
        const code = 'code' in reading ? reading.code : undefined;
        if (reading.kind === 'success') return { outcome: 'reversal-confirmed', code };
        if (reading.kind !== 'refused') return { outcome: 'reversal-failed', code };
        const reason = cancelRefusalReason(reading.code);
        if (reason === 'already-cancelled') return { outcome: 'reversal-confirmed', code };
        return { outcome: reason === 'not-found' ? 'gateway-none' : 'reversal-failed', code };
      },
      lost: () => ({ outcome: 'reversal-failed' }),
      notSent: () => ({ outcome: 'reversal-failed' }),
      report: (r) => ({ outcome: r.outcome === 'reversal-failed' ? 'unknown' : 'succeeded', resultCode: r.code }),
    }).then((r) => r.outcome);
  } catch {
    return 'reversal-failed';
  }
}
