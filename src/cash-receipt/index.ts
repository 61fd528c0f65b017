/** Standalone cash receipts: the client, its input and result types. */
export { createCashReceiptClient } from './client.js';
export { cashReceiptKind, RECEIPT_RESULT_TTL_MS } from './operation.js';
export type {
  CashReceiptClient,
  CashReceiptInput,
  CashReceiptResult,
  IssuedCashReceipt,
  RefusedCashReceipt,
  CashReceiptRejection,
} from './types.js';
export type { ReceiptPurpose } from '../wire/receipt-fields.js';
