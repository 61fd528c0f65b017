export { SID, buildEnvelope, type DataSid, type DataPath, type DataRequestEnvelope, type DataRequestHeader } from './envelope.js';
export { DATA_RES_REASONS, UNLISTED_REASON, OUTCOME_UNKNOWN_REASON, reasonOf } from './res-codes.js';
export { parseDataResponse, RES_CODE_OK, type DataResponse, type DataResponseHeader } from './parse-response.js';
export { callDataHost, dataHostUrl, type DataCall } from './call.js';
export { pick, text, amount, object, list, isObject, type JsonObject } from './lenient.js';
