import type { ClientContext } from '../context.js';
import { parseAmount } from '../wire/amount.js';
import { CANCEL_DONE_CODES, cancelRefusalReason } from '../wire/cancel-codes.js';
import { hexEquals } from '../wire/hash.js';
import { ownField } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { readAnswerFields, readResultCode } from './answer.js';
import { callGateway } from './gateway-call.js';
import type { LedgerRecord } from './ledger-record.js';
import type { GatewayRequest } from './operation.js';

/** What one reversal did: confirmed, the gateway holds nothing to reverse, or not confirmed. */
export type ReversalOutcome = 'reversal-confirmed' | 'gateway-none' | 'reversal-failed';

/**
 * Sends one reversal of `record` (a net cancel within its window, or a cancel of the whole
 * amount) as a continuation of the work in flight, and reads its cancel-shaped answer
 * (gateway-facts, Net cancel; lifecycle-facts §2): confirmed only by exactly 2001 / 2211 with a
 * Signature = sha256(TID + MID + CancelAmt + key) over a CancelAmt equal to the whole amount,
 * or by "already cancelled" (2013, 2015); "no such transaction" (2012) means nothing was ever
 * committed. Anything else (another code, a lost or unreadable answer, an unsigned 2001) is not
 * confirmed: settlement sends it again. Never throws.
 */
export async function reverse(ctx: ClientContext, record: LedgerRecord, reversal: GatewayRequest): Promise<ReversalOutcome> {
  const { config } = ctx;
  try {
    return await callGateway<{ outcome: ReversalOutcome; code?: string }>(ctx, {
      operation: 'net-cancel',
      host: 'web',
      url: reversal.url,
      ids: { tid: record.tid, moid: record.moid },
      continuation: true,
      request: reversal.request,
      answer(body) {
        const read = readAnswerFields(body, 'utf-8', 'JSON');
        if (!read.ok) return { outcome: 'reversal-failed' };
        const reading = readResultCode(read.raw);
        if (reading.kind !== 'code') return { outcome: 'reversal-failed' };
        const { code } = reading;
        const reason = cancelRefusalReason(code);
        if (reason === 'already-cancelled') return { outcome: 'reversal-confirmed', code };
        if (reason === 'not-found') return { outcome: 'gateway-none', code };
        if (!CANCEL_DONE_CODES.has(code)) return { outcome: 'reversal-failed', code };
        const cancelAmt = ownField(read.raw, 'CancelAmt') ?? '';
        const signed = hexEquals(cancelResponseSignature(record.tid, config.mid, cancelAmt, config.merchantKey), ownField(read.raw, 'Signature') ?? '');
        return { outcome: signed && ownField(read.raw, 'TID') === record.tid && parseAmount(cancelAmt) === record.amount ? 'reversal-confirmed' : 'reversal-failed', code };
      },
      lost: () => ({ outcome: 'reversal-failed' }),
      notSent: () => ({ outcome: 'reversal-failed' }),
      report: (r) => ({ outcome: r.outcome === 'reversal-failed' ? 'unknown' : 'succeeded', resultCode: r.code }),
    }).then((r) => r.outcome);
  } catch {
    return 'reversal-failed';
  }
}
