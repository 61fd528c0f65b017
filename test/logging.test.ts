import { expect } from 'chai';
import { debugEnabled, debugLogger } from '../src/debug-logger.js';
import { REDACTED, redact, redactingLogger } from '../src/redact.js';
import type { Logger } from '../src/logger.js';

describe('logging', () => {
  describe('DEBUG switch', () => {
    it('matches like the debug package: lists, wildcards, exclusions', () => {
      expect(debugEnabled('express-nicepay')).to.equal(true);
      expect(debugEnabled('express:*,express-nicepay')).to.equal(true);
      expect(debugEnabled('express:* express-nicepay')).to.equal(true);
      expect(debugEnabled('*')).to.equal(true);
      expect(debugEnabled('express-*')).to.equal(true);
      expect(debugEnabled('*,-express-nicepay')).to.equal(false);
      expect(debugEnabled('express:*')).to.equal(false);
      expect(debugEnabled('express-nicepay-x')).to.equal(false);
      expect(debugEnabled('')).to.equal(false);
      expect(debugEnabled(undefined)).to.equal(false);
    });

    it('writes one line per event when enabled, nothing when not', () => {
      const lines: string[] = [];
      debugLogger('express-nicepay', (l) => lines.push(l)).info({ tid: 't1', step: 'approve', durationMs: 3 }, 'approval answered');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/ express-nicepay info approval answered \{"tid":"t1","step":"approve","durationMs":3\}\n$/);
      const quiet: string[] = [];
      debugLogger('other', (l) => quiet.push(l)).error({ a: 1 }, 'x');
      expect(quiet).to.deep.equal([]);
    });
  });

  describe('redaction', () => {
    const keys = [
      'merchantKey', 'EncData', 'SignData', 'CardNo', 'cardNumber', 'CardExpire', 'expiry',
      'CardPwd', 'password2', 'BuyerAuthNum', 'buyerAuthNum', 'encKey', 'merchant_key',
    ];
    for (const key of keys) {
      it(`masks ${key}`, () => {
        const out = redact({ [key]: 'secret-1234', tid: 'T1' });
        expect(out).to.deep.equal({ [key]: REDACTED, tid: 'T1' });
      });
    }

    it('masks nested card fields and leaves the input untouched', () => {
      const input = { step: 'keyin', card: { number: '4111111111111111', expiry: '2812' }, list: [{ CardPwd: '12' }] };
      const out = redact(input);
      expect(out).to.deep.equal({ step: 'keyin', card: { number: REDACTED, expiry: REDACTED }, list: [{ CardPwd: REDACTED }] });
      expect(input.card.number).to.equal('4111111111111111');
    });

    it('masks a bare card number anywhere in a string, to its last 4 digits', () => {
      expect(redact({ note: 'card 4111111111111111 declined' })).to.deep.equal({ note: 'card ************1111 declined' });
      expect(redact({ note: '4111-1111-1111-1111' })).to.deep.equal({ note: '************1111' });
      expect(redact({ n: '3714496353984312' })).to.deep.equal({ n: '************4312' });
      expect(redact({ amount: '1004', authCode: '30009412', tid: 'nicepay00m01012611212124471234' })).to.deep.equal({
        amount: '1004', authCode: '30009412', tid: 'nicepay00m01012611212124471234',
      });
    });

    it('leaves identifiers a shop reconciles with: TIDs in messages, tid / moid / seq values', () => {
      const msg = 'net cancel FAILED: reconcile TID nictest04m01012611220646381bdO';
      expect(redact({ note: msg })).to.deep.equal({ note: msg });
      expect(redact({ moid: '1234567812345678', seq: '0000000000000123' })).to.deep.equal({ moid: '1234567812345678', seq: '0000000000000123' });
      expect(redact({ note: 'order 1234567812345678' })).to.deep.equal({ note: 'order ************5678' });
    });

    it('masks error messages and survives cycles', () => {
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic['self'] = cyclic;
      const out = redact({ error: new Error('bad card 5555555555554444'), cyclic }) as Record<string, any>;
      expect(out['error']).to.deep.equal({ name: 'Error', message: 'bad card ************4444' });
      expect(out['cyclic'].self).to.equal('[…]');
    });

    it('redactingLogger redacts every object and message before the real logger sees it', () => {
      const seen: unknown[] = [];
      const sink: Logger = {
        debug: (o, m) => seen.push(['debug', o, m]),
        info: (o, m) => seen.push(['info', o, m]),
        warn: (o, m) => seen.push(['warn', o, m]),
        error: (o, m) => seen.push(['error', o, m]),
      };
      const log = redactingLogger(sink);
      log.info({ merchantKey: 'k'.repeat(40), moid: 'M1' }, 'for 4111111111111111');
      log.error({ EncData: 'abc' });
      expect(seen).to.deep.equal([
        ['info', { merchantKey: REDACTED, moid: 'M1' }, 'for ************1111'],
        ['error', { EncData: REDACTED }, undefined],
      ]);
    });
  });
});
