/** Interface B, card key-in: the client, its input and result types. */
export { createKeyinClient } from './client.js';
export { keyinKind, KEYIN_RESULT_TTL_MS } from './operation.js';
export type {
  ApprovedKeyin,
  DeclinedKeyin,
  KeyinBuyer,
  KeyinCard,
  KeyinChargerInput,
  KeyinChargerOptions,
  KeyinClient,
  KeyinInput,
  KeyinResult,
} from './types.js';
