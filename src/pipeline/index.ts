/**
 * The one path of every gateway call and every money operation (docs/pipeline.md). An
 * interface declares its request, the meaning of its answer, its once-key and its reversal;
 * the pipeline does the rest.
 */
export { admit, callGateway, type CallReport, type GatewayCall, type OutboundRequest } from './gateway-call.js';
export { GATEWAY_CALL_CHANNEL, gatewayCallChannel, type GatewayCallContext } from './diagnostics.js';
export type { CallIds, CallOutcome, GatewayOperation } from './operations.js';
export { asTransportError, transportOutcome, type TransportOutcome } from './transport-failure.js';
export {
  CARD_COMPANY_TIMEOUTS,
  DUPLICATE_MOID_REFUSALS,
  MERCHANT_KEY_HINT,
  isSignatureRefusal,
  readAnswerFields,
  readResultCode,
  resultCodeProblem,
  withMerchantKeyHint,
  type AnswerFields,
  type ResultCodeReading,
} from './answer.js';
export { readAnswer, type AnswerTable, type Reading } from './answer-rules.js';
export { kvUnsafeField, refuseKvUnsafe } from './kv-text.js';
export type { LedgerOperation, LedgerRecord, LedgerState } from './ledger-record.js';
export type {
  Exchange,
  ExchangeReading,
  GatewayHolding,
  GatewayRequest,
  OperationCall,
  OperationKind,
  OwnTidOperation,
  Resend,
  ReversalRequest,
} from './operation.js';
export { runOperation, runOwnTidOperation } from './run-operation.js';
export { type ChargerHook, type ChargerOptions, chargerHook, refuseOwnHook } from './charger.js';
export { callHook, errorText, runNoticeHook, type HookContext, type HookRun, type HookVerdict } from './hook-runner.js';
export {
  settlePass,
  unsettledItems,
  type KindRegistry,
  type SettleSettings,
} from './settle.js';
export {
  SETTLE_CHANNEL,
  type SettleReport,
  type SettledItem,
  type SettledOutcome,
  type UnsettledItem,
  type SettleEvent,
} from './settle-report.js';
export { appendToTally, MAX_TALLY_ENTRIES, TALLY_KEEP_MS, tallyRecords } from './tally.js';
export { readRecord, readTallyValues } from './read-record.js';
export { settleNoticed } from './noticed.js';
export { pipelineCodes } from './rejection-codes.js';
