import type { ClientContext } from '../context.js';
import { buildCancelForm, cancelMoidOf } from '../cancel/request.js';
import type { NetCancelOutcome } from '../errors/index.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { callGateway, readAnswerFields, readResultCode } from '../pipeline/index.js';
import { parseAmount } from '../wire/amount.js';
import { hexEquals } from '../wire/hash.js';
import { CANCEL_PATH } from '../wire/lifecycle-fields.js';
import { ownField } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';

/** Codes that mean the reversal happened (gateway-facts: 2001 cancel, 2211 refund). */
const CANCEL_SUCCESS = new Set(['2001', '2211']);
/** CancelMsg of a net cancel the package sends on its own. */
const NET_CANCEL_REASON = '망취소';

/**
 * Net cancel (망취소) of a billing charge whose outcome is unknown or whose onApproved failed.
 * A charge has no AuthToken, so, as for a key-in transaction, the request is the documented
 * cancel of lifecycle-facts §2 for the whole amount (SignData = sha256(MID + CancelAmt +
 * EdiDate + key)) with NetCancel=1, sent through the pipeline as a continuation of the charge.
 * 'succeeded' only on exactly 2001/2211 with a valid Signature over a CancelAmt equal to the
 * amount. Never throws: every failure is 'failed'.
 */
export async function netCancelCharge(ctx: ClientContext, charge: { tid: string; moid: string; amount: number }): Promise<NetCancelOutcome> {
  const { config } = ctx;
  try {
    const reading = await callGateway<{ outcome: NetCancelOutcome; resultCode?: string }>(ctx, {
      operation: 'net-cancel',
      host: 'web',
      url: gatewayEndpoint(config.baseUrl, CANCEL_PATH),
      ids: { tid: charge.tid, moid: charge.moid },
      continuation: true,
      request: () => {
        const form = buildCancelForm(config, {
          tid: charge.tid, moid: charge.moid, amount: charge.amount, reason: NET_CANCEL_REASON, partial: false,
          refund: undefined, key: '', cancelMoid: cancelMoidOf(charge.tid, charge.amount, ''), remainingAmount: undefined, mallReserved: undefined,
        });
        return { body: Buffer.concat([form, Buffer.from('&NetCancel=1', 'latin1')]), contentType: 'application/x-www-form-urlencoded; charset=euc-kr' };
      },
      answer(body) {
        const read = readAnswerFields(body, 'utf-8', 'JSON');
        if (!read.ok) return { outcome: 'failed' };
        const code = readResultCode(read.raw);
        if (code.kind !== 'code') return { outcome: 'failed' };
        if (!CANCEL_SUCCESS.has(code.code)) return { outcome: 'failed', resultCode: code.code };
        const cancelAmt = ownField(read.raw, 'CancelAmt') ?? '';
        const signed = hexEquals(cancelResponseSignature(charge.tid, config.mid, cancelAmt, config.merchantKey), ownField(read.raw, 'Signature') ?? '');
        return { outcome: signed && parseAmount(cancelAmt) === charge.amount ? 'succeeded' : 'failed', resultCode: code.code };
      },
      lost: () => ({ outcome: 'failed' }),
      notSent: () => ({ outcome: 'failed' }),
      report: (r) => ({ outcome: r.outcome === 'succeeded' ? 'succeeded' : 'unknown', resultCode: r.resultCode }),
    });
    return reading.outcome;
  } catch {
    return 'failed';
  }
}
