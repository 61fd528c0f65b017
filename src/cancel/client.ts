import type { ClientContext } from '../context.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { NicepayGatewayError } from '../errors/index.js';
import { admit, callGateway, type RecordCodec, runFlowOnce } from '../pipeline/index.js';
import { askStatus } from '../status/client.js';
import { CANCEL_PATH } from '../wire/lifecycle-fields.js';
import { readCancelAnswer } from './answer.js';
import { buildCancelForm, type NormalizedCancel, validateCancel } from './request.js';
import type { CancelInput, CancelResult } from './types.js';

/** How long a cancel's result answers repeats of its (TID, amount, key). */
export const CANCEL_RESULT_TTL_MS = 24 * 60 * 60 * 1000;

/** What the store keeps: the result, or that the outcome is unknown. */
type CancelRecord = { kind: 'result'; result: CancelResult } | { kind: 'unknown'; message: string; code?: string };

/** Cancels and refunds; see {@link Nicepay.cancel}. */
export type CancelFn = (input: CancelInput) => Promise<CancelResult>;

/**
 * The cancel client (lifecycle-facts §2): validates, then sends each (TID, amount, key) at most
 * once through the store (key {@link cancelStoreKey}). A cancelled, refunded or
 * unknown outcome is kept for a day; a refusal, a retry answer or an unsent call keeps nothing,
 * since nothing happened and the shop may try again. An unknown outcome asks the status inquiry
 * (advice, not proof) and says what it reported.
 */
export function createCancelClient(ctx: ClientContext): CancelFn {
  const { config } = ctx;
  const url = gatewayEndpoint(config.baseUrl, CANCEL_PATH);
  const lockTtlMs = 2 * (config.connectMs + config.responseMs) + 10_000;

  /** One cancel through the pipeline; returns what to keep, or throws when nothing was done. */
  function send(n: NormalizedCancel): Promise<CancelRecord> {
    return callGateway<CancelRecord>(ctx, {
      operation: 'cancel',
      host: 'web',
      url,
      ids: { tid: n.tid, moid: n.moid },
      continuation: true,
      request: () => ({ body: buildCancelForm(config, n), contentType: 'application/x-www-form-urlencoded; charset=euc-kr' }),
      notSent(failure) {
        throw new NicepayGatewayError('NICEPAY_GATEWAY_UNREACHABLE', `cancel of TID ${n.tid} was not sent: ${failure.message}; nothing was cancelled, it may be retried`, { tid: n.tid, moid: n.moid, cause: failure });
      },
      lost: (failure) => ({ kind: 'unknown', message: `no usable answer (${failure.message})` }),
      answer(body) {
        const answer = readCancelAnswer(body, { tid: n.tid, mid: config.mid, moid: n.moid, cancelMoid: n.cancelMoid, amount: n.amount, merchantKey: config.merchantKey });
        if (answer.kind === 'retry') {
          throw new NicepayGatewayError('NICEPAY_RETRY_LATER', `cancel of TID ${n.tid} was not done: the gateway answered ${answer.code} (${answer.message}); nothing was cancelled, retry later`, { tid: n.tid, moid: n.moid, resultCode: answer.code });
        }
        if (answer.kind === 'unverifiable') return { kind: 'unknown', message: answer.reason, ...(answer.code ? { code: answer.code } : {}) };
        // A refusal changed nothing: keep nothing, so the shop may correct and retry with the same key.
        return { kind: 'result', result: answer.result };
      },
      report: (r) =>
        r.kind === 'unknown'
          ? { outcome: 'unknown', resultCode: r.code }
          : { outcome: r.result.status === 'refused' ? 'refused' : 'succeeded', resultCode: r.result.code },
    });
  }

  async function run(n: NormalizedCancel): Promise<CancelResult> {
    let once;
    try {
      once = await runFlowOnce(ctx, {
        key: cancelStoreKey(config.mid, n),
        lockTtlMs,
        resultTtlMs: CANCEL_RESULT_TTL_MS,
        codec: CANCEL_CODEC,
        ids: { tid: n.tid, moid: n.moid },
        noResult: () => new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', `cancel of TID ${n.tid} produced no result; check it with status()`, { tid: n.tid, moid: n.moid }),
        notStored: 'cancel result not stored: a repeat may be sent again',
      }, async () => {
        const record = await send(n);
        // A refusal changed nothing: it leaves the key free (run-once releases it on a throw).
        if (record.kind === 'result' && record.result.status === 'refused') throw new NotKept(record.result);
        return record;
      });
    } catch (err) {
      if (err instanceof NotKept) return err.result;
      throw err;
    }
    const { record, duplicate } = once;
    if (record.kind === 'unknown') throw await unknownError(n, record, duplicate);
    return duplicate && record.result.status !== 'refused' ? { ...record.result, duplicate: true } : record.result;
  }

  /** The outcome-unknown error, saying what the status inquiry reports (advice, not proof). */
  async function unknownError(n: NormalizedCancel, record: Extract<CancelRecord, { kind: 'unknown' }>, duplicate: boolean): Promise<NicepayGatewayError> {
    let advice = 'the status inquiry could not be asked';
    try {
      const s = await askStatus(ctx, n.tid, true);
      advice = `the status inquiry reports the TID as ${s.status} (advice only: it shows neither amounts nor partial cancels)`;
    } catch {
      // advice stays "could not be asked"
    }
    const again = duplicate ? ' (an earlier identical cancel)' : '';
    return new NicepayGatewayError(
      'NICEPAY_OUTCOME_UNKNOWN',
      `cancel of TID ${n.tid}${again}: outcome unknown, ${record.message}; the cancel MAY have happened: ${advice}. Check the gateway before cancelling again with another idempotencyKey`,
      { tid: n.tid, moid: n.moid, ...(record.code ? { resultCode: record.code } : {}) },
    );
  }

  return async function cancel(input: CancelInput): Promise<CancelResult> {
    const n = validateCancel(input);
    return admit(ctx, 'cancel', () => run(n));
  };
}

/** A stored record back, with its Date revived. */
/**
 * The store key of one (TID, amount, idempotency key): `cancel:${mid}:${tid}:${amount}:${key}`
 * with '%' and ':' in the TID and the key percent-encoded, so that no two different cancels share a key (raw,
 * tid "T:300" with amount 5 and key "k" ran together with T, 300 and "5:k", and was answered
 * that cancel's result without being sent). A TID of letters and digits is unchanged.
 */
export function cancelStoreKey(mid: string, n: Pick<NormalizedCancel, 'tid' | 'amount' | 'key'>): string {
  return `cancel:${mid}:${escapeColon(n.tid)}:${n.amount}:${escapeColon(n.key)}`;
}

/** '%' and ':' percent-encoded, nothing else (any string, lone surrogates included, maps one to one). */
const escapeColon = (text: string): string => text.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));

/** A refusal, carried out of the run-once work so that nothing is kept for it. */
class NotKept {
  constructor(readonly result: CancelResult) {}
}

/** How a cancel record is kept in the store and read back (dates revived). */
const CANCEL_CODEC: RecordCodec<CancelRecord> = { serialize: (r) => JSON.stringify(r), parse: revive };

function revive(text: string): CancelRecord {
  const record = JSON.parse(text) as CancelRecord;
  if (record.kind === 'result' && record.result.status !== 'refused' && typeof record.result.cancelledAt === 'string') {
    record.result.cancelledAt = new Date(record.result.cancelledAt);
  }
  return record;
}
