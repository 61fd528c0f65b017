import { expect } from 'chai';
import { isValidAmount, padAmount, parseAmount } from '../src/wire/amount.js';
import { APPROVAL_REQUEST_FIELDS, checkFields } from '../src/wire/field-sizes.js';
import { fromKst, kstDate8, kstParts, kstTimestamp12, kstTimestamp14, parseKstTimestamp } from '../src/wire/kst.js';

describe('wire: KST timestamps', () => {
  it('formats an instant in KST whatever TZ is', () => {
    const instant = new Date('2026-11-20T16:18:08Z'); // 01:18:08 on the 21st in Seoul
    expect(kstTimestamp14(instant)).to.equal('20261121011808');
    expect(kstTimestamp12(instant)).to.equal('261121011808');
    expect(kstDate8(instant)).to.equal('20261121');
    expect(kstParts(instant).weekday).to.equal(6); // Saturday in Seoul, Friday in UTC
  });

  it('parses 8, 12 and 14 digits back to the same instant and rejects impossible dates', () => {
    expect(parseKstTimestamp('261121011808')?.toISOString()).to.equal('2026-11-20T16:18:08.000Z');
    expect(parseKstTimestamp('20261121011808')?.getTime()).to.equal(fromKst(2026, 11, 21, 1, 18, 8).getTime());
    expect(parseKstTimestamp('20261121')?.toISOString()).to.equal('2026-11-20T15:00:00.000Z');
    expect(parseKstTimestamp('20260230120000')).to.equal(undefined);
    expect(parseKstTimestamp('2026113')).to.equal(undefined);
  });

  it('holds under the TZ this process runs with', () => {
    // The suite runs under several TZ values in CI; this pins the arithmetic to KST.
    const d = fromKst(2026, 1, 1, 0, 0, 0);
    expect(d.toISOString()).to.equal('2025-12-31T15:00:00.000Z');
    expect(kstTimestamp14(d)).to.equal('20260101000000');
  });
});

describe('wire: amounts and field sizes', () => {
  it('parses zero-padded amounts into whole won', () => {
    expect(parseAmount('000000001004')).to.equal(1004);
    expect(parseAmount('1004')).to.equal(1004);
    for (const bad of ['', '-1', '10.4', '1e3', ' 1', '0x10', '１']) expect(parseAmount(bad), bad).to.equal(undefined);
    expect(padAmount(1004)).to.equal('000000001004');
    expect(isValidAmount(1004)).to.equal(true);
    expect(isValidAmount(0)).to.equal(false);
    expect(isValidAmount(1.5)).to.equal(false);
    expect(isValidAmount(1e12)).to.equal(false);
  });

  it('checks sizes in bytes of the wire encoding, naming the field and never the value', () => {
    const base = { TID: 't', AuthToken: 'a', MID: 'nicepay00m', Amt: '1004', EdiDate: '20261121103000', SignData: 's' };
    expect(checkFields(APPROVAL_REQUEST_FIELDS, base, 'euc-kr')).to.equal(undefined);
    const mall = '가'.repeat(250);
    expect(checkFields(APPROVAL_REQUEST_FIELDS, { ...base, MallReserved: mall }, 'euc-kr')).to.equal(undefined);
    const p = checkFields(APPROVAL_REQUEST_FIELDS, { ...base, MallReserved: mall + 'x' }, 'euc-kr');
    expect(p).to.include({ field: 'MallReserved', rule: 'too-long' });
    expect(p!.message).to.not.include('가');
    expect(checkFields(APPROVAL_REQUEST_FIELDS, { ...base, Amt: '10a' }, 'euc-kr')).to.include({ field: 'Amt', rule: 'format' });
    expect(checkFields(APPROVAL_REQUEST_FIELDS, { ...base, TID: '' }, 'euc-kr')).to.include({ field: 'TID', rule: 'required' });
  });
});
