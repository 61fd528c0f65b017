import type { ClientContext } from '../context.js';
import type { NetCancelOutcome } from '../errors/index.js';
import { callGateway, readAnswerFields, readResultCode } from '../pipeline/index.js';
import { parseAmount } from '../wire/amount.js';
import { hexEquals } from '../wire/hash.js';
import { encodeForm } from '../wire/form-codec.js';
import { ownField } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { signedApprovalFields } from './signed-form.js';

/** What net cancel needs: the approval's own fields. */
export interface NetCancelInput {
  netCancelUrl: URL;
  tid: string;
  authToken: string;
  amount: number;
  moid?: string;
}

/** Codes that mean the reversal happened (gateway-facts: 2001 cancel, 2211 refund). */
const CANCEL_SUCCESS = new Set(['2001', '2211']);

/** A net cancel's result and the code its answer carried. */
interface NetCancelReading {
  outcome: NetCancelOutcome;
  resultCode?: string;
}

/**
 * Net cancel (망취소): reverses an approval whose outcome is unknown. Sends the approval's
 * fields plus NetCancel=1 to NetCancelURL (already checked against trustedHosts) through the
 * pipeline, as a continuation of the approval in flight (sent even while closing), and reports
 * 'succeeded' only on exactly 2001/2211 with a valid Signature over a CancelAmt equal to the
 * amount. Never throws: every failure is reported as 'failed'.
 */
export async function netCancel(ctx: ClientContext, input: NetCancelInput): Promise<NetCancelOutcome> {
  const { config } = ctx;
  const failed: NetCancelReading = { outcome: 'failed' };
  try {
    const reading = await callGateway<NetCancelReading>(ctx, {
      operation: 'net-cancel',
      host: 'web',
      url: input.netCancelUrl,
      ids: { tid: input.tid, moid: input.moid },
      continuation: true,
      request: () => ({
        body: encodeForm({ ...signedApprovalFields(config, input.tid, input.authToken, input.amount), NetCancel: '1', CharSet: 'utf-8', EdiType: 'JSON' }, 'euc-kr'),
        contentType: 'application/x-www-form-urlencoded; charset=euc-kr',
      }),
      answer(body) {
        // An answer naming a field twice confirms nothing: it can be read two ways.
        const read = readAnswerFields(body, 'utf-8', 'JSON');
        if (!read.ok) return failed;
        const code = readResultCode(read.raw);
        if (code.kind !== 'code') return failed;
        if (!CANCEL_SUCCESS.has(code.code)) return { outcome: 'failed', resultCode: code.code };
        // Confirmed only by a signed answer for the whole amount: a reversal of some other
        // amount, or an unsigned 2001, leaves the shop to reconcile rather than trust it.
        const cancelAmt = ownField(read.raw, 'CancelAmt') ?? '';
        const signed = hexEquals(cancelResponseSignature(input.tid, config.mid, cancelAmt, config.merchantKey), ownField(read.raw, 'Signature') ?? '');
        return { outcome: signed && parseAmount(cancelAmt) === input.amount ? 'succeeded' : 'failed', resultCode: code.code };
      },
      lost: () => failed,
      notSent: () => failed,
      report: (r) => ({ outcome: r.outcome === 'succeeded' ? 'succeeded' : 'unknown', resultCode: r.resultCode }),
    });
    return reading.outcome;
  } catch {
    return 'failed';
  }
}
