import type { ClientContext } from '../context.js';
import { NicepayGatewayError } from '../errors/index.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { admit, callGateway, type RecordCodec, runOncePerMoid, withMerchantKeyHint } from '../pipeline/index.js';
import { issueTid } from '../wire/tid.js';
import { secretDigest } from '../util/secret-digest.js';
import { kstTimestamp14, parseKstTimestamp } from '../wire/kst.js';
import { RECEIPT_PATH } from '../wire/receipt-fields.js';
import { ownField } from '../wire/response-body.js';
import { readReceiptAnswer } from './answer.js';
import { buildReceiptForm } from './request.js';
import type { CashReceiptClient, CashReceiptInput, CashReceiptResult } from './types.js';
import { maskIdentity, type NormalizedReceipt, validateReceipt } from './validate.js';

/** How long a receipt's result answers repeats of its Moid. */
export const RECEIPT_RESULT_TTL_MS = 35 * 24 * 60 * 60 * 1000;
const LOCK_SLACK_MS = 10_000;

/** What the store keeps per Moid: the answer and a keyed digest of what was issued (never the identity). */
type ReceiptRecord = { tid: string; moid: string; amount: number; digest: string } & (
  | { kind: 'issued'; raw: Record<string, string> }
  | { kind: 'refused'; code: string; message: string; raw: Record<string, string> }
  | { kind: 'unknown'; reason: string }
);
const CODEC: RecordCodec<ReceiptRecord> = { serialize: (r) => JSON.stringify(r), parse: (t) => JSON.parse(t) as ReceiptRecord };

/**
 * Creates `nicepay.cashReceipt`: one receipt per Moid through the store (key
 * `cash-receipt:${mid}:${moid}`), the call through the pipeline. A receipt has no net cancel:
 * an unknown outcome is kept and thrown for every repeat, so the shop reconciles it (interface
 * D, orgSvcCd 04) instead of issuing a second receipt for the same cash.
 */
export function createCashReceiptClient(ctx: ClientContext): CashReceiptClient {
  const { config } = ctx;
  const url = gatewayEndpoint(config.baseUrl, RECEIPT_PATH);
  const lockTtlMs = config.connectMs + config.responseMs + LOCK_SLACK_MS;

  function issueOnce(n: NormalizedReceipt, digest: string): Promise<ReceiptRecord> {
    const now = config.clock();
    const tid = issueTid(config.mid, '04', '01', now);
    const base = { tid, moid: n.moid, amount: n.amount, digest };
    return callGateway<ReceiptRecord>(ctx, {
      operation: 'cash-receipt',
      host: 'web',
      url,
      ids: { tid, moid: n.moid },
      continuation: true,
      request: () => ({ body: buildReceiptForm(n, config.mid, config.merchantKey, tid, kstTimestamp14(now)), contentType: 'application/x-www-form-urlencoded; charset=euc-kr' }),
      notSent(failure) {
        throw new NicepayGatewayError('NICEPAY_GATEWAY_UNREACHABLE', `cash receipt of order ${n.moid} was not sent: ${failure.message}; nothing was issued, it may be retried`, { tid, moid: n.moid, cause: failure });
      },
      lost: (failure) => ({ ...base, kind: 'unknown', reason: failure.message }),
      answer(body) {
        const a = readReceiptAnswer(body, { mid: config.mid, moid: n.moid, tid, amount: n.amount, charset: n.charset, ediType: n.ediType });
        if (a.kind === 'unknown') return { ...base, kind: 'unknown', reason: a.reason };
        if (a.kind === 'refused') return { ...base, kind: 'refused', code: a.code, message: withMerchantKeyHint(a.code, a.message), raw: { ...a.raw } };
        return { ...base, kind: 'issued', raw: { ...a.raw } };
      },
      report: (r) => ({ outcome: r.kind === 'issued' ? 'succeeded' : r.kind === 'refused' ? 'refused' : 'unknown', resultCode: r.kind === 'unknown' ? undefined : ownField(r.raw, 'ResultCode') }),
    });
  }

  async function issue(n: NormalizedReceipt): Promise<CashReceiptResult> {
    const digest = secretDigest(config.merchantKey, 'cash-receipt', String(n.amount), n.receiptType, n.identity);
    const { record: r, duplicate } = await runOncePerMoid(ctx, {
      key: `cash-receipt:${config.mid}:${n.moid}`, moid: n.moid, amount: n.amount, digest, digestOf: (rec) => rec.digest,
      lockTtlMs, resultTtlMs: RECEIPT_RESULT_TTL_MS, codec: CODEC,
      noResult: 'cash receipt idempotency store returned no result',
      notStored: 'cash receipt result not stored: a resubmission of this Moid may issue again',
      mismatch: `order ${n.moid} already has a cash receipt request with another amount, type or identity; nothing was sent`,
    }, () => issueOnce(n, digest));
    const { tid, moid, amount } = r;
    switch (r.kind) {
      case 'issued':
        config.logger.info({ tid, moid, identity: maskIdentity(n.identity), step: 'cash-receipt' }, 'cash receipt issued');
        return { status: 'issued', tid, moid, amount, authCode: r.raw.AuthCode ?? '', authDate: parseKstTimestamp(r.raw.AuthDate ?? ''), duplicate, raw: Object.freeze({ ...r.raw }) };
      case 'refused':
        return { status: 'refused', code: r.code, message: r.message, tid, moid, amount, duplicate, raw: Object.freeze({ ...r.raw }) };
      case 'unknown':
        throw new NicepayGatewayError(
          'NICEPAY_OUTCOME_UNKNOWN',
          `cash receipt of order ${moid} (TID ${tid}) has an unknown outcome: ${r.reason}. A receipt may have been issued: reconcile this TID (recon.cashReceipts, orgSvcCd '04') before issuing again${duplicate ? ' (this Moid was submitted before; it is not sent again)' : ''}`,
          { tid, moid },
        );
      default: {
        const never: never = r;
        throw new Error(`unknown cash receipt record ${String(never)}`);
      }
    }
  }

  return {
    issue(input: CashReceiptInput) {
      try {
        const n = validateReceipt(input);
        return admit(ctx, 'cash receipt', () => issue(n));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}
