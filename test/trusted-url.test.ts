import { expect } from 'chai';
import { trustedUrlChecker } from '../src/approval/trusted-url.js';
import { resolveConfig } from '../src/config.js';
import { NicepayRequestError } from '../src/errors/index.js';

const config = resolveConfig({ mid: 'nicepay00m', merchantKey: 'k'.repeat(88), baseUrl: 'https://webapi.nicepay.co.kr' });
const NEXT = 'https://webapi.nicepay.co.kr/webapi/pay_process.jsp';
const CANCEL = 'https://webapi.nicepay.co.kr/webapi/cancel_process.jsp';

function refusal(fn: () => unknown): NicepayRequestError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(NicepayRequestError);
    return err as NicepayRequestError;
  }
  throw new Error('expected a refusal');
}

describe('trustedUrlChecker: the gateway URLs of auth returns, remembered once accepted', () => {
  it('accepts the gateway endpoints and hands back the same parsed URL for the same text', () => {
    const check = trustedUrlChecker(config);
    const first = check(NEXT, 'NextAppURL');
    expect(first.href).to.equal(NEXT);
    expect(check(NEXT, 'NextAppURL')).to.equal(first);
    expect(check(CANCEL, 'NetCancelURL').pathname).to.equal('/webapi/cancel_process.jsp');
  });

  it('never lets a value accepted for one field through as the other (a swapped pair is refused)', () => {
    const check = trustedUrlChecker(config);
    check(NEXT, 'NextAppURL');
    check(CANCEL, 'NetCancelURL');
    expect(refusal(() => check(NEXT, 'NetCancelURL')).code).to.equal('NICEPAY_UNTRUSTED_URL');
    expect(refusal(() => check(CANCEL, 'NextAppURL')).code).to.equal('NICEPAY_UNTRUSTED_URL');
  });

  it('refuses a forged value every time it comes back', () => {
    const check = trustedUrlChecker(config);
    for (let i = 0; i < 3; i++) {
      expect(refusal(() => check('https://evil.example/webapi/pay_process.jsp', 'NextAppURL')).field).to.equal('NextAppURL');
      expect(refusal(() => check('http://webapi.nicepay.co.kr/webapi/pay_process.jsp', 'NextAppURL')).code).to.equal('NICEPAY_UNTRUSTED_URL');
    }
  });

  it('remembers neither values with a query nor values not in normal form, so replays cannot take the slots', () => {
    const check = trustedUrlChecker(config);
    for (let i = 0; i < 20; i++) check(`${NEXT}?n=${i}`, 'NextAppURL');
    const odd = 'HTTPS://webapi.nicepay.co.kr/webapi/pay_process.jsp';
    expect(check(odd, 'NextAppURL')).to.not.equal(check(odd, 'NextAppURL'));
    expect(check(`${NEXT}?n=1`, 'NextAppURL')).to.not.equal(check(`${NEXT}?n=1`, 'NextAppURL'));
    expect(check(NEXT, 'NextAppURL')).to.equal(check(NEXT, 'NextAppURL'));
  });

  it('remembers a bounded number of values: past it, accepted values are parsed anew each time', () => {
    const check = trustedUrlChecker(config);
    const urls = Array.from({ length: 12 }, (_, i) => `https://webapi.nicepay.co.kr/p${i}/pay_process.jsp`);
    const firstPass = urls.map((u) => check(u, 'NextAppURL'));
    const secondPass = urls.map((u) => check(u, 'NextAppURL'));
    const reused = secondPass.filter((u, i) => u === firstPass[i]).length;
    expect(reused).to.equal(8);
    expect(secondPass.map((u) => u.href)).to.deep.equal(urls);
  });
});
