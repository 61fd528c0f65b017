/**
 * Each method's rejection list (src/errors/rejections.ts) is exactly what its operation's
 * declaration lets the pipeline produce (pipelineCodes, read off the answer table and the hook)
 * plus the codes the method's own checks throw before the pipeline: a code added to a
 * declaration without its list, or left in a list after the code went away, fails here.
 */
import { expect } from 'chai';
import { approvalCall, approvalKind } from '../src/approval/operation.js';
import { billingChargeCall, billingChargeKind } from '../src/billing/charge-operation.js';
import { cancelCall, cancelKind } from '../src/cancel/operation.js';
import { validateCancel } from '../src/cancel/request.js';
import { cashReceiptCall, cashReceiptKind } from '../src/cash-receipt/operation.js';
import { validateReceipt } from '../src/cash-receipt/validate.js';
import { resolveConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import {
  BILLING_CHARGE_REJECTIONS,
  CANCEL_REJECTIONS,
  CASH_RECEIPT_REJECTIONS,
  CHECKOUT_REJECTIONS,
  KEYIN_REJECTIONS,
  type NicepayErrorCode,
} from '../src/errors/index.js';
import { validateCharge } from '../src/billing/validate.js';
import { keyinCall, keyinKind } from '../src/keyin/operation.js';
import { validateKeyinInput } from '../src/keyin/validate.js';
import { type OwnTidOperation, pipelineCodes } from '../src/pipeline/index.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';

const ctx = createContext(
  resolveConfig({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', settle: false }),
);
const hook = { run: () => undefined, timeoutMs: 1_000 };
/** The call of an operation whose TID the shop issues, with a TID drawn for it. */
const callOf = <R>(operation: OwnTidOperation<R>) => operation.call(operation.drawTid());
const sorted = (codes: Iterable<string>): string[] => [...new Set(codes)].sort();
const expectList = (
  list: readonly NicepayErrorCode[],
  produced: ReadonlySet<NicepayErrorCode>,
  own: readonly NicepayErrorCode[],
): void => {
  expect(sorted(list)).to.deep.equal(sorted([...produced, ...own]));
};

describe("each method's rejection list is what its declaration produces", () => {
  it('checkoutReturn: the approval call with a hook, plus the body, the return and the shop hook checks', () => {
    const call = approvalCall(ctx, approvalKind(ctx), {
      nextAppUrl: new URL('http://127.0.0.1:9/a'),
      netCancelUrl: new URL('http://127.0.0.1:9/b'),
      tid: `${MID}01012611270000000001`,
      authToken: 't',
      tokenDigest: 'd',
      amount: 1_000,
      moid: 'm',
      payMethod: 'CARD',
      responseCharset: 'euc-kr',
      ediType: 'JSON',
      keepMs: 1,
      hook,
    });
    expectList(CHECKOUT_REJECTIONS, pipelineCodes(call), [
      'NICEPAY_BODY_ALREADY_PARSED',
      'NICEPAY_BODY_TOO_LARGE',
      'NICEPAY_BODY_MALFORMED',
      'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
      'NICEPAY_CHARSET_UNSUPPORTED',
      'NICEPAY_UNTRUSTED_URL',
      'NICEPAY_UNKNOWN_ORDER',
      'NICEPAY_AMOUNT_MISMATCH',
      'NICEPAY_SIGNATURE_MISMATCH',
      'NICEPAY_HOOK_RESULT_INVALID',
    ]);
  });

  it('keyin(): the key-in call with a hook', () => {
    const n = validateKeyinInput(
      { moid: 'k', amount: 1_000, goodsName: 'g', card: { number: '4111111111111111', expiry: '3012' } },
      new Date(),
    );
    expectList(KEYIN_REJECTIONS, pipelineCodes(callOf(keyinCall(ctx, keyinKind(ctx), n, hook))), []);
  });

  it('billing.charge(): the charge call with a hook', () => {
    const n = validateCharge({ bid: 'BIKYnicepay00m2611271000000012', moid: 'b', amount: 1_000, goodsName: 'g' });
    expectList(
      BILLING_CHARGE_REJECTIONS,
      pipelineCodes(callOf(billingChargeCall(ctx, billingChargeKind(ctx), n, hook))),
      [],
    );
  });

  it('cashReceipt.issue(): the receipt call', () => {
    const n = validateReceipt({
      moid: 'r',
      amount: 1_100,
      goodsName: 'g',
      type: 'income-deduction',
      identity: '01012345678',
      supply: 1_000,
      vat: 100,
    });
    expectList(CASH_RECEIPT_REJECTIONS, pipelineCodes(callOf(cashReceiptCall(ctx, cashReceiptKind(ctx), n))), []);
  });

  it('cancel(): the cancel call, plus the remaining-amount check', () => {
    const n = validateCancel({ tid: `${MID}01012611270000000001`, moid: 'c', amount: 100, reason: 'r' });
    expectList(CANCEL_REJECTIONS, pipelineCodes(cancelCall(ctx, cancelKind(ctx), n)), [
      'NICEPAY_CANCEL_EXCEEDS_REMAINING',
    ]);
  });
});
