import type { ClientContext } from '../context.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { NicepayGatewayError } from '../errors/index.js';
import { keyinHookOf, runKeyinHook } from '../pipeline/hook-runner-keyin.js';
import { admit, callGateway, type RecordCodec, runOncePerMoid, withMerchantKeyHint } from '../pipeline/index.js';
import { ownField } from '../wire/response-body.js';
import { secretDigest } from '../util/secret-digest.js';
import { KEYIN_PATH } from '../wire/keyin-fields.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { buildKeyinRequest } from './request.js';
import { readKeyinAnswer } from './response.js';
import { type KeyinRecord, recordToResult } from './record.js';
import { issueKeyinTid } from './tid.js';
import type { KeyinClient, KeyinInput, KeyinResult } from './types.js';
import { type NormalizedKeyin, validateKeyinInput } from './validate.js';

/** How long a key-in's result (approved, declined or unknown) answers repeats of its Moid. */
export const KEYIN_RESULT_TTL_MS = 24 * 60 * 60 * 1000;
/** Slack added to the outbound timeouts for the in-flight lock of a Moid. */
const LOCK_SLACK_MS = 10_000;

/** Key-in records are plain JSON: the answer's fields, never card data (CardNo is masked). */
const KEYIN_CODEC: RecordCodec<KeyinRecord> = { serialize: (r) => JSON.stringify(r), parse: (t) => JSON.parse(t) as KeyinRecord };

/**
 * Creates the key-in client (interface B) over a client context. Each call is validated,
 * then charged at most once per Moid through the context's idempotency store (key
 * `keyin:${mid}:${moid}`), and tracked so close() waits for it.
 */
export function createKeyinClient(ctx: ClientContext): KeyinClient {
  const { config } = ctx;
  const url = gatewayEndpoint(config.baseUrl, KEYIN_PATH);
  const lockTtlMs = config.connectMs + config.responseMs + LOCK_SLACK_MS;

  /** One real call to the gateway through the pipeline; returns what to cache, or throws when nothing was sent. */
  function charge(n: NormalizedKeyin, cardDigest: string): Promise<KeyinRecord> {
    // One reading of the clock per request: the TID's time part and EdiDate name the same second.
    const now = config.clock();
    const tid = issueKeyinTid(config.mid, now);
    const base = { tid, moid: n.moid, amount: n.amount, cardDigest, goodsName: n.goodsName, buyerName: n.buyerName ?? '', buyerEmail: n.buyerEmail ?? '', buyerTel: n.buyerTel ?? '' };
    return callGateway<KeyinRecord>(ctx, {
      operation: 'keyin',
      host: 'web',
      url,
      ids: { tid, moid: n.moid },
      continuation: true,
      request: () => ({ body: buildKeyinRequest(n, config.mid, config.merchantKey, tid, kstTimestamp14(now)).body, contentType: 'application/x-www-form-urlencoded; charset=euc-kr' }),
      notSent(failure) {
        throw new NicepayGatewayError('NICEPAY_GATEWAY_UNREACHABLE', `key-in of order ${n.moid} was not sent: ${failure.message}; nothing was charged, it may be retried`, { tid, moid: n.moid, cause: failure });
      },
      lost: (failure) => ({ ...base, kind: 'unknown', reason: failure.message }),
      answer(body) {
        const answer = readKeyinAnswer(body, { tid, mid: config.mid, moid: n.moid, amount: n.amount, charset: n.charset, ediType: n.ediType });
        if (answer.kind === 'unverifiable') return { ...base, kind: 'unknown', reason: answer.reason, ...(answer.code ? { code: answer.code } : {}) };
        if (answer.kind === 'declined') return { ...base, kind: 'declined', code: answer.code, message: withMerchantKeyHint(answer.code, answer.message), raw: answer.raw };
        return { ...base, kind: 'approved', raw: answer.raw };
      },
      report: (r) => ({
        outcome: r.kind === 'approved' ? 'succeeded' : r.kind === 'declined' ? 'refused' : 'unknown',
        resultCode: r.kind === 'unknown' ? r.code : ownField(r.raw, 'ResultCode'),
      }),
    });
  }

  async function run(n: NormalizedKeyin): Promise<KeyinResult> {
    // Binds the Moid's result to the card that paid it (a keyed digest: never the number), so a
    // resubmission with another card is refused rather than shown the first buyer's payment.
    const cardDigest = secretDigest(config.merchantKey, 'keyin-card', n.cardNumber, n.expiry);
    const { record, duplicate } = await runOncePerMoid(ctx, {
      key: `keyin:${config.mid}:${n.moid}`, moid: n.moid, amount: n.amount, digest: cardDigest, digestOf: (r) => r.cardDigest,
      lockTtlMs, resultTtlMs: KEYIN_RESULT_TTL_MS, codec: KEYIN_CODEC,
      noResult: 'key-in idempotency store returned no result',
      notStored: 'key-in result not stored: a resubmission of this Moid may charge again',
      mismatch: `order ${n.moid} was already submitted for key-in with another card or amount; nothing was sent: use a new Moid for a new charge`,
    }, () => charge(n, cardDigest));
    return recordToResult(record, config.mid, duplicate);
  }

  return {
    async keyin(input: KeyinInput): Promise<KeyinResult> {
      const n = validateKeyinInput(input, config.clock());
      const hook = keyinHookOf(input);
      // The hook runs for duplicates too, until it resolved once for the payment.
      return admit(ctx, 'key-in', () => run(n).then(async (r) => {
        if (r.status === 'approved' && hook) await runKeyinHook(ctx, r, hook, KEYIN_RESULT_TTL_MS);
        return r;
      }));
    },
  };
}
