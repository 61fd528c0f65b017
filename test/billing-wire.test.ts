import { expect } from 'chai';
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildChargeForm, buildRegisterForm, buildRemoveForm } from '../src/billing/request.js';
import { issueBillingTid } from '../src/billing/tid.js';
import { issueTid } from '../src/wire/tid.js';
import { validateCharge, validateRegister, validateRemove } from '../src/billing/validate.js';
import { buildReceiptForm } from '../src/cash-receipt/request.js';
import { validateReceipt } from '../src/cash-receipt/validate.js';
import { billingEncPlaintext, parseBillingEncPlaintext } from '../src/wire/billing-fields.js';
import {
  billingChargeSignData,
  billingRegisterSignData,
  billingRemoveSignData,
} from '../src/wire/billing-signatures.js';
import { decryptEncData, encryptEncData } from '../src/wire/enc-data.js';
import { decodeForm } from '../src/wire/form-codec.js';
import { fromKst } from '../src/wire/kst.js';
import { businessNumberValid, receiptSignData } from '../src/wire/receipt-fields.js';

interface Rule {
  rule: string;
  input: Record<string, string>;
  expect: string;
}
const v = JSON.parse(readFileSync(new URL('./fixtures/billing-vectors.json', import.meta.url), 'utf8')) as {
  merchantKey: string;
  register: Rule;
  charge: Rule;
  remove: Rule;
  receipt: Rule;
  encData: { plaintext: string; expect: string };
};
const KEY = v.merchantKey;
/** The facts' rule computed here with node:crypto over the plain concatenation, not with the package. */
const sha = (...parts: string[]): string => createHash('sha256').update(parts.join(''), 'utf8').digest('hex');

describe('billing wire: SignData known-answer vectors (computed by hand from the facts)', () => {
  it('register: sha256(MID + EdiDate + Moid + key)', () => {
    const i = v.register.input;
    expect(sha(i.MID!, i.EdiDate!, i.Moid!, KEY), "the fixture is the facts' rule").to.equal(v.register.expect);
    expect(billingRegisterSignData(i.MID!, i.EdiDate!, i.Moid!, KEY)).to.equal(v.register.expect);
  });

  it('charge: sha256(MID + EdiDate + Moid + Amt + BID + key)', () => {
    const i = v.charge.input;
    expect(sha(i.MID!, i.EdiDate!, i.Moid!, i.Amt!, i.BID!, KEY)).to.equal(v.charge.expect);
    expect(billingChargeSignData(i.MID!, i.EdiDate!, i.Moid!, i.Amt!, i.BID!, KEY)).to.equal(v.charge.expect);
  });

  it('remove: sha256(MID + EdiDate + Moid + BID + key), no Amt', () => {
    const i = v.remove.input;
    expect(sha(i.MID!, i.EdiDate!, i.Moid!, i.BID!, KEY)).to.equal(v.remove.expect);
    expect(billingRemoveSignData(i.MID!, i.EdiDate!, i.Moid!, i.BID!, KEY)).to.equal(v.remove.expect);
  });

  it('the three billing rules differ: swapping them never verifies', () => {
    const i = v.charge.input;
    const all = new Set([
      billingRegisterSignData(i.MID!, i.EdiDate!, i.Moid!, KEY),
      billingChargeSignData(i.MID!, i.EdiDate!, i.Moid!, i.Amt!, i.BID!, KEY),
      billingRemoveSignData(i.MID!, i.EdiDate!, i.Moid!, i.BID!, KEY),
    ]);
    expect(all.size).to.equal(3);
  });

  it('receipt: sha256(MID + ReceiptAmt + EdiDate + Moid + key)', () => {
    const i = v.receipt.input;
    expect(sha(i.MID!, i.ReceiptAmt!, i.EdiDate!, i.Moid!, KEY)).to.equal(v.receipt.expect);
    expect(receiptSignData(i.MID!, i.ReceiptAmt!, i.EdiDate!, i.Moid!, KEY)).to.equal(v.receipt.expect);
  });
});

