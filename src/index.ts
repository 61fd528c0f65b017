/**
 * express-nicepay: Express middleware for NICEPAY's legacy web API.
 * This module only re-exports; internals stay internal so they can change.
 * @module
 */
export { createNicepay, type Nicepay } from './nicepay.js';
export type { NicepayOptions, SettleOptions } from './config.js';
export type { Timeouts } from './transport.js';
export type { Logger } from './logger.js';
export type { CheckoutReturnOptions } from './express/checkout-return.js';
export type { HookContext } from './approval/checkout-options.js';
export type {
  CheckoutResult,
  ApprovedCheckout,
  AwaitingDepositCheckout,
  DeclinedCheckout,
  AuthFailedCheckout,
  UnverifiedAuthFailure,
  CommittedCheckout,
  CheckoutCommon,
} from './types/checkout.js';
export type {
  Payment,
  PayMethod,
  PaymentCommon,
  CardPayment,
  BankPayment,
  VbankPayment,
  CellphonePayment,
  CashReceiptType,
} from './types/payment.js';
export { SUCCESS_CODES } from './types/payment.js';
export { memoryStore, type MemoryStoreOptions } from './store/memory-store.js';
export {
  StoreFullError,
  type ClosableLedgerStore,
  type LedgerStore,
  type LeaseResult,
  type RecordWrite,
  type StoredRecord,
} from './store/types.js';
export {
  NicepayError,
  NicepayRequestError,
  NicepayServiceError,
  NicepayConfigError,
  NicepayScheduleError,
  NicepayGatewayError,
  NicepayHookError,
  NicepayDataApiError,
  isNicepayError,
  type NicepayErrorCode,
  type NetCancelOutcome,
  type NicepayErrorInit,
  type GatewayErrorInit,
  type HookErrorInit,
  type Settlement,
  type CheckoutRejection,
  type KeyinRejection,
  type CancelRejection,
  type StatusRejection,
  type PayoutRejection,
  type ReconRejection,
  CHECKOUT_REJECTIONS,
  KEYIN_REJECTIONS,
  BILLING_CHARGE_REJECTIONS,
  CASH_RECEIPT_REJECTIONS,
  CANCEL_REJECTIONS,
} from './errors/index.js';
export type { Charset } from './wire/charset.js';
export type {
  KeyinInput,
  KeyinResult,
  ApprovedKeyin,
  DeclinedKeyin,
  KeyinCard,
  KeyinBuyer,
  KeyinChargerInput,
  KeyinChargerOptions,
} from './keyin/index.js';
export type { KeyinRouterOptions } from './express/keyin-router.js';
export type { EdiType } from './wire/response-body.js';
export {
  GATEWAY_CALL_CHANNEL,
  type GatewayCallContext,
  type GatewayOperation,
  type CallOutcome,
} from './pipeline/public.js';
export { LEDGER_CHANNEL, type LedgerMove, type LedgerEvent, type ChargerOptions } from './pipeline/public.js';
export {
  SETTLE_CHANNEL,
  type SettleReport,
  type SettledItem,
  type SettledOutcome,
  type UnsettledItem,
  type SettleEvent,
  type LedgerOperation,
  type LedgerState,
} from './pipeline/public.js';
export type {
  PayoutClient,
  PayoutOptions,
  PayoutBalance,
  BalanceLastEntry,
  BalanceEntryKind,
  SubMerchantInput,
  SubMerchantResult,
  PayoutRequestInput,
  PayoutRequestResult,
  PayoutCancelInput,
  PayoutCancelResult,
  PayoutResultsQuery,
  PayoutResults,
  PayoutResultItem,
  PayoutStatus,
  ScheduleRule,
  BusinessDays,
} from './payout/index.js';
export type {
  ReconClient,
  CashReceiptQuery,
  CashReceiptList,
  CashReceiptItem,
  CashReceiptState,
  CashReceiptStatus,
  CashReceiptPurpose,
  OrgSvcCd,
  IdCl,
} from './recon/index.js';
export { DATA_RES_REASONS } from './data-api/res-codes.js';
export type { PaymentWindowOrder, PaymentWindowFields, WindowBuyer } from './window/types.js';
export type {
  CancelInput,
  CancelResult,
  CancelledResult,
  RefundPendingResult,
  CancelRefusedResult,
  CancelCommon,
  RefundAccount,
  CancelRefusalReason,
} from './cancel/types.js';
export type { TransactionStatus } from './status/types.js';
export type { NotificationsOptions, DepositNotice, CancelNotice, ExpectedOrder, NoticeAnswer } from './notify/types.js';
export { GATEWAY_NOTICE_IPS } from './notify/options.js';
export type {
  BillingClient,
  BillingRegisterInput,
  BillingRegisterResult,
  RegisteredBilling,
  RefusedBilling,
  BillingCard,
  BillingCardInfo,
  BillingBuyer,
  BillingChargeInput,
  BillingChargeResult,
  BillingChargerInput,
  BillingChargerOptions,
  ApprovedBillingCharge,
  DeclinedBillingCharge,
  BillingRemoveInput,
  BillingRemoveResult,
  RemovedBilling,
  BillingKeyRejection,
  BillingChargeRejection,
} from './billing/index.js';
export type {
  CashReceiptClient,
  CashReceiptInput,
  CashReceiptResult,
  IssuedCashReceipt,
  RefusedCashReceipt,
  ReceiptPurpose,
  CashReceiptRejection,
} from './cash-receipt/index.js';
