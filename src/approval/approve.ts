import type { ClientContext } from '../context.js';
import { type CodeOf, NicepayGatewayError, NicepayHookError, NicepayRequestError } from '../errors/index.js';
import { callGateway, readResultCode, refuseKvUnsafe, resultCodeProblem, withMerchantKeyHint } from '../pipeline/index.js';
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
import { netCancel } from '../pipeline/net-cancel.js';
import { recoverProcessed } from './recover.js';
import { statusAdvice } from '../status/advice.js';
import { signedApprovalFields } from './signed-form.js';

/** Every success code of any method (gateway-facts: 0000 for methods outside the spec). */
const ANY_SUCCESS: ReadonlySet<string> = new Set([...Object.values(SUCCESS_CODES), '0000']);

/**
 * Codes saying the TID was approved or processed before (gateway-facts: 1682 identical
 * approval already succeeded, 1621 duplicate request, I003 re-request of an authenticated
 * transaction): settled by the status inquiry (recover.ts), never read as a decline.
 */
export const ALREADY_PROCESSED: ReadonlySet<string> = new Set(['1682', '1621', 'I003']);

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
 * answer as received (`answer`: its bytes, in `charset` / `ediType`, as latin1 text of one
 * character per byte) beside its parsed fields, so the record kept for duplicates can be the
 * answer itself. `recovered`: the gateway had already approved this TID (an earlier approval
 * whose result was lost) and the status inquiry confirmed it; `raw` is then its answer.
 */
export type ApprovalOutcome =
  | { kind: 'committed'; method: PayMethod; raw: GatewayFields; answer: string; recovered?: true; charset?: Charset; ediType?: EdiType }
  | { kind: 'declined'; raw: GatewayFields; answer: string; charset?: Charset; ediType?: EdiType }
  | { kind: 'failed'; code: CodeOf<'NicepayGatewayError'> | CodeOf<'NicepayHookError'>; message: string; netCancel: 'succeeded' | 'failed' | 'not-attempted'; resultCode?: string };

/** How the approval call's answer reads, before any net cancel or status inquiry. */
type ApprovalReading =
  | { kind: 'committed'; method: PayMethod; raw: GatewayFields; answer: string }
  | { kind: 'declined'; raw: GatewayFields; answer: string }
  /** The gateway says this TID was processed before: the status inquiry settles it. */
  | { kind: 'processed'; raw: GatewayFields; answer: string; resultCode: string }
  /** The gateway may have committed, and this answer cannot say: net-cancel. */
  | { kind: 'unusable'; code: CodeOf<'NicepayGatewayError'>; why: string; resultCode?: string }
  | { kind: 'not-sent'; why: string };

/** The shop's text the approval request sends, by wire name and option name. */
const SHOP_TEXT = { MallReserved: 'mallReserved' } as const;

/**
 * Interface A: posts the approval to NextAppURL through the pipeline, then trusts nothing it
 * did not verify. Any answer that cannot be used (timeout, reset, non-2xx, unparseable, a
 * ResultCode not exactly documented, forged Signature, altered Amt, another TID) is
 * net-cancelled, because the gateway may have committed it. "Already processed" is settled by
 * the status inquiry (recover.ts).
 */
export async function approve(ctx: ClientContext, input: ApprovalInput): Promise<ApprovalOutcome> {
  const { config } = ctx;
  const reading = await callGateway<ApprovalReading>(ctx, {
    operation: 'approval',
    host: 'web',
    url: input.nextAppUrl,
    ids: { tid: input.tid, moid: input.moid },
    continuation: true,
    request() {
      // One literal of a fixed shape: spreading the signed fields and adding three more cost
      // more than the signing itself (a new object shape per call site, grown property by property).
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
      refuseKvUnsafe('approval request', input.ediType, fields, SHOP_TEXT);
      return { body: encodeForm(fields, 'euc-kr'), contentType: 'application/x-www-form-urlencoded; charset=euc-kr' };
    },
    notSent: (failure) => ({ kind: 'not-sent', why: failure.message }),
    lost: (failure) => ({ kind: 'unusable', code: 'NICEPAY_OUTCOME_UNKNOWN', why: `approval outcome unknown (${failure.message})` }),
    answer: (body) => readApproval(ctx, input, body),
    report: reportOf,
  });
  switch (reading.kind) {
    case 'committed':
    case 'declined':
      return reading;
    case 'not-sent':
      return { kind: 'failed', code: 'NICEPAY_GATEWAY_UNREACHABLE', message: `approval not sent: ${reading.why}; nothing was charged`, netCancel: 'not-attempted' };
    case 'unusable':
      return cancelApproval(ctx, input, reading.code, reading.why, reading.resultCode);
    case 'processed':
      return recoverProcessed(ctx, input, reading);
  }
}

/** The diagnostics outcome of a reading. */
function reportOf(r: ApprovalReading): { outcome: 'succeeded' | 'refused' | 'unknown' | 'not-sent'; resultCode?: string } {
  switch (r.kind) {
    case 'committed':
      return { outcome: 'succeeded', resultCode: ownField(r.raw, 'ResultCode') };
    case 'declined':
      return { outcome: 'refused', resultCode: ownField(r.raw, 'ResultCode') };
    case 'processed':
      return { outcome: 'unknown', resultCode: r.resultCode };
    case 'unusable':
      return { outcome: 'unknown', ...(r.resultCode ? { resultCode: r.resultCode } : {}) };
    case 'not-sent':
      return { outcome: 'not-sent' };
  }
}