describe('billing wire: EncData uses the billing names', () => {
  it("the plaintext is CardNo, ExpYear, ExpMonth, IDNo, CardPw in that order, never key-in's names", () => {
    const text = billingEncPlaintext({
      number: '4111111111111111',
      expYear: '29',
      expMonth: '12',
      idNo: '800101',
      password2: '12',
    });
    expect(text).to.equal(v.encData.plaintext);
    expect(text).to.not.match(/CardExpire|BuyerAuthNum|CardPwd/);
    expect(billingEncPlaintext({ number: '4111111111111111', expYear: '29', expMonth: '12' })).to.equal(
      'CardNo=4111111111111111&ExpYear=29&ExpMonth=12&IDNo=&CardPw=',
    );
  });

  it('encrypts to the vector (AES-128-ECB, key = first 16 characters, lower-case hex) and reads either case back', () => {
    const c = createCipheriv('aes-128-ecb', Buffer.from(KEY.slice(0, 16), 'latin1'), null);
    const byHand = Buffer.concat([c.update(v.encData.plaintext, 'utf8'), c.final()]).toString('hex');
    expect(byHand).to.equal(v.encData.expect);
    expect(encryptEncData(v.encData.plaintext, KEY)).to.equal(v.encData.expect);
    expect(decryptEncData(v.encData.expect.toUpperCase(), KEY)).to.equal(v.encData.plaintext);
    const d = createDecipheriv('aes-128-ecb', Buffer.from(KEY.slice(0, 16), 'latin1'), null);
    expect(Buffer.concat([d.update(Buffer.from(v.encData.expect, 'hex')), d.final()]).toString('utf8')).to.equal(
      v.encData.plaintext,
    );
  });

  it('the sandbox side reads only the billing shape', () => {
    expect(parseBillingEncPlaintext(v.encData.plaintext)).to.deep.equal({
      CardNo: '4111111111111111',
      ExpYear: '29',
      ExpMonth: '12',
      IDNo: '800101',
      CardPw: '12',
    });
    expect(parseBillingEncPlaintext('CardNo=4111111111111111&CardExpire=2912&BuyerAuthNum=&CardPwd=')).to.equal(
      undefined,
    );
    expect(parseBillingEncPlaintext('CardNo=4111111111111111&ExpMonth=12&ExpYear=29&IDNo=&CardPw=')).to.equal(
      undefined,
    );
  });
});

describe('billing wire: TIDs and forms in KST', () => {
  // 2026-11-21 10:30:00 KST is 01:30 UTC: the TID's time part is KST whatever TZ says.
  const at = fromKst(2026, 11, 21, 10, 30, 0);

  it('a charge TID is MID + 01 + 16 + YYMMDDHHMISS (KST) + 4 random', () => {
    const tid = issueBillingTid('nictest04m', at);
    expect(tid).to.have.length(30);
    expect(tid.slice(0, 26)).to.equal('nictest04m0116261121103000');
    expect(tid.slice(26)).to.match(/^[0-9A-Za-z]{4}$/);
    expect(issueBillingTid('nictest04m', at)).to.not.equal(tid);
  });

  it('a receipt TID is MID + 04 + 01 + KST time + 4 random', () => {
    expect(issueTid('nictest04m', '04', '01', at).slice(0, 26)).to.equal('nictest04m0401261121103000');
  });

  it('the charge form carries the vector SignData and every table field', () => {
    const i = v.charge.input;
    const n = validateCharge({ bid: i.BID!, moid: i.Moid!, amount: Number(i.Amt), goodsName: '정기구독 11월' });
    const form = decodeForm(buildChargeForm(n, i.MID!, KEY, 'nictest04m0116261121103000AbC1', i.EdiDate!), 'euc-kr');
    expect(form.SignData).to.equal(v.charge.expect);
    expect(form).to.include({
      BID: i.BID,
      TID: 'nictest04m0116261121103000AbC1',
      Amt: '9900',
      CardQuota: '00',
      CardInterest: '0',
      GoodsName: '정기구독 11월',
    });
  });

  it('the register and remove forms carry their vector SignData', () => {
    const r = v.register.input;
    const reg = validateRegister(
      {
        moid: r.Moid!,
        card: { number: '4111-1111-1111-1111', expYear: '2029', expMonth: '12', idNo: '800101', password2: '12' },
      },
      at,
    );
    const regForm = decodeForm(buildRegisterForm(reg, r.MID!, KEY, r.EdiDate!), 'euc-kr');
    expect(regForm.SignData).to.equal(v.register.expect);
    expect(regForm.EncData).to.equal(v.encData.expect);
    const m = v.remove.input;
    const rmForm = decodeForm(
      buildRemoveForm(validateRemove({ bid: m.BID!, moid: m.Moid! }), m.MID!, KEY, m.EdiDate!),
      'euc-kr',
    );
    expect(rmForm.SignData).to.equal(v.remove.expect);
    expect(rmForm).to.not.have.property('Amt');
  });

  it('the receipt form carries its vector SignData and the amount parts', () => {
    const i = v.receipt.input;
    const n = validateReceipt({
      moid: i.Moid!,
      amount: 11000,
      goodsName: '무통장 주문',
      type: 'expense-proof',
      identity: '123-45-67891',
      supply: 10000,
      vat: 1000,
    });
    const form = decodeForm(buildReceiptForm(n, i.MID!, KEY, 'nictest04m0401261121103000AbC1', i.EdiDate!), 'euc-kr');
    expect(form.SignData).to.equal(v.receipt.expect);
    expect(form).to.include({
      ReceiptAmt: '11000',
      ReceiptType: '2',
      ReceiptTypeNo: '1234567891',
      ReceiptSupplyAmt: '10000',
      ReceiptVAT: '1000',
      ReceiptServiceAmt: '0',
      ReceiptTaxFreeAmt: '0',
    });
  });
});

