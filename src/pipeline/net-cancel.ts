/**
 * The one net cancel (망취소) flow. A net cancel reverses a transaction whose outcome could not
 * be used; what is sent depends on what the transaction has (an approval's AuthToken, or only
 * its TID), but what its answer means does not, so the answer is read here once and the two
 * request shapes are small builders feeding {@link sendNetCancel}.
 */
import { buildCancelForm, cancelMoidOf } from '../cancel/request.js';
import type { ResolvedConfig } from '../config.js';
import type { ClientContext } from '../context.js';
import type { NetCancelOutcome } from '../errors/index.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { signedApprovalFields } from '../approval/signed-form.js';
import { parseAmount } from '../wire/amount.js';
import { encodeForm } from '../wire/form-codec.js';
import { hexEquals } from '../wire/hash.js';
import { CANCEL_PATH } from '../wire/lifecycle-fields.js';
import { ownField } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { readAnswerFields, readResultCode } from './answer.js';
import { callGateway, type OutboundRequest } from './gateway-call.js';

/** What an approval net cancel needs: the approval's own fields. */
export interface NetCancelInput {
  netCancelUrl: URL;
  tid: string;
  authToken: string;
  amount: number;
  moid?: string;
}

/** What a net cancel of a transaction without an AuthToken needs (a billing charge). */
export interface CancelFormNetCancelInput {
  tid: string;
  moid: string;
  amount: number;
}

/** Codes that mean the reversal happened (gateway-facts: 2001 cancel, 2211 refund). */
const CANCEL_SUCCESS = new Set(['2001', '2211']);
/** CancelMsg of a cancel-shaped net cancel the package sends on its own. */
const NET_CANCEL_REASON = '망취소';
/** Both request shapes are EUC-KR forms. */
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=euc-kr';

/** One net cancel to send: where, what it reverses, and how its signed body is built. */
interface NetCancelRequest {
  url: URL;
  tid: string;
  moid: string | undefined;
  /** The whole amount the reversal must confirm. */
  amount: number;
  /** Builds the signed body when the pipeline sends it (EdiDate is stamped then). */
  request(): OutboundRequest;
}

/** A net cancel's result and the code its answer carried. */
interface NetCancelReading {
  outcome: NetCancelOutcome;
  resultCode?: string;
}

/**
 * The approval-shaped request (gateway-interface.md, A): the approval's signed fields plus
 * NetCancel=1, posted to the approval's NetCancelURL (already checked against trustedHosts).
 */
function approvalNetCancelRequest(config: ResolvedConfig, input: NetCancelInput): NetCancelRequest {
  return {
    url: input.netCancelUrl,
    tid: input.tid,
    moid: input.moid,
    amount: input.amount,
    request: () => ({
      body: encodeForm({ ...signedApprovalFields(config, input.tid, input.authToken, input.amount), NetCancel: '1', CharSet: 'utf-8', EdiType: 'JSON' }, 'euc-kr'),
      contentType: FORM_CONTENT_TYPE,
    }),
  };
}

/**
 * The cancel-shaped request for a transaction without an AuthToken: the documented cancel of
 * lifecycle-facts §2 for the whole amount (SignData = sha256(MID + CancelAmt + EdiDate + key))
 * with NetCancel=1, posted to the cancel endpoint.
 */
function cancelFormNetCancelRequest(config: ResolvedConfig, input: CancelFormNetCancelInput): NetCancelRequest {
  return {
    url: gatewayEndpoint(config.baseUrl, CANCEL_PATH),
    tid: input.tid,
    moid: input.moid,
    amount: input.amount,
    request: () => {
      const form = buildCancelForm(config, {
        tid: input.tid, moid: input.moid, amount: input.amount, reason: NET_CANCEL_REASON, partial: false,
        refund: undefined, key: '', cancelMoid: cancelMoidOf(input.tid, input.amount, ''), remainingAmount: undefined, mallReserved: undefined,
      });
      return { body: Buffer.concat([form, Buffer.from('&NetCancel=1', 'latin1')]), contentType: FORM_CONTENT_TYPE };
    },
  };
}

/**
 * Sends one net cancel through the pipeline, as a continuation of the work in flight (sent
 * even while closing), and reports 'succeeded' only on exactly 2001/2211 with a valid
 * Signature over a CancelAmt equal to the whole amount. Never throws: every failure, building
 * the request included, is reported as 'failed'.
 */
async function sendNetCancel(ctx: ClientContext, build: (config: ResolvedConfig) => NetCancelRequest): Promise<NetCancelOutcome> {
  const { config } = ctx;
  const failed: NetCancelReading = { outcome: 'failed' };
  try {
    const nc = build(config);
    const reading = await callGateway<NetCancelReading>(ctx, {
      operation: 'net-cancel',
      host: 'web',
      url: nc.url,
      ids: { tid: nc.tid, moid: nc.moid },
      continuation: true,
      request: nc.request,
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
        const signed = hexEquals(cancelResponseSignature(nc.tid, config.mid, cancelAmt, config.merchantKey), ownField(read.raw, 'Signature') ?? '');
        return { outcome: signed && parseAmount(cancelAmt) === nc.amount ? 'succeeded' : 'failed', resultCode: code.code };
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

/**
 * Net cancel of an approval whose outcome is unknown or whose onApproved failed: the
 * approval-shaped request to NetCancelURL. Never throws: every failure is 'failed'.
 */
export function netCancel(ctx: ClientContext, input: NetCancelInput): Promise<NetCancelOutcome> {
  return sendNetCancel(ctx, (config) => approvalNetCancelRequest(config, input));
}

/**
 * Net cancel of a transaction that has no AuthToken (a billing charge whose outcome is
 * unknown or whose onApproved failed): the cancel-shaped request for the whole amount.
 * Never throws: every failure is 'failed'.
 */
export function netCancelWithoutAuthToken(ctx: ClientContext, input: CancelFormNetCancelInput): Promise<NetCancelOutcome> {
  return sendNetCancel(ctx, (config) => cancelFormNetCancelRequest(config, input));
}
