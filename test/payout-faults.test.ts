import { expect } from 'chai';
import { fromKst } from '../src/wire/kst.js';
import { NicepayDataApiError, NicepayGatewayError, NicepayRequestError, NicepayServiceError } from '../src/errors/index.js';
import { createNicepay } from '../src/nicepay.js';
import { DATA_MID, rejection, startDataHost, type DataHostRig } from './helpers/data-host.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';

/* Transport and gateway failures of the data host, injected with sandbox faults over loopback. */

const seller = { subId: 's1', subNm: '상점', subCoNo: '1234567890', bankCd: '004', accntNo: '12-34', accntNm: '홍길동' };

describe('payout and recon: data host failures', () => {
  let rig: DataHostRig;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0));
    await rig.nicepay.payout.registerSubMerchant(seller);
  });
  afterEach(() => rig.close());

  it('HTTP 500 on a query: NICEPAY_GATEWAY_ERROR', async () => {
    rig.sandbox.faults.inject({ target: 'data', kind: 'status-500' });
    const err = await rejection(rig.nicepay.payout.balance());
    expect(err).to.be.instanceOf(NicepayGatewayError);
    expect(err).to.include({ code: 'NICEPAY_GATEWAY_ERROR', outcomeUnknown: false });
    expect(rig.sandbox.faults.pending()).to.have.length(0);
  });

  it('HTTP 500 on a payout request: NICEPAY_OUTCOME_UNKNOWN', async () => {
    rig.sandbox.faults.inject({ target: 'data', kind: 'status-500' });
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 1 }));
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', outcomeUnknown: true });
  });

  it('an HTML error page: NICEPAY_GATEWAY_ERROR for the recon query', async () => {
    rig.sandbox.faults.inject({ target: 'data', kind: 'html' });
    const err = await rejection(rig.nicepay.recon.cashReceipts({ usrId: `${DATA_MID}admin`, dt: '20261123', orgSvcCd: '02', idCl: '2', searchID: DATA_MID }));
    expect(err).to.include({ code: 'NICEPAY_GATEWAY_ERROR' });
    expect(err.message).to.include('not JSON');
  });

  it('a truncated answer to a committed payout request: outcome unknown, and the payout exists', async () => {
    rig.sandbox.faults.inject({ target: 'data', kind: 'truncate' });
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 700 }));
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', outcomeUnknown: true });
    expect(rig.sandbox.dataHost.payouts().map((p) => p.amount)).to.deep.equal([700]);
    // The retry settles it: sent again, the gateway refuses it as registered (1103), so it was
    // done; the retry is answered with the payout (its seq listed by the results from 16:00).
    const retry = await rig.nicepay.payout.request({ subId: 's1', amount: 700 });
    expect(retry).to.include({ subId: 's1', amount: 700, seq: '', duplicate: true });
    expect(rig.sandbox.dataHost.payouts().map((p) => p.amount)).to.deep.equal([700]);
  });

  it('a delay past the response timeout: NICEPAY_OUTCOME_UNKNOWN', async () => {
    rig.sandbox.faults.inject({ target: 'data', kind: 'delay', delayMs: 600_000 });
    // The client's deadline is fired as soon as the data host stalls (no waiting for it).
    const err = await pastClientDeadline(rig.sandbox, () => rejection(rig.nicepay.payout.request({ subId: 's1', amount: 5 })));
    expect(err).to.be.instanceOf(NicepayGatewayError);
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', outcomeUnknown: true });
    expect(rig.sandbox.dataHost.payouts()).to.have.length(1);
  });

  it('a dropped connection after the gateway committed: NICEPAY_OUTCOME_UNKNOWN', async () => {
    rig.sandbox.faults.inject({ target: 'data', kind: 'drop' });
    const err = await rejection(rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261123', seq: 'x' }));
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
  });

  it('a wrong merchant key: 1000 merchant-auth-failed from the gateway', async () => {
    const other = createNicepay({ mid: DATA_MID, merchantKey: 'x'.repeat(64), baseUrl: rig.sandbox.url, dataUrl: rig.sandbox.url, clock: () => rig.sandbox.clock.now() });
    try {
      const err = await rejection(other.payout.balance());
      expect(err).to.be.instanceOf(NicepayDataApiError);
      expect(err).to.include({ resCode: '1000', reason: 'merchant-auth-failed', sid: '0101001' });
      const err2 = await rejection(other.recon.cashReceipts({ usrId: `${DATA_MID}admin`, dt: '20261123', orgSvcCd: '02', idCl: '2', searchID: DATA_MID }));
      expect(err2).to.include({ resCode: '1000', sid: '0301002' });
    } finally {
      await other.close();
    }
  });

  it('nothing is sent after close()', async () => {
    await rig.nicepay.close();
    const err = await rejection(rig.nicepay.payout.balance());
    expect(err).to.be.instanceOf(NicepayServiceError);
    expect(err.code).to.equal('NICEPAY_SHUTTING_DOWN');
  });
});
