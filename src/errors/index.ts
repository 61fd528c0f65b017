export { NicepayError, isNicepayError, type NicepayErrorCode, type NetCancelOutcome, type NicepayErrorInit } from './nicepay-error.js';
export { NicepayRequestError, NicepayConfigError, NicepayScheduleError } from './request-errors.js';
export { NicepayGatewayError, NicepayDataApiError, type GatewayErrorInit } from './gateway-errors.js';
