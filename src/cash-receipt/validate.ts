import { fieldInvalid, type WireBuyer, wireBuyer, wireText } from '../validation/input-text.js';
import { type WireFormat, wireFormat } from '../billing/validate.js';
import { MAX_AMOUNT, isValidAmount } from '../wire/amount.js';
import {
  RECEIPT_TYPE_CODES,
  type ReceiptPurpose,
  receiptAmountsAddUp,
  receiptIdentityProblem,
} from '../wire/receipt-fields.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import { CASH_RECEIPT_BUYER_KEYS, CASH_RECEIPT_INPUT_KEYS, type CashReceiptInput } from './types.js';

/** A receipt in wire form. */
export interface NormalizedReceipt extends WireBuyer, WireFormat {
  moid: string;
  amount: number;
  goodsName: string;
  purpose: ReceiptPurpose;
  receiptType: '1' | '2';
  identity: string;
  supply: number;
  vat: number;
  service: number;
  taxFree: number;
}

function part(value: unknown, field: string, required: boolean): number {
  if (value === undefined && !required) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_AMOUNT) {
    throw fieldInvalid(field, 'must be a whole number of won, 0 or more, with at most 12 digits');
  }
  return value;
}

/**
 * Checks a receipt before anything is sent: amounts in whole won that add up (supply + VAT +
 * service + tax-free = amount), the identity fits the purpose, text fields fit their EUC-KR
 * byte sizes.
 */
export function validateReceipt(input: CashReceiptInput): NormalizedReceipt {
  if (typeof input !== 'object' || input === null) throw fieldInvalid('input', 'must be an object');
  refuseUnknownInput(input, CASH_RECEIPT_INPUT_KEYS, 'cashReceipt.issue()');
  const moid = wireText(input.moid, 'moid', 64, true)!;
  if (!isValidAmount(input.amount))
    throw fieldInvalid('amount', 'must be a positive whole number of won with at most 12 digits');
  const goodsName = wireText(input.goodsName, 'goodsName', 40, true)!;
  const purpose = input.type;
  if (purpose !== 'income-deduction' && purpose !== 'expense-proof')
    throw fieldInvalid('type', "must be 'income-deduction' or 'expense-proof'");
  if (typeof input.identity !== 'string') throw fieldInvalid('identity', 'must be a string of digits');
  const identity = input.identity.replace(/[\s-]/g, '');
  const problem = receiptIdentityProblem(purpose, identity);
  if (problem) throw fieldInvalid('identity', problem);
  const supply = part(input.supply, 'supply', true);
  const vat = part(input.vat, 'vat', true);
  const service = part(input.service, 'service', false);
  const taxFree = part(input.taxFree, 'taxFree', false);
  if (!receiptAmountsAddUp({ amount: input.amount, supply, vat, service, taxFree })) {
    throw fieldInvalid(
      'amount',
      `must equal supply + vat + service + taxFree (${supply} + ${vat} + ${service} + ${taxFree} = ${supply + vat + service + taxFree}, not ${input.amount})`,
    );
  }
  return {
    moid,
    amount: input.amount,
    goodsName,
    purpose,
    receiptType: RECEIPT_TYPE_CODES[purpose],
    identity,
    supply,
    vat,
    service,
    taxFree,
    ...wireBuyer(input.buyer, CASH_RECEIPT_BUYER_KEYS, 'cashReceipt.issue()'),
    ...wireFormat(input),
  };
}

/** An identity for logs: its last 4 digits only. */
export function maskIdentity(identity: string): string {
  return '*'.repeat(Math.max(0, identity.length - 4)) + identity.slice(-4);
}
