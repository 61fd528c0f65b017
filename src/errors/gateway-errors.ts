import { NicepayError, type NetCancelOutcome, type NicepayErrorCode } from './nicepay-error.js';

/** What is known about a request whose answer could not be used. */
export interface GatewayErrorInit {
  /** Gateway transaction id, so the shop can reconcile. */
  tid?: string;
  moid?: string;
  /** For approvals: what became of the net cancel. */
  netCancel?: NetCancelOutcome;
  /** Gateway result code, when a response arrived. */
  resultCode?: string;
  cause?: unknown;
}

const STATUS: Partial<Record<NicepayErrorCode, number>> = {
  NICEPAY_GATEWAY_UNREACHABLE: 503,
  NICEPAY_SHUTTING_DOWN: 503,
  NICEPAY_HOOK_FAILED: 500,
  NICEPAY_RETRY_LATER: 503,
};

/**
 * The gateway could not be used: unreachable, timed out, answered garbage or a forged
 * signature. `outcomeUnknown` says whether money may have moved; for an approval,
 * `netCancel` says whether the reversal was confirmed.
 */
export class NicepayGatewayError extends NicepayError {
  override name = 'NicepayGatewayError';
  readonly tid: string | undefined;
  readonly moid: string | undefined;
  readonly netCancel: NetCancelOutcome | undefined;
  readonly resultCode: string | undefined;
  /** True when the gateway may have committed the payment. */
  readonly outcomeUnknown: boolean;

  constructor(code: NicepayErrorCode, message: string, init: GatewayErrorInit = {}) {
    super(code, message, { status: STATUS[code] ?? 502, cause: init.cause });
    this.tid = init.tid;
    this.moid = init.moid;
    this.netCancel = init.netCancel;
    this.resultCode = init.resultCode;
    this.outcomeUnknown = init.netCancel === 'failed' || (code === 'NICEPAY_OUTCOME_UNKNOWN' && init.netCancel !== 'succeeded');
  }
}

/**
 * The data host (payout, reconciliation) answered with resCode other than 0000.
 * `code` is stable where gateway-facts.md lists the resCode; `outcomeUnknown` for 8xxx / 9xxx.
 */
export class NicepayDataApiError extends NicepayError {
  override name = 'NicepayDataApiError';
  readonly outcomeUnknown: boolean;
  constructor(readonly resCode: string, readonly resMsg: string, readonly reason: string, readonly sid: string) {
    super('NICEPAY_GATEWAY_ERROR', `data host refused ${sid}: ${resCode} ${reason}${resMsg ? ` (${resMsg})` : ''}`, { status: 502 });
    this.outcomeUnknown = /^[89]/.test(resCode);
  }
}