/** Reads the approval answer: strict code first, then the Signature before a success means anything. */
function readApproval(ctx: ClientContext, input: ApprovalInput, body: Buffer): ApprovalReading {
  const { config } = ctx;
  // The stored record keeps the answer's bytes as latin1 text (checkout-record.ts).
  const answer = latin1Text(body);
  let raw: GatewayFields;
  try {
    // Also refuses an answer naming a field twice: JSON.parse keeps the last, KV the first, so
    // whichever we picked, the gateway may have meant the other.
    raw = parseGatewayLatin1(answer, input.responseCharset, input.ediType);
  } catch (err) {
    return { kind: 'unusable', code: 'NICEPAY_OUTCOME_UNKNOWN', why: `approval answer unreadable (${(err as Error).message})` };
  }
  const code = readResultCode(raw);
  // A code not exactly documented ("3001 ", "a000") is neither a success nor a decline.
  if (code.kind !== 'code') return { kind: 'unusable', code: 'NICEPAY_OUTCOME_UNKNOWN', why: `approval ${resultCodeProblem(code)}` };
  const resultCode = code.code;
  const methodText = ownField(raw, 'PayMethod') || input.payMethod;
  const method = isPayMethod(methodText) ? methodText : undefined;
  const success = method !== undefined && SUCCESS_CODES[method] === resultCode;
  if (!success) {
    // A success code of another method means money may have moved under a method we did not
    // expect: never report that as "declined, nothing charged".
    if (ANY_SUCCESS.has(resultCode)) {
      return { kind: 'unusable', code: 'NICEPAY_OUTCOME_UNKNOWN', why: `approval answered success code ${resultCode} for method ${methodText || 'unknown'}`, resultCode };
    }
    if (ALREADY_PROCESSED.has(resultCode)) return { kind: 'processed', raw, answer, resultCode };
    return { kind: 'declined', raw, answer };
  }

  // The Signature covers the response's own Amt string, as received (gateway-facts).
  const respAmt = ownField(raw, 'Amt') ?? '';
  const respTid = ownField(raw, 'TID') ?? '';
  const respMid = ownField(raw, 'MID') ?? '';
  const expected = approvalResponseSignature(respTid, respMid, respAmt, config.merchantKey);
  if (!hexEquals(expected, ownField(raw, 'Signature') ?? '')) {
    return { kind: 'unusable', code: 'NICEPAY_ANSWER_UNVERIFIED', why: 'approval answer Signature does not verify', resultCode };
  }
  // The auth return's Moid is not signed: the gateway's own Moid must name the same order,
  // or a buyer could pay order A and have order B marked paid.
  const respMoid = ownField(raw, 'Moid');
  if (respTid !== input.tid || respMid !== config.mid || (respMoid !== undefined && respMoid !== input.moid)) {
    return { kind: 'unusable', code: 'NICEPAY_ANSWER_UNVERIFIED', why: 'approval answer is for another TID, MID or order', resultCode };
  }
  if (parseAmount(respAmt) !== input.amount) {
    return { kind: 'unusable', code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH', why: 'approval answer Amt differs from the order amount', resultCode };
  }
  return { kind: 'committed', method, raw, answer };
}

/** Net-cancels an approval whose outcome cannot be used and says what became of it. */
export async function cancelApproval(ctx: ClientContext, input: ApprovalInput, code: CodeOf<'NicepayGatewayError'>, why: string, resultCode?: string): Promise<ApprovalOutcome> {
  const outcome = await netCancel(ctx, { netCancelUrl: input.netCancelUrl, tid: input.tid, authToken: input.authToken, amount: input.amount, moid: input.moid });
  const advice = outcome === 'succeeded' ? '' : `; ${await statusAdvice(ctx, input.tid)}`;
  const message = `${why}; net cancel ${outcome === 'succeeded' ? 'succeeded: nothing was charged' : 'FAILED: the payment may be approved at the gateway, reconcile TID ' + input.tid}${advice}`;
  return { kind: 'failed', code, message, netCancel: outcome, ...(resultCode ? { resultCode } : {}) };
}

/**
 * Turns a failed outcome into the error passed to next(err): a NicepayHookError when the
 * shop's onApproved failed, else a NicepayGatewayError.
 */
export function outcomeError(outcome: Extract<ApprovalOutcome, { kind: 'failed' }>, tid: string, moid: string): NicepayGatewayError | NicepayHookError {
  const { code } = outcome;
  if (code === 'NICEPAY_HOOK_FAILED' || code === 'NICEPAY_HOOK_RESULT_INVALID') {
    return new NicepayHookError(code, outcome.message, { tid, moid, netCancel: outcome.netCancel });
  }
  return new NicepayGatewayError(code, outcome.resultCode ? withMerchantKeyHint(outcome.resultCode, outcome.message) : outcome.message, {
    tid,
    moid,
    netCancel: outcome.netCancel,
    ...(outcome.resultCode ? { resultCode: outcome.resultCode } : {}),
  });
}
