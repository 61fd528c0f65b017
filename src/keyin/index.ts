/** Interface B, card key-in: the client, its input and result types. */
export { createKeyinClient, KEYIN_RESULT_TTL_MS } from './client.js';
export type { ApprovedKeyin, DeclinedKeyin, KeyinBuyer, KeyinCard, KeyinClient, KeyinInput, KeyinResult } from './types.js';
