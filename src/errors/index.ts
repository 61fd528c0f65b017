export { NicepayError, isNicepayError, type NicepayErrorCode, type NetCancelOutcome, type NicepayErrorInit } from './nicepay-error.js';
export { NicepayRequestError, NicepayConfigError, NicepayScheduleError } from './request-errors.js';
export { NicepayGatewayError, NicepayDataApiError, type GatewayErrorInit } from './gateway-errors.js';
export { ERROR_CODES, statusOf, type CodeOf, type ErrorClassName } from './codes.js';
