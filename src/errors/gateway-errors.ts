import type { CodeOf } from './codes.js';
import { brandOf, NicepayError, type NetCancelOutcome } from './nicepay-error.js';

/**
 * Where settlement stands for an operation whose outcome was unknown or whose hook failed:
 * `pending` (the settler drives it to a final state; the settle report and the
 * `express-nicepay:settle` channel tell the result, onApproved when it is kept), `reversed` or
 * `never-charged` (nothing stays charged), `kept` (the payment stands and the shop recorded it).
 */
export type Settlement = 'pending' | 'reversed' | 'never-charged' | 'kept';

/** What is known about a request whose answer could not be used. */
export interface GatewayErrorInit {
  /** Gateway transaction id of the operation. */
  tid?: string;
  moid?: string;
  /** For approvals: what became of the net cancel. */
  netCancel?: NetCancelOutcome;
  /** Gateway result code, when a response arrived. */
  resultCode?: string;
  /** Where settlement stands (an operation recorded in the ledger). */
  settlement?: Settlement;
  cause?: unknown;
}

/** Codes after which the gateway may have committed money unless a net cancel succeeded. */
const MAY_HAVE_MOVED: ReadonlySet<string> = new Set([
  'NICEPAY_OUTCOME_UNKNOWN',
  'NICEPAY_ANSWER_UNVERIFIED',
  'NICEPAY_ANSWER_AMOUNT_MISMATCH',
]);

/**
 * The gateway could not be used: unreachable, timed out, answered garbage or an answer that
 * does not verify (a shop hook's failure is a {@link NicepayHookError}). `outcomeUnknown` says whether
 * money may have moved; for an approval, `netCancel` says whether the reversal was confirmed.
 */
export class NicepayGatewayError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayGatewayError');
  static {
    NicepayGatewayError.prototype.name = 'NicepayGatewayError';
  }
  readonly tid: string | undefined;
  readonly moid: string | undefined;
  readonly netCancel: NetCancelOutcome | undefined;
  readonly resultCode: string | undefined;
  /** Where settlement stands, for an operation of the ledger. */
  readonly settlement: Settlement | undefined;
  /** True when the gateway may have committed the payment and settlement has not closed it yet. */
  readonly outcomeUnknown: boolean;

  constructor(code: CodeOf<'NicepayGatewayError'>, message: string, init: GatewayErrorInit = {}) {
    super(code, message, { cause: init.cause });
    this.tid = init.tid;
    this.moid = init.moid;
    this.netCancel = init.netCancel;
    this.resultCode = init.resultCode;
    this.settlement = init.settlement;
    this.outcomeUnknown =
      init.settlement !== undefined
        ? init.settlement === 'pending'
        : init.netCancel === 'failed' || (MAY_HAVE_MOVED.has(code) && init.netCancel !== 'succeeded');
  }
}

/** What is known about a shop hook that failed. */
export interface HookErrorInit {
  /** The payment the hook was about. */
  tid?: string;
  moid?: string;
  /** Checkout: what became of the net cancel sent after onApproved failed. */
  netCancel?: NetCancelOutcome;
  /** Where settlement stands (an operation recorded in the ledger). */
  settlement?: Settlement;
  cause?: unknown;
}

/**
 * The shop's own hook failed, not the gateway: NICEPAY_HOOK_FAILED (onApproved, onDeposit or
 * onCancel rejected, or never settled) or NICEPAY_HOOK_RESULT_INVALID (expectedAmount returned
 * what is not a positive integer of won). `outcomeUnknown` when the payment may stand at the
 * gateway without the shop's record until settlement closes it (a reversal not confirmed yet,
 * or a hook that never settled and may still record the order).
 */
export class NicepayHookError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayHookError');
  static {
    NicepayHookError.prototype.name = 'NicepayHookError';
  }
  readonly tid: string | undefined;
  readonly moid: string | undefined;
  readonly netCancel: NetCancelOutcome | undefined;
  /** Where settlement stands, for a payment of the ledger. */
  readonly settlement: Settlement | undefined;
  /** True when the gateway may keep a payment the shop did not record, until settlement closes it. */
  readonly outcomeUnknown: boolean;

  constructor(code: CodeOf<'NicepayHookError'>, message: string, init: HookErrorInit = {}) {
    super(code, message, { cause: init.cause });
    this.tid = init.tid;
    this.moid = init.moid;
    this.netCancel = init.netCancel;
    this.settlement = init.settlement;
    this.outcomeUnknown =
      init.settlement !== undefined
        ? init.settlement === 'pending'
        : init.netCancel === 'failed' || init.netCancel === 'not-attempted';
  }
}

/**
 * The data host (payout, reconciliation) refused the request: NICEPAY_DATA_HOST_REFUSED, a
 * resCode other than 0000 and other than the 8xxx / 9xxx of an unknown outcome (those are
 * NICEPAY_OUTCOME_UNKNOWN or NICEPAY_GATEWAY_ERROR). Nothing happened. `reason` is stable where
 * gateway-facts.md lists the resCode.
 */
export class NicepayDataApiError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayDataApiError');
  static {
    NicepayDataApiError.prototype.name = 'NicepayDataApiError';
  }
  /** Always false: a refusal changed nothing. */
  readonly outcomeUnknown = false;
  /** `hint`: what to check, added to the message (a refused authentication's question about the merchant key). */
  constructor(
    readonly resCode: string,
    readonly resMsg: string,
    readonly reason: string,
    readonly sid: string,
    hint?: string,
  ) {
    super(
      'NICEPAY_DATA_HOST_REFUSED',
      `data host refused ${sid}: ${resCode} ${reason}${resMsg ? ` (${resMsg})` : ''}${hint ? ` (${hint})` : ''}`,
    );
  }
}
