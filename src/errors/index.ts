export { NicepayError, isNicepayError, type NicepayErrorCode, type NetCancelOutcome, type NicepayErrorInit } from './nicepay-error.js';
export { NicepayRequestError, NicepayServiceError, NicepayConfigError, NicepayScheduleError } from './request-errors.js';
export { NicepayGatewayError, NicepayHookError, NicepayDataApiError, type GatewayErrorInit, type HookErrorInit, type Settlement } from './gateway-errors.js';
export { ERROR_CODES, statusOf, type CodeOf, type ErrorClassName } from './codes.js';
export type { CheckoutRejection, KeyinRejection, CancelRejection, StatusRejection, PayoutRejection, ReconRejection, BillingChargeRejection, BillingKeyRejection, CashReceiptRejection } from './rejections.js';
export { CHECKOUT_REJECTIONS, KEYIN_REJECTIONS, BILLING_CHARGE_REJECTIONS, CASH_RECEIPT_REJECTIONS, CANCEL_REJECTIONS, PAYOUT_REJECTIONS } from './rejections.js';
