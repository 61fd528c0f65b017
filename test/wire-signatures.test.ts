import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { decryptEncData, encryptEncData } from '../src/wire/enc-data.js';
import { hexEquals, safeEquals } from '../src/wire/hash.js';
import {
  approvalResponseSignature,
  approvalSignData,
  keyinSignData,
  payoutEncKey,
  reconEncKey,
} from '../src/wire/signatures.js';

interface Vector {
  name: string;
  mid: string;
  input: Record<string, string>;
  expect: string;
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/vectors.json', import.meta.url), 'utf8')) as {
  merchants: Record<string, string>;
  vectors: Vector[];
};
const vector = (prefix: string): Vector => fixture.vectors.find((v) => v.name.startsWith(prefix))!;
const key = (v: Vector): string => fixture.merchants[v.mid]!;

describe('wire: integrity rules against the known-answer vectors', () => {
  it('approval request SignData matches the manual', () => {
    const v = vector('approval request SignData');
    const i = v.input;
    expect(approvalSignData(i.AuthToken!, i.MID!, i.Amt!, i.EdiDate!, key(v))).to.equal(v.expect);
  });

  it('approval response Signature', () => {
    const v = vector('approval response Signature');
    expect(approvalResponseSignature(v.input.TID!, v.input.MID!, v.input.Amt!, key(v))).to.equal(v.expect);
  });

  it('card key-in SignData', () => {
    const v = vector('card key-in SignData');
    const i = v.input;
    expect(keyinSignData(i.MID!, i.Amt!, i.EdiDate!, i.Moid!, key(v))).to.equal(v.expect);
  });

  it('card key-in EncData encrypts to the vector and decrypts back', () => {
    const v = vector('card key-in EncData');
    expect(encryptEncData(v.input.plaintext!, key(v))).to.equal(v.expect);
    expect(decryptEncData(v.expect.toUpperCase(), key(v))).to.equal(v.input.plaintext);
  });

  it('payout and reconciliation encKey', () => {
    const p = vector('payout encKey');
    expect(payoutEncKey(p.input.sid!, p.input.mid!, p.input.trDtm!, key(p))).to.equal(p.expect);
    const r = vector('reconciliation encKey');
    expect(reconEncKey(r.input.sid!, r.input.usrId!, r.input.trDtm!, key(r))).to.equal(r.expect);
  });

  it('hexEquals compares in either case and rejects other lengths and values', () => {
    const h = vector('approval response Signature').expect;
    expect(hexEquals(h, h.toUpperCase())).to.equal(true);
    expect(hexEquals(h.toUpperCase(), h)).to.equal(true);
    expect(hexEquals(h, h.slice(0, -1))).to.equal(false);
    expect(hexEquals(h, h.slice(0, -1) + (h.endsWith('0') ? '1' : '0'))).to.equal(false);
    expect(hexEquals(h, '')).to.equal(false);
    expect(hexEquals(h, `${h}0`)).to.equal(false);
    // Only A-F fold: a character whose low bits match a digit's is not that digit.
    const withDigit = h.replace(/[0-9]/, (d) => String.fromCharCode(d.charCodeAt(0) - 0x20));
    expect(withDigit).to.not.equal(h);
    expect(hexEquals(h, withDigit)).to.equal(false);
    // Every position counts, first and last included.
    for (const i of [0, 31, 63]) {
      const flipped = h.slice(0, i) + (h[i] === 'a' ? 'b' : 'a') + h.slice(i + 1);
      expect(hexEquals(h, flipped), `position ${i}`).to.equal(false);
    }
  });

  it('safeEquals compares exactly, case included (tokens are not hex)', () => {
    const token = `NICETOKN${'AB12'.repeat(8)}`;
    expect(safeEquals(token, token)).to.equal(true);
    expect(safeEquals(token, token.toLowerCase())).to.equal(false);
    expect(safeEquals(token, token.slice(0, -1))).to.equal(false);
    expect(safeEquals(token, `${token}A`)).to.equal(false);
    expect(safeEquals('', '')).to.equal(true);
  });

  it('decryptEncData refuses non-hex and partial blocks', () => {
    const k = fixture.merchants.nictest04m!;
    expect(() => decryptEncData('zz', k)).to.throw(/hex/);
    expect(() => decryptEncData('abcd', k)).to.throw(/hex/);
  });
});
