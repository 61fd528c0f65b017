import { expect } from 'chai';
import { findSecrets, EXPIRIES, MERCHANT_KEYS } from './hooks/secret-guard.js';
import { allCapturedLines, captureLogger } from './helpers/capture.js';

describe('secret guard (the suite-wide scan of captured logs and errors)', () => {
  it('finds each kind of secret', () => {
    expect(findSecrets(`key ${MERCHANT_KEYS[0]}`)).to.have.length.greaterThan(0);
    expect(findSecrets(`key ${encodeURIComponent(MERCHANT_KEYS[1]!)}`)).to.have.length.greaterThan(0);
    expect(findSecrets('{"card":"4111111111111111"}')[0]).to.match(/^card number/);
    expect(findSecrets(`{"exp":"${EXPIRIES[1]}"}`)[0]).to.match(/^card expiry/);
    expect(findSecrets('born 860719 here')[0]).to.match(/^birth date/);
    expect(findSecrets('{"password2":"97"}')[0]).to.match(/^card password digits/);
    expect(findSecrets('CardNo=4111')[0]).to.match(/^card field/);
    expect(findSecrets('ExpYear=29&ExpMonth=12')[0]).to.match(/^card field/);
    expect(findSecrets('{"bid":"BIKYnictest04m2606221030450012"}')[0]).to.match(/^billing key/);
  });

  it('does not flag TIDs, timestamps, masked numbers or durations', () => {
    const clean = [
      '{"tid":"nicepay00m01012601011200001234","durationMs":2912,"authDate":"260719120000"}',
      '{"CardNo":"411111******1111","Amt":"000000001004","moid":"k-t-12-1700000000000"}',
      'net cancel FAILED: reconcile TID nictest04m0101260101120000Ab12',
      '{"bid":"BIKY**********************0012"}',
    ].join('\n');
    expect(findSecrets(clean)).to.deep.equal([]);
  });

  it('every captureLogger() feeds the suite-wide list', () => {
    const before = allCapturedLines().length;
    captureLogger().logger.info({ step: 'x' }, 'hello');
    expect(allCapturedLines().length).to.equal(before + 1);
  });
});
