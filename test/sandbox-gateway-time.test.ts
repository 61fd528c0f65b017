import { expect } from 'chai';
import { checkGatewayTime, GATEWAY_TIME_TOLERANCE_MS } from '../src/sandbox/gateway-time.js';
import { fromKst } from '../src/wire/kst.js';

describe('sandbox gateway time check', () => {
  const now = fromKst(2026, 11, 24, 10, 0, 0);

  it('accepts the KST time of the clock and within the tolerance', () => {
    expect(checkGatewayTime('20261124100000', now)).to.equal(undefined);
    expect(checkGatewayTime('20261124100959', now)).to.equal(undefined);
    expect(checkGatewayTime('261124095001', now)).to.equal(undefined);
  });

  it('refuses the same instant written in UTC (nine hours off KST)', () => {
    expect(checkGatewayTime('20261124010000', now)).to.equal('skew');
  });

  it('refuses a time just past the tolerance', () => {
    const secs = GATEWAY_TIME_TOLERANCE_MS / 1000 + 1;
    const later = new Date(now.getTime() + secs * 1000);
    const k = new Date(later.getTime() + 9 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);
    expect(checkGatewayTime(k, now)).to.equal('skew');
  });

  it('refuses what is not a calendar time', () => {
    for (const bad of ['', '2026112410000', '20261131100000', '2026112410000x', '20261124']) {
      expect(checkGatewayTime(bad, now), bad).to.equal('format');
    }
  });
});
