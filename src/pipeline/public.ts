/** What the package exports of the pipeline: the diagnostics channel's name and context, a charger's options. */
export { GATEWAY_CALL_CHANNEL, type GatewayCallContext } from './diagnostics.js';
export type { CallOutcome, GatewayOperation } from './operations.js';
export {
  SETTLE_CHANNEL,
  type SettleEvent,
  type SettleReport,
  type SettledItem,
  type SettledOutcome,
  type UnsettledItem,
} from './settle-report.js';
export type { LedgerOperation, LedgerState } from './ledger-record.js';
export { LEDGER_CHANNEL, type LedgerMove } from './walk.js';
export type { LedgerEvent } from './state-machine.js';
export type { ChargerOptions } from './charger.js';
