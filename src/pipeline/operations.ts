import type { LedgerOperation } from './ledger-record.js';

/**
 * The name of each kind of call the package makes to the gateway: the `operation` of a
 * diagnostics context and of a log line. Data-host calls are `payout.*` / `recon.*`.
 */
export type GatewayOperation =
  | 'approval'
  | 'net-cancel'
  | 'keyin'
  | 'cancel'
  | 'status'
  | 'payout.balance'
  | 'payout.sub-merchant'
  | 'payout.request'
  | 'payout.cancel'
  | 'payout.results'
  | 'recon'
  | 'billing.register'
  | 'billing.charge'
  | 'billing.remove'
  | 'cash-receipt';

/**
 * What became of one call, as its flow reads the answer: the value a diagnostics context and
 * a log line carry as `outcome`. `not-sent` and `unknown` come from the transport (nothing
 * left / sent and lost); the rest from the answer's meaning.
 */
export type CallOutcome =
  /** Approved, charged, registered, cancelled or refunded: the call did what it asked. */
  | 'succeeded'
  /** The gateway refused (a decline, a refused cancel, a data-host refusal): nothing changed. */
  | 'refused'
  /** The gateway asked for a retry later: nothing was done. */
  | 'retry'
  /** A query answered (status, balance, results, recon). */
  | 'answered'
  /** The request never left: nothing happened. */
  | 'not-sent'
  /** Sent, and its answer is lost or cannot be used: the gateway may have acted. */
  | 'unknown';

/** The identifiers of one call: what a shop reconciles by. Never a secret. */
export interface CallIds {
  mid: string;
  tid?: string | undefined;
  moid?: string | undefined;
  /** A data-host call's service id (sid). */
  sid?: string | undefined;
}

/** The call a ledger operation's request is, for log lines and diagnostics (a payout's is `payout.request`). */
export function callOperation(op: LedgerOperation): GatewayOperation {
  return op === 'payout' ? 'payout.request' : op;
}
