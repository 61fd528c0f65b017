import { expect } from 'chai';
import fc from 'fast-check';
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

  it('agrees with a Date round trip on any digits, and formats any instant as kstParts reads it', () => {
    // The reference: build the instant, then accept it only if its KST wall time reads back the same.
    const reference = (text: string): number | undefined => {
      const s = /^\d{12}$/.test(text) ? `20${text}` : /^\d{8}$/.test(text) ? `${text}000000` : text;
      if (!/^\d{14}$/.test(s)) return undefined;
      const f = [s.slice(0, 4), s.slice(4, 6), s.slice(6, 8), s.slice(8, 10), s.slice(10, 12), s.slice(12, 14)].map(
        Number,
      ) as [number, number, number, number, number, number];
      const d = fromKst(...f);
      const k = kstParts(d);
      return [k.year, k.month, k.day, k.hour, k.minute, k.second].every((v, i) => v === f[i]) ? d.getTime() : undefined;
    };
    const digits = (n: number) =>
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((a) => a.join(''));
    const near = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
      )
      .map(([y, ...rest]) => String(y).padStart(4, '0') + rest.map((v) => String(v).padStart(2, '0')).join(''));
    const text = fc.oneof(
      digits(8),
      digits(12),
      digits(14),
      near,
      near.map((t) => t.slice(2)),
      near.map((t) => t.slice(0, 8)),
      fc.string({ maxLength: 14 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(parseKstTimestamp(t)?.getTime(), t).to.equal(reference(t));
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }),
        (d) => {
          const k = kstParts(d);
          const text = kstTimestamp14(d);
          expect(text).to.equal(
            `${k.year}${[k.month, k.day, k.hour, k.minute, k.second].map((v) => String(v).padStart(2, '0')).join('')}`,
          );
          expect(parseKstTimestamp(text)?.getTime()).to.equal(Math.floor(d.getTime() / 1000) * 1000);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('formats each second afresh: the same second gives the same text, the next second the next text', () => {
    const d = fromKst(2026, 12, 31, 23, 59, 58);
    expect(kstTimestamp14(d)).to.equal('20261231235958');
    expect(kstTimestamp14(new Date(d.getTime() + 999))).to.equal('20261231235958');
    expect(kstTimestamp14(new Date(d.getTime() + 1_000))).to.equal('20261231235959');
    expect(kstTimestamp14(new Date(d.getTime() + 2_000))).to.equal('20270101000000');
    expect(kstTimestamp14(d)).to.equal('20261231235958');
    expect(kstTimestamp14(new Date(d.getTime() - 86_400_000))).to.equal('20261230235958');
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
    const p = checkFields(APPROVAL_REQUEST_FIELDS, { ...base, MallReserved: `${mall}x` }, 'euc-kr');
    expect(p).to.include({ field: 'MallReserved', rule: 'too-long' });
    expect(p!.message).to.not.include('가');
    expect(checkFields(APPROVAL_REQUEST_FIELDS, { ...base, Amt: '10a' }, 'euc-kr')).to.include({
      field: 'Amt',
      rule: 'format',
    });
    expect(checkFields(APPROVAL_REQUEST_FIELDS, { ...base, TID: '' }, 'euc-kr')).to.include({
      field: 'TID',
      rule: 'required',
    });
  });

  it('refuses exactly the values longer than the field in bytes, for any text (ASCII, Hangul, emoji)', () => {
    const table = { X: { max: 12, required: false } };
    const text = fc
      .array(fc.constantFrom('a', '가', '똠', 'é', '😀', '\u{10FFFF}'), { maxLength: 14 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.constantFrom('utf-8', 'euc-kr') as fc.Arbitrary<'utf-8' | 'euc-kr'>, (value, charset) => {
        // EUC-KR can carry none of the non-Korean letters here; count them as 2, like the codec does.
        const bytes =
          charset === 'utf-8'
            ? Buffer.byteLength(value, 'utf8')
            : [...value].reduce((n, ch) => n + (ch.charCodeAt(0) < 0x80 ? 1 : 2), 0);
        const problem = checkFields(table, { X: value }, charset);
        expect(problem?.rule === 'too-long', `${charset} ${JSON.stringify(value)} (${bytes} bytes)`).to.equal(
          bytes > 12,
        );
      }),
      { numRuns: 5_000 },
    );
  });
});
