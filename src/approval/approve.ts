import type { ClientContext } from '../context.js';
import { type CodeOf, NicepayGatewayError, NicepayRequestError } from '../errors/index.js';
import { silentLogger } from '../logger.js';
import { asTransportError, transportOutcome } from '../transport-failure.js';
import type { PayMethod } from '../types/payment.js';
import { SUCCESS_CODES } from '../types/payment.js';
import { parseAmount } from '../wire/amount.js';
import { type Charset, latin1Text } from '../wire/charset.js';
import { APPROVAL_REQUEST_FIELDS, checkFields } from '../wire/field-sizes.js';
import { encodeForm } from '../wire/form-codec.js';
import { hexEquals } from '../wire/hash.js';
import { isPayMethod } from '../wire/payment-mapper.js';
import { type EdiType, type GatewayFields, ownField, parseGatewayLatin1 } from '../wire/response-body.js';
import { approvalResponseSignature } from '../wire/signatures.js';
import { netCancel } from './net-cancel.js';
import { statusAdvice } from '../status/advice.js';
import { signedApprovalFields } from './signed-form.js';

/** Every success code of any method (gateway-facts: 0000 for methods outside the spec). */
const ANY_SUCCESS: ReadonlySet<string> = new Set([...Object.values(SUCCESS_CODES), '0000']);

/** Codes saying the TID was approved or processed before (gateway-facts error list). */
const ALREADY_PROCESSED: ReadonlySet<string> = new Set(['1682', '1621', 'I003']);

/** What approval needs, all already verified by the caller. */
export interface ApprovalInput {
  nextAppUrl: URL;
  netCancelUrl: URL;
  tid: string;
  authToken: string;
  /** The shop's amount (already equal to the authenticated Amt). */
  amount: number;
  moid: string;
  /** PayMethod from the auth return, used when the response omits it. */
  payMethod: string;
  mallReserved?: string;
  responseCharset: Charset;
  ediType: EdiType;
}

/**
 * What became of an approval: committed (approved or virtual account issued), declined, or
 * failed after a net cancel was tried. A committed or declined outcome carries the gateway's
 * answer as received (`answer`: its bytes, in the CharSet and EdiType asked for, as latin1 text
 * of one character per byte) beside its parsed fields, so the record kept for duplicates can be
 * the answer itself.
 */
export type ApprovalOutcome =
  | { kind: 'committed'; method: PayMethod; raw: GatewayFields; answer: string }
  | { kind: 'declined'; raw: GatewayFields; answer: string }
  | { kind: 'failed'; code: CodeOf<'NicepayGatewayError'>; message: string; netCancel: 'succeeded' | 'failed' | 'not-attempted'; resultCode?: string };

/**
 * Interface A: posts the approval to NextAppURL, then trusts nothing it did not verify.
 * Any answer that cannot be used (timeout, reset, non-2xx, unparseable, forged Signature,
 * altered Amt, another TID) is net-cancelled, because the gateway may have committed it.
 */
