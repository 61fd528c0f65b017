/** Standalone cash receipts: the client, its input and result types. */
export { createCashReceiptClient, RECEIPT_RESULT_TTL_MS } from './client.js';
export type { CashReceiptClient, CashReceiptInput, CashReceiptResult, IssuedCashReceipt, RefusedCashReceipt, CashReceiptRejection } from './types.js';
export type { ReceiptPurpose } from '../wire/receipt-fields.js';
