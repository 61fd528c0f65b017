/** What the package exports of the pipeline: the diagnostics channel's name and context. */
export { GATEWAY_CALL_CHANNEL, type GatewayCallContext } from './diagnostics.js';
export type { CallOutcome, GatewayOperation } from './operations.js';
