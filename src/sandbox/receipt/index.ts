import type { SandboxModule } from '../types.js';
import { cashReceipt } from './cash-receipt.js';

export { RECEIPT_CODES } from './cash-receipt.js';

/** Standalone cash receipts of the sandbox (docs/spec/billing-facts.md §2). */
export const receiptModule: SandboxModule = {
  name: 'cash-receipt',
  routes: { 'POST /webapi/cash_receipt.jsp': cashReceipt },
};
