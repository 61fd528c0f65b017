import type { ClientContext } from '../context.js';
import type { NetCancelOutcome } from '../errors/index.js';
import { parseAmount } from '../wire/amount.js';
import { hexEquals } from '../wire/hash.js';
import { encodeForm } from '../wire/form-codec.js';
import { ownField, parseGatewayBody } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { signedApprovalFields } from './signed-form.js';

/** What net cancel needs: the approval's own fields. */
export interface NetCancelInput {
  netCancelUrl: URL;
  tid: string;
  authToken: string;
  amount: number;
}

/** Codes that mean the reversal happened (gateway-facts: 2001 cancel, 2211 refund). */
const CANCEL_SUCCESS = new Set(['2001', '2211']);

/**
 * Net cancel (망취소): reverses an approval whose outcome is unknown. Sends the approval's
 * fields plus NetCancel=1 to NetCancelURL (already checked against trustedHosts) and
 * reports 'succeeded' only on 2001/2211 with a valid Signature over a CancelAmt equal to the
 * amount.
 * Never throws: every failure is reported as 'failed'.
 */
export async function netCancel(ctx: ClientContext, input: NetCancelInput): Promise<NetCancelOutcome> {
  const { config } = ctx;
  const started = Date.now();
  const form = encodeForm(
    {
      ...signedApprovalFields(config, input.tid, input.authToken, input.amount),
      NetCancel: '1',
      CharSet: 'utf-8',
      EdiType: 'JSON',
    },
    'euc-kr',
  );
  let outcome: NetCancelOutcome = 'failed';
  let resultCode: string | undefined;
  try {
    const res = await ctx.web.post(input.netCancelUrl, form, 'application/x-www-form-urlencoded; charset=euc-kr');
    // The parser refuses an answer that names a field twice: it confirms nothing (issue 18 item 6).
    const fields = parseGatewayBody(res.body, 'utf-8', 'JSON');
    resultCode = ownField(fields, 'ResultCode');
    if (resultCode !== undefined && CANCEL_SUCCESS.has(resultCode)) {
      // Confirmed only by a signed answer for the whole amount: a reversal of some other
      // amount, or an unsigned 2001, leaves the shop to reconcile rather than trust it.
      const cancelAmt = ownField(fields, 'CancelAmt') ?? '';
      const signed = hexEquals(cancelResponseSignature(input.tid, config.mid, cancelAmt, config.merchantKey), ownField(fields, 'Signature') ?? '');
      outcome = signed && parseAmount(cancelAmt) === input.amount ? 'succeeded' : 'failed';
    }
  } catch {
    outcome = 'failed';
  }
  config.logger.warn(
    { tid: input.tid, step: 'net-cancel', outcome, resultCode, durationMs: Date.now() - started },
    `net cancel ${outcome}`,
  );
  return outcome;
}
