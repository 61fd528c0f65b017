/** Recurring card billing: the client, its input and result types. */
export { createBillingClient, BILLING_RESULT_TTL_MS, BILLING_HOOK_TIMEOUT_MS } from './client.js';
export type {
  ApprovedBillingCharge, BillingBuyer, BillingCard, BillingCardInfo, BillingChargeInput, BillingChargeResult, BillingClient,
  BillingRegisterInput, BillingRegisterResult, BillingRemoveInput, BillingRemoveResult, DeclinedBillingCharge, RefusedBilling,
  RegisteredBilling, RemovedBilling, BillingKeyRejection, BillingChargeRejection,
} from './types.js';
