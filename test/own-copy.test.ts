/**
 * ownCopy gives back the same text, code unit for code unit, whatever it holds: what the ledger
 * keeps from a caller (test/heap-secrets.slow.test.ts shows what the copy keeps out of the heap).
 */
import { expect } from 'chai';
import { ownCopy } from '../src/own-copy.js';

describe('ownCopy', () => {
  it('gives back the same text: ASCII, Hangul, a character outside the BMP, lone surrogates, nothing', () => {
    const body = `moid=order-2026-11-27-000123&goodsName=${'상품'.repeat(20)}&card=4111111111111111`;
    const cut = [body.slice(5, 28), body.slice(39, 79)];
    for (const text of ['', 'a', '주문-123', '😀 결제', '\ud800x', 'x\udfff', ...cut]) {
      expect(ownCopy(text)).to.equal(text);
      expect(ownCopy(text).length).to.equal(text.length);
    }
  });
});
