/**
 * The one path of every gateway call (docs/pipeline.md). A flow declares its request, the
 * meaning of its answer and its once-key; the pipeline does the rest.
 */
export { admit, callGateway, type CallReport, type GatewayCall, type OutboundRequest } from './gateway-call.js';
export { GATEWAY_CALL_CHANNEL, gatewayCallChannel, type GatewayCallContext } from './diagnostics.js';
export type { CallIds, CallOutcome, GatewayOperation } from './operations.js';
export { asTransportError, transportOutcome, type TransportOutcome } from './transport-failure.js';
export { MERCHANT_KEY_HINT, isSignatureRefusal, readAnswerFields, readResultCode, resultCodeProblem, withMerchantKeyHint, type AnswerFields, type ResultCodeReading } from './answer.js';
export { runFlowOnce, type FlowOnce } from './flow-once.js';
export type { RecordCodec } from '../store/run-once.js';
export { runOncePerMoid, type MoidRecord, type OncePerMoid } from './once-per-moid.js';
export { kvUnsafeField, refuseKvUnsafe } from './kv-text.js';
