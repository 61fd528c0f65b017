/** Recurring card billing: the client, its input and result types. */
export { createBillingClient } from './client.js';
export { billingChargeKind, BILLING_RESULT_TTL_MS } from './charge-operation.js';
export type {
  ApprovedBillingCharge,
  BillingBuyer,
  BillingCard,
  BillingCardInfo,
  BillingChargeInput,
  BillingChargeResult,
  BillingChargerInput,
  BillingChargerOptions,
  BillingClient,
  BillingRegisterInput,
  BillingRegisterResult,
  BillingRemoveInput,
  BillingRemoveResult,
  DeclinedBillingCharge,
  RefusedBilling,
  RegisteredBilling,
  RemovedBilling,
  BillingKeyRejection,
  BillingChargeRejection,
} from './types.js';
