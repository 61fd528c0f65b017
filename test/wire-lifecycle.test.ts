import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  approvalResponseSignature,
  cancelResponseSignature,
  cancelSignData,
  statusSignData,
} from '../src/wire/signatures.js';
import { cancelRefusalReason } from '../src/wire/cancel-codes.js';

const v = JSON.parse(readFileSync(new URL('./fixtures/lifecycle-vectors.json', import.meta.url), 'utf8')) as {
  merchantKey: string;
  mid: string;
  ediDate: string;
  cancelSignData: { cancelAmt: string; expect: string }[];
  statusSignData: { tid: string; expect: string };
  fullCancelOfApprovalVector: { tid: string; cancelAmt: string; expect: string };
};

describe('wire: cancel and status integrity rules (lifecycle-facts known answers)', () => {
  for (const c of v.cancelSignData) {
    it(`cancel SignData for CancelAmt ${c.cancelAmt}`, () => {
      expect(cancelSignData(v.mid, c.cancelAmt, v.ediDate, v.merchantKey)).to.equal(c.expect);
    });
  }

  it('cancel SignData does not cover the TID: the same for any TID, different for another amount', () => {
    expect(cancelSignData(v.mid, '1004', v.ediDate, v.merchantKey)).to.not.equal(
      cancelSignData(v.mid, '1005', v.ediDate, v.merchantKey),
    );
  });

  it('status SignData', () => {
    expect(statusSignData(v.statusSignData.tid, v.mid, v.ediDate, v.merchantKey)).to.equal(v.statusSignData.expect);
  });

  it('a full cancel of the approval vector has the approval answer Signature', () => {
    const c = v.fullCancelOfApprovalVector;
    expect(cancelResponseSignature(c.tid, v.mid, c.cancelAmt, v.merchantKey)).to.equal(c.expect);
    expect(approvalResponseSignature(c.tid, v.mid, c.cancelAmt, v.merchantKey)).to.equal(c.expect);
    // Over the answer's own string: the unpadded amount signs differently.
    expect(cancelResponseSignature(c.tid, v.mid, '1004', v.merchantKey)).to.not.equal(c.expect);
  });

  it('every refusal code of the facts table has its reason', () => {
    const table: Record<string, string> = {
      '2013': 'already-cancelled',
      '2015': 'already-cancelled',
      '2012': 'not-found',
      '2016': 'period-passed',
      '2032': 'amount-too-large',
      '2028': 'partial-not-allowed',
      '2029': 'partial-not-allowed',
      '2030': 'partial-not-allowed',
      '2033': 'partial-not-allowed',
      '2052': 'partial-not-allowed',
      '2045': 'vbank-state',
      '2047': 'refund-instead',
      '2061': 'refund-instead',
      '2059': 'balance-mismatch',
      '2060': 'duplicate-partial',
      '2221': 'refund-account-required',
      '9999': 'other',
      toString: 'other',
      constructor: 'other',
    };
    for (const [code, reason] of Object.entries(table)) expect(cancelRefusalReason(code), code).to.equal(reason);
  });
});
