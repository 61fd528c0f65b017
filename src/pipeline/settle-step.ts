import type { ClientContext } from '../context.js';
import { type AnswerTable, readAnswer } from './answer-rules.js';
import { callGateway } from './gateway-call.js';
import type { LedgerRecord } from './ledger-record.js';
import type { ExchangeReading, GatewayHolding, GatewayRequest, OperationKind, Resend } from './operation.js';
import { markOf } from './operation-marks.js';
import { callOperation } from './operations.js';
import { announceAttention } from './settle-report.js';
import type { LedgerEvent } from './state-machine.js';
import type { Step } from './walk.js';

/** The event settlement starts a record's walk with. */
export async function firstStep(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  key: string,
  r: LedgerRecord,
): Promise<Step> {
  if (r.state === 'committed') return { event: 'hook-again' };
  if (kind.resend) {
    const again = kind.resend(r);
    // Nothing can tell before `until` (a payout's results, from 16:00 KST): it waits till then.
    if ('wait' in again) return { event: 'unconfirmed', patch: { reason: again.wait }, dueAt: again.until };
    if (!('unsafe' in again)) return resendStep(ctx, kind, r, again);
    // Only what its marks say can settle it now: the gateway's notice named it (it took
    // effect), or its request never left; without either it stays open, needing attention.
    const mark = await markOf(ctx, key, r);
    if (mark === 'unreadable') return { event: 'unconfirmed', patch: { reason: 'the ledger could not be read' } };
    if (mark === 'noticed')
      return { event: 'committed', patch: { reason: 'the gateway notified it', attention: false } };
    if (mark === 'unsent')
      return { event: 'gateway-none', patch: { reason: 'its request never left', attention: false } };
    // A record still `sending` at its first attempt may be a paused holder's, which is about to
    // find its lease taken and mark it unsent: one back-off before anyone is called.
    if (r.state === 'sending' && r.attempts === 1)
      return { event: 'unconfirmed', patch: { reason: 'waiting one back-off for word from its holder' } };
    if (!r.attention) announceAttention(ctx, { ...r, reason: again.unsafe }, `${kind.what}: ${again.unsafe}`);
    return { event: 'unconfirmed', patch: { reason: again.unsafe, attention: true } };
  }
  const holding = await kind.inquire(r).catch((): GatewayHolding => 'unanswered');
  // A request that died before any answer, with no hook to record payments: the shop never heard.
  const holds: LedgerEvent = r.state === 'sending' && r.hook === 'none' ? 'gateway-holds-unheard' : 'gateway-holds';
  // Unclear is reversed from any state, never kept: a hook must not record what may not exist.
  const unclear: LedgerEvent = r.state === 'sending' ? 'gateway-holds-unheard' : 'gateway-holds';
  const event: Record<GatewayHolding, LedgerEvent> = {
    holds,
    reversed: 'gateway-reversed',
    none: 'gateway-none',
    unanswered: 'gateway-unanswered',
    unclear,
  };
  // The gateway had committed what the dead request sent: kept, it is a recovered payment. Its
  // answer was never read: the record's own identifiers stand in for the answer's, so its hook
  // and a repeat see the payment's TID, MID and Moid (never empty).
  const patch =
    holding === 'unanswered'
      ? { reason: r.reason ?? 'the gateway could not be asked what it holds' }
      : holding === 'holds' && holds === 'gateway-holds' && r.state === 'sending'
        ? { recovered: true, fields: { ...r.fields, TID: r.tid, MID: r.mid, Moid: r.moid } }
        : {};
  return { event: event[holding], patch };
}

/**
 * Sends an operation that cannot be reversed (a full cancel) again, as it was, or asks after it
 * (a payout's result query): the gateway does it, or refuses it as done already (already
 * cancelled), which both complete it, with the answer's fields; another refusal means it never
 * happened. A request that never left, or whose answer is lost, leaves it open.
 */
async function resendStep(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  r: LedgerRecord,
  again: Resend,
): Promise<Step> {
  try {
    const reading = 'exchange' in again ? await again.exchange() : await resendPost(ctx, kind, r, again);
    if (reading.kind === 'success')
      return { event: 'committed', patch: { fields: { ...reading.fields }, resultCode: reading.code } };
    if (
      reading.kind === 'refused' ||
      reading.kind === 'refused-elsewhere' ||
      reading.kind === 'invalid' ||
      reading.kind === 'charged-before'
    ) {
      return (await again.doneAlready(reading.code))
        ? { event: 'committed' }
        : {
            event: 'declined',
            patch: { ...(reading.code ? { resultCode: reading.code } : {}), reason: reading.message },
          };
    }
    // Not sent, lost, or "retry later": nothing says whether the first sending took effect.
    return { event: 'unconfirmed' };
  } catch {
    return { event: 'unconfirmed' };
  }
}

/** A web-host operation sent again through the pipeline and read by its answer table. */
function resendPost(
  ctx: ClientContext,
  kind: OperationKind<unknown>,
  r: LedgerRecord,
  { request, table }: { request: GatewayRequest; table: AnswerTable },
): Promise<ExchangeReading> {
  return callGateway<ExchangeReading>(ctx, {
    operation: callOperation(kind.op),
    host: 'web',
    url: request.url,
    ids: { tid: r.tid, moid: r.moid },
    continuation: true,
    request: request.request,
    answer: (body) => readAnswer(body, table),
    lost: () => ({ kind: 'unknown', reason: 'no usable answer' }),
    notSent: () => ({ kind: 'retry', code: '', message: 'not sent' }),
    report: (x) => ({ outcome: x.kind === 'success' ? 'succeeded' : x.kind === 'unknown' ? 'unknown' : 'refused' }),
  });
}
