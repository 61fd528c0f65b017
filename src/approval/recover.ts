import type { ClientContext } from '../context.js';
import { askStatus } from '../status/client.js';
import type { TransactionStatus } from '../status/types.js';
import { latin1Text } from '../wire/charset.js';
import { isPayMethod } from '../wire/payment-mapper.js';
import { type GatewayFields, ownField } from '../wire/response-body.js';
import type { ApprovalInput, ApprovalOutcome } from './approve.js';

/** The "already processed" answer being settled. */
interface ProcessedAnswer {
  raw: GatewayFields;
  answer: string;
  resultCode: string;
}

/**
 * Settles an approval the gateway answered "already processed" (1682, 1621, I003): an earlier
 * approval of this TID went through or was tried, and its result was lost (the instance that
 * sent it died between the gateway's commit and the shop's record, or the store forgot the
 * result). Reversing blindly could cancel a payment the shop recorded; reporting "unknown"
 * leaves the buyer charged and the order unpaid. The return's amount was checked against the
 * shop's own before the first call, and the gateway binds a TID to its AuthToken, so the only
 * approval it can hold for this TID is this order's, for the shop's amount: the status
 * inquiry says whether it holds one.
 *
 * - approved: a committed outcome marked `recovered`, its `raw` the inquiry's answer; the
 *   caller runs onApproved (hooks are at-least-once per TID: docs/pipeline.md).
 * - not found or cancelled: declined as the gateway answered (nothing stays charged), except
 *   a virtual account not found, which may be issued and unpaid: unknown, reconcile.
 * - the inquiry fails, or the answer names another order: failed, outcome unknown, reconcile.
 */
export async function recoverProcessed(ctx: ClientContext, input: ApprovalInput, processed: ProcessedAnswer): Promise<ApprovalOutcome> {
  const { tid, moid } = input;
  const unknown = (why: string): ApprovalOutcome => ({
    kind: 'failed',
    code: 'NICEPAY_OUTCOME_UNKNOWN',
    message: `gateway says TID ${tid} was already processed (${processed.resultCode}) and ${why}; it may be approved: reconcile it`,
    netCancel: 'not-attempted',
    resultCode: processed.resultCode,
  });
  // The refusal names the order the gateway booked this TID for: another order's is not ours.
  const answeredMoid = ownField(processed.raw, 'Moid');
  if (answeredMoid !== undefined && answeredMoid !== '' && answeredMoid !== moid) return unknown('its answer names another order');
  let status: TransactionStatus;
  try {
    status = await askStatus(ctx, tid, true);
  } catch (err) {
    return unknown(`the status inquiry could not settle it (${(err as Error).message})`);
  }
  const methodText = ownField(processed.raw, 'PayMethod') || input.payMethod;
  // An issued virtual account not paid yet is status 9 too (lifecycle-facts §4): for VBANK,
  // "not found" cannot tell "never issued" from "issued, awaiting deposit".
  if (status.status === 'not-found' && methodText === 'VBANK') return unknown('the status inquiry cannot tell an unpaid virtual account from none');
  if (status.status !== 'approved') {
    ctx.config.logger.warn({ tid, moid, step: 'recover', resultCode: processed.resultCode, status: status.status }, 'already-processed approval is not approved at the gateway: declined');
    return { kind: 'declined', raw: processed.raw, answer: processed.answer };
  }
  if (!isPayMethod(methodText)) return unknown(`the status inquiry reports it approved under an unknown method`);
  ctx.config.logger.warn({ tid, moid, step: 'recover', resultCode: processed.resultCode }, 'approval recovered: the gateway had already approved this TID; onApproved runs for it');
  const raw = recoveredFields(status, input, methodText);
  // Kept as UTF-8 JSON text, read back by the record codec with the charset and EdiType it names.
  return { kind: 'committed', method: methodText, raw, answer: latin1Text(Buffer.from(JSON.stringify(raw), 'utf8')), recovered: true, charset: 'utf-8', ediType: 'JSON' };
}

/** The status answer's fields with the order's identity (TID, MID, Moid, Amt, PayMethod) the mapper reads. */
function recoveredFields(status: TransactionStatus, input: ApprovalInput, method: string): GatewayFields {
  return Object.freeze({ ...status.raw, TID: input.tid, Moid: input.moid, Amt: String(input.amount), PayMethod: method });
}