export async function approve(ctx: ClientContext, input: ApprovalInput): Promise<ApprovalOutcome> {
  const { config } = ctx;
  // One literal of a fixed shape: spreading the signed fields and adding three more cost more
  // than the signing itself (a new object shape per call site, grown property by property).
  const signed = signedApprovalFields(config, input.tid, input.authToken, input.amount);
  const fields: Record<string, string | undefined> = {
    TID: signed.TID,
    AuthToken: signed.AuthToken,
    MID: signed.MID,
    Amt: signed.Amt,
    EdiDate: signed.EdiDate,
    SignData: signed.SignData,
    CharSet: input.responseCharset,
    EdiType: input.ediType,
    MallReserved: input.mallReserved || undefined,
  };
  const problem = checkFields(APPROVAL_REQUEST_FIELDS, fields, 'euc-kr');
  if (problem) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `approval request: ${problem.message}`, problem.field);

  const started = Date.now();

  let body: Buffer;
  try {
    const res = await ctx.web.post(input.nextAppUrl, encodeForm(fields, 'euc-kr'), 'application/x-www-form-urlencoded; charset=euc-kr');
    body = res.body;
  } catch (err) {
    const t = asTransportError(err, 'approval call');
    config.logger.warn({ tid: input.tid, moid: input.moid, step: 'approve', failure: t.kind, durationMs: Date.now() - started }, t.message);
    if (transportOutcome(t) === 'not-sent') {
      return { kind: 'failed', code: 'NICEPAY_GATEWAY_UNREACHABLE', message: `approval not sent: ${t.message}; nothing was charged`, netCancel: 'not-attempted' };
    }
    return cancelApproval(ctx, input, 'NICEPAY_OUTCOME_UNKNOWN', `approval outcome unknown (${t.message})`);
  }

  // The stored record keeps the answer's bytes as latin1 text (checkout-record.ts).
  const answer = latin1Text(body);
  let raw: GatewayFields;
  try {
    // Also refuses an answer naming a field twice: JSON.parse keeps the last, KV the first, so
    // whichever we picked, the gateway may have meant the other (issue 18 item 6).
    raw = parseGatewayLatin1(answer, input.responseCharset, input.ediType);
  } catch (err) {
    return cancelApproval(ctx, input, 'NICEPAY_OUTCOME_UNKNOWN', `approval answer unreadable (${(err as Error).message})`);
  }

  const resultCode = ownField(raw, 'ResultCode') ?? '';
  const methodText = ownField(raw, 'PayMethod') || input.payMethod;
  const method = isPayMethod(methodText) ? methodText : undefined;
  const success = method !== undefined && SUCCESS_CODES[method] === resultCode;
  // Silent by default: build no log object for the no-op logger.
  if (config.logger !== silentLogger) {
    config.logger.info({ tid: input.tid, moid: input.moid, step: 'approve', resultCode, durationMs: Date.now() - started }, 'approval answered');
  }
  if (!success) {
    if (resultCode === '') return cancelApproval(ctx, input, 'NICEPAY_OUTCOME_UNKNOWN', 'approval answer has no ResultCode');
    // A success code of another method means money may have moved under a method we did not
    // expect: never report that as "declined, nothing charged".
    if (ANY_SUCCESS.has(resultCode)) {
      return cancelApproval(ctx, input, 'NICEPAY_OUTCOME_UNKNOWN', `approval answered success code ${resultCode} for method ${methodText || 'unknown'}`, resultCode);
    }
    // "Already approved" / "duplicate": an earlier approval of this TID went through, maybe the
    // shop's own whose result was lost. Reversing it blindly could cancel a recorded payment,
    // so nothing is sent: the error says to reconcile the TID.
    if (ALREADY_PROCESSED.has(resultCode)) {
      return {
        kind: 'failed',
        code: 'NICEPAY_OUTCOME_UNKNOWN',
        message: `gateway says TID ${input.tid} was already processed (${resultCode}); it may be approved: reconcile it`,
        netCancel: 'not-attempted',
        resultCode,
      };
    }
    return { kind: 'declined', raw, answer };
  }

  // The Signature covers the response's own Amt string, as received (gateway-facts).
  const respAmt = ownField(raw, 'Amt') ?? '';
  const respTid = ownField(raw, 'TID') ?? '';
  const respMid = ownField(raw, 'MID') ?? '';
  const expected = approvalResponseSignature(respTid, respMid, respAmt, config.merchantKey);
  if (!hexEquals(expected, ownField(raw, 'Signature') ?? '')) {
    return cancelApproval(ctx, input, 'NICEPAY_ANSWER_UNVERIFIED', 'approval answer Signature does not verify', resultCode);
  }
  // The auth return's Moid is not signed: the gateway's own Moid must name the same order,
  // or a buyer could pay order A and have order B marked paid.
  const respMoid = ownField(raw, 'Moid');
  if (respTid !== input.tid || respMid !== config.mid || (respMoid !== undefined && respMoid !== input.moid)) {
    return cancelApproval(ctx, input, 'NICEPAY_ANSWER_UNVERIFIED', 'approval answer is for another TID, MID or order', resultCode);
  }
  if (parseAmount(respAmt) !== input.amount) {
    return cancelApproval(ctx, input, 'NICEPAY_ANSWER_AMOUNT_MISMATCH', 'approval answer Amt differs from the order amount', resultCode);
  }
  return { kind: 'committed', method, raw, answer };
}

/** Net-cancels an approval whose outcome cannot be used and says what became of it. */
async function cancelApproval(ctx: ClientContext, input: ApprovalInput, code: CodeOf<'NicepayGatewayError'>, why: string, resultCode?: string): Promise<ApprovalOutcome> {
  const outcome = await netCancel(ctx, { netCancelUrl: input.netCancelUrl, tid: input.tid, authToken: input.authToken, amount: input.amount });
  const advice = outcome === 'succeeded' ? '' : `; ${await statusAdvice(ctx, input.tid)}`;
  const message = `${why}; net cancel ${outcome === 'succeeded' ? 'succeeded: nothing was charged' : 'FAILED: the payment may be approved at the gateway, reconcile TID ' + input.tid}${advice}`;
  return { kind: 'failed', code, message, netCancel: outcome, ...(resultCode ? { resultCode } : {}) };
}

/** Turns a failed outcome into the error passed to next(err). */
export function outcomeError(outcome: Extract<ApprovalOutcome, { kind: 'failed' }>, tid: string, moid: string): NicepayGatewayError {
  return new NicepayGatewayError(outcome.code, outcome.message, {
    tid,
    moid,
    netCancel: outcome.netCancel,
    ...(outcome.resultCode ? { resultCode: outcome.resultCode } : {}),
  });
}