describe('billing and receipt input validation', () => {
  const now = fromKst(2026, 11, 21, 10, 30, 0);
  const card = { number: '4111111111111111', expYear: '29', expMonth: '12' };
  const invalid = (fn: () => unknown, field: string): void => {
    expect(fn).to.throw().with.property('field', field);
    try {
      fn();
    } catch (err) {
      expect((err as { code: string }).code).to.equal('NICEPAY_FIELD_INVALID');
    }
  };

  it('refuses a bad card, an expired card and bad IDNo / CardPw without echoing them', () => {
    invalid(() => validateRegister({ moid: 'm', card: { ...card, number: '4111111111111112' } }, now), 'card.number');
    invalid(
      () => validateRegister({ moid: 'm', card: { ...card, expYear: '26', expMonth: '10' } }, now),
      'card.expYear',
    );
    invalid(() => validateRegister({ moid: 'm', card: { ...card, expMonth: '13' } }, now), 'card.expMonth');
    invalid(() => validateRegister({ moid: 'm', card: { ...card, idNo: '8001011' } }, now), 'card.idNo');
    invalid(() => validateRegister({ moid: 'm', card: { ...card, password2: '123' } }, now), 'card.password2');
    // The current month (KST) is still valid: a card is good through the last day of its month.
    expect(validateRegister({ moid: 'm', card: { ...card, expYear: '26', expMonth: '11' } }, now).expMonth).to.equal(
      '11',
    );
    try {
      validateRegister({ moid: 'm', card: { ...card, number: '4111111111111112' } }, now);
    } catch (err) {
      expect((err as Error).message).to.not.include('4111');
    }
  });

  it('a charge needs a 30-character BID, whole won and a goods name within 40 EUC-KR bytes', () => {
    const ok = { bid: 'BIKYnictest04m2606221030450012', moid: 'm1', amount: 9900, goodsName: 'x' };
    invalid(() => validateCharge({ ...ok, bid: 'short' }), 'bid');
    invalid(() => validateCharge({ ...ok, amount: 99.5 }), 'amount');
    invalid(() => validateCharge({ ...ok, amount: 0 }), 'amount');
    invalid(() => validateCharge({ ...ok, goodsName: '가'.repeat(21) }), 'goodsName');
    expect(validateCharge({ ...ok, goodsName: '가'.repeat(20) }).goodsName).to.have.length(20);
    invalid(() => validateCharge({ ...ok, quota: 1 }), 'quota');
    expect(validateCharge({ ...ok, quota: 3 }).quota).to.equal('03');
    try {
      validateCharge({ ...ok, bid: 'BIKYnictest04m26062210304500' });
    } catch (err) {
      expect((err as Error).message).to.not.include('BIKY');
    }
  });

  it('receipt amounts must add up: supply + VAT + service + tax-free = amount', () => {
    const ok = {
      moid: 'r1',
      amount: 11000,
      goodsName: '주문',
      type: 'income-deduction' as const,
      identity: '010-1234-5678',
      supply: 10000,
      vat: 1000,
    };
    expect(validateReceipt(ok).identity).to.equal('01012345678');
    invalid(() => validateReceipt({ ...ok, vat: 999 }), 'amount');
    expect(validateReceipt({ ...ok, amount: 11500, service: 300, taxFree: 200 }).amount).to.equal(11500);
    invalid(() => validateReceipt({ ...ok, supply: -1, vat: 11001 }), 'supply');
    invalid(() => validateReceipt({ ...ok, vat: 1000.5 }), 'vat');
  });

  it('ReceiptTypeNo is validated per type', () => {
    const base = { moid: 'r1', amount: 11000, goodsName: '주문', supply: 10000, vat: 1000 };
    // income deduction: a mobile number or a cash-receipt card; a business number is not one.
    expect(validateReceipt({ ...base, type: 'income-deduction', identity: '1234567890123456' }).receiptType).to.equal(
      '1',
    );
    invalid(() => validateReceipt({ ...base, type: 'income-deduction', identity: '1234567891' }), 'identity');
    // expense proof: a business number whose check digit is right, or a cash-receipt card.
    // 1234567891: 1·1+2·3+3·7+4·1+5·3+6·7+7·1+8·3+9·5 = 165, + ⌊9·5/10⌋ = 169, (10 − 9) mod 10 = 1.
    expect(businessNumberValid('1234567891')).to.equal(true);
    expect(businessNumberValid('1234567892')).to.equal(false);
    expect(validateReceipt({ ...base, type: 'expense-proof', identity: '123-45-67891' }).receiptType).to.equal('2');
    invalid(() => validateReceipt({ ...base, type: 'expense-proof', identity: '1234567892' }), 'identity');
    invalid(() => validateReceipt({ ...base, type: 'expense-proof', identity: '01012345678' }), 'identity');
    invalid(() => validateReceipt({ ...base, type: 'other' as 'expense-proof', identity: '1234567891' }), 'type');
  });
});
