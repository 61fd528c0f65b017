import { expect } from 'chai';
import { fromKst } from '../src/wire/kst.js';
import { NicepayConfigError, NicepayDataApiError, NicepayScheduleError } from '../src/errors/index.js';
import {
  checkBusinessDay,
  checkCrossBorderCutoff,
  checkCutoff,
  checkNotPast,
  checkPayoutCancel,
  checkPayoutRequest,
  checkRegistrationWindow,
  checkResultsReady,
  weekdaysOnly,
} from '../src/payout/schedule.js';
import { createNicepay } from '../src/nicepay.js';
import { DATA_KEY, DATA_MID, rejection, startDataHost, type DataHostRig } from './helpers/data-host.js';

/*
 * Every schedule rule of gateway-interface.md (C and the Limits table), three ways: the pure
 * check, the client's pre-check (nothing reaches the gateway), and the sandbox gateway's own
 * refusal when the client's checks are off. Instants come from fromKst: the file passes
 * under any TZ, and payout-tz.test.ts runs it under three.
 */

const rule = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).to.be.instanceOf(NicepayScheduleError);
    expect((err as NicepayScheduleError).code).to.equal('NICEPAY_SCHEDULE_VIOLATION');
    return (err as NicepayScheduleError).rule;
  }
};

describe('payout schedule rules (pure, KST)', () => {
  it('business days default to Monday-Friday in KST', () => {
    expect(weekdaysOnly('20261123')).to.equal(true); // Monday
    expect(weekdaysOnly('20261127')).to.equal(true); // Friday
    expect(weekdaysOnly('20261121')).to.equal(false); // Saturday
    expect(weekdaysOnly('20261122')).to.equal(false); // Sunday
    expect(weekdaysOnly('20261340')).to.equal(false);
    expect(rule(() => checkBusinessDay('20261122', weekdaysOnly))).to.equal('non-business-day');
    expect(rule(() => checkBusinessDay('20261123', (d) => d !== '20261123'))).to.equal('non-business-day');
    expect(rule(() => checkBusinessDay('20261123', weekdaysOnly))).to.equal(undefined);
  });

  it('past date: the KST date, not the server date, decides', () => {
    // 2026-11-23 00:30 KST is still 2026-11-22 in UTC and in Los Angeles.
    const now = fromKst(2026, 11, 23, 0, 30);
    expect(rule(() => checkNotPast('20261122', now))).to.equal('past-date');
    expect(rule(() => checkNotPast('20261123', now))).to.equal(undefined);
    expect(rule(() => checkNotPast('20261124', now))).to.equal(undefined);
  });

  it('same-day request and cancel only before 10:30 KST', () => {
    expect(rule(() => checkCutoff('20261123', fromKst(2026, 11, 23, 10, 29, 59), 'request'))).to.equal(undefined);
    expect(rule(() => checkCutoff('20261123', fromKst(2026, 11, 23, 10, 30), 'request'))).to.equal('request-cutoff');
    expect(rule(() => checkCutoff('20261123', fromKst(2026, 11, 23, 10, 30), 'cancel'))).to.equal('cancel-cutoff');
    expect(rule(() => checkCutoff('20261124', fromKst(2026, 11, 23, 23, 59), 'request'))).to.equal(undefined);
    expect(rule(() => checkPayoutCancel('20261120', fromKst(2026, 11, 23, 9, 0)))).to.equal('cancel-cutoff');
    expect(rule(() => checkPayoutRequest('20261123', fromKst(2026, 11, 23, 10, 31), weekdaysOnly))).to.equal(
      'request-cutoff',
    );
    expect(rule(() => checkPayoutRequest('20261120', fromKst(2026, 11, 23, 9, 0), weekdaysOnly))).to.equal('past-date');
    expect(rule(() => checkPayoutRequest('20261128', fromKst(2026, 11, 23, 9, 0), weekdaysOnly))).to.equal(
      'non-business-day',
    );
  });

  it('cross-border wallet payouts: by 23:59 KST of the day before (spec, Limits)', () => {
    expect(rule(() => checkCrossBorderCutoff('20261124', fromKst(2026, 11, 23, 23, 59, 59)))).to.equal(undefined);
    expect(rule(() => checkCrossBorderCutoff('20261124', fromKst(2026, 11, 24, 0, 0)))).to.equal('cross-border-cutoff');
    // A same-day request before 10:30 is fine for others, too late for a cross-border payout.
    expect(rule(() => checkPayoutRequest('20261124', fromKst(2026, 11, 24, 9, 0), weekdaysOnly))).to.equal(undefined);
    expect(rule(() => checkPayoutRequest('20261124', fromKst(2026, 11, 24, 9, 0), weekdaysOnly, true))).to.equal(
      'cross-border-cutoff',
    );
  });

  it('registration blackout from 23:00 to 01:00 KST', () => {
    expect(rule(() => checkRegistrationWindow(fromKst(2026, 11, 23, 22, 59, 59)))).to.equal(undefined);
    expect(rule(() => checkRegistrationWindow(fromKst(2026, 11, 23, 23, 0)))).to.equal('registration-blackout');
    expect(rule(() => checkRegistrationWindow(fromKst(2026, 11, 24, 0, 59, 59)))).to.equal('registration-blackout');
    expect(rule(() => checkRegistrationWindow(fromKst(2026, 11, 24, 1, 0)))).to.equal(undefined);
  });

  it('results from 16:00 KST of the payout day', () => {
    expect(rule(() => checkResultsReady('20261123', fromKst(2026, 11, 23, 15, 59, 59)))).to.equal('results-not-ready');
    expect(rule(() => checkResultsReady('20261123', fromKst(2026, 11, 23, 16, 0)))).to.equal(undefined);
    expect(rule(() => checkResultsReady('20261124', fromKst(2026, 11, 23, 17, 0)))).to.equal('results-not-ready');
    expect(rule(() => checkResultsReady('20261120', fromKst(2026, 11, 23, 9, 0)))).to.equal(undefined);
  });
});

const seller = {
  subId: 's1',
  subNm: '상점',
  subCoNo: '1234567890',
  bankCd: '004',
  accntNo: '12-34',
  accntNm: '홍길동',
};

describe('payout schedule: client pre-checks send nothing', () => {
  let rig: DataHostRig;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0));
    await rig.nicepay.payout.registerSubMerchant(seller);
  });
  afterEach(() => rig.close());

  const cases: Array<[string, (r: DataHostRig) => Promise<unknown>, string]> = [
    [
      'past settlmntDt',
      (r) => r.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261120' }),
      'past-date',
    ],
    [
      'Saturday settlmntDt',
      (r) => r.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261128' }),
      'non-business-day',
    ],
    [
      'same-day request at 10:30',
      (r) => {
        r.at(2026, 11, 23, 10, 30);
        return r.nicepay.payout.request({ subId: 's1', amount: 1 });
      },
      'request-cutoff',
    ],
    [
      'same-day cancel at 10:30',
      (r) => {
        r.at(2026, 11, 23, 10, 30);
        return r.nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261123', seq: '1' });
      },
      'cancel-cutoff',
    ],
    [
      'registration at 23:00',
      (r) => {
        r.at(2026, 11, 23, 23, 0);
        return r.nicepay.payout.registerSubMerchant({ ...seller, subId: 's2' });
      },
      'registration-blackout',
    ],
    [
      'modification at 00:30',
      (r) => {
        r.at(2026, 11, 24, 0, 30);
        return r.nicepay.payout.updateSubMerchant(seller);
      },
      'registration-blackout',
    ],
    [
      'results at 15:59',
      (r) => {
        r.at(2026, 11, 23, 15, 59);
        return r.nicepay.payout.results({ settlmntDt: '20261123' });
      },
      'results-not-ready',
    ],
    [
      'cross-border same-day request at 09:00',
      (r) => r.nicepay.payout.request({ subId: 's1', amount: 1, crossBorder: true }),
      'cross-border-cutoff',
    ],
  ];
  for (const [name, run, expected] of cases) {
    it(`${name} → ${expected}`, async () => {
      const before = rig.sandbox.dataHost.payouts().length;
      const err = await rejection(run(rig));
      expect(err).to.be.instanceOf(NicepayScheduleError);
      expect(err.rule).to.equal(expected);
      expect(err.status).to.equal(422);
      expect(rig.sandbox.dataHost.payouts().length).to.equal(before);
      expect(rig.sandbox.dataHost.subMerchants().map((s) => s.subId)).to.deep.equal(['s1']);
    });
  }

  it('a businessDays hook makes a holiday refused before sending', async () => {
    await rig.close();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { payout: { businessDays: (d) => d !== '20261124' } });
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261124' }));
    expect(err.rule).to.equal('non-business-day');
    // A Saturday is a business day when the hook says so; the gateway still refuses it.
    const sat = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261128' }));
    expect(sat).to.be.instanceOf(NicepayDataApiError);
  });

  it('checkRequestDate applies the rules request() applies, on the client clock and calendar, sending nothing', async () => {
    const ruleOf = (date: string, options?: { crossBorder?: boolean }) =>
      rule(() => rig.nicepay.payout.checkRequestDate(date, options));
    expect(ruleOf('20261120')).to.equal('past-date');
    expect(ruleOf('20261128')).to.equal('non-business-day'); // Saturday
    expect(ruleOf('20261123')).to.equal(undefined); // today, 09:00 KST
    expect(ruleOf('20261123', { crossBorder: true })).to.equal('cross-border-cutoff');
    rig.at(2026, 11, 23, 10, 30);
    expect(ruleOf('20261123')).to.equal('request-cutoff');
    expect(ruleOf('20261124')).to.equal(undefined);
    const bad = (() => {
      try {
        rig.nicepay.payout.checkRequestDate('20261131');
      } catch (err) {
        return err as { code?: string; field?: string };
      }
    })();
    expect(bad).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'settlmntDt' });
    expect(rig.sandbox.dataHost.payouts()).to.have.length(0);

    // The shop's own calendar, and no rules at all when the checks are off.
    await rig.close();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { payout: { businessDays: (d) => d !== '20261124' } });
    expect(ruleOf('20261124')).to.equal('non-business-day');
    expect(ruleOf('20261128')).to.equal(undefined);
    await rig.close();
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { payout: { scheduleChecks: false } });
    expect(ruleOf('20261128')).to.equal(undefined);
    expect(() => rig.nicepay.payout.checkRequestDate('2026-11-28')).to.throw(/settlmntDt/);
  });

  it('rejects bad payout options at creation', () => {
    const base = { mid: DATA_MID, merchantKey: DATA_KEY, baseUrl: 'http://127.0.0.1:1' };
    expect(() => createNicepay({ ...base, payout: { scheduleChecks: 'no' as unknown as boolean } })).to.throw(
      NicepayConfigError,
      /payout\.scheduleChecks/,
    );
    expect(() => createNicepay({ ...base, payout: { businessDays: 5 as unknown as () => boolean } })).to.throw(
      NicepayConfigError,
      /payout\.businessDays/,
    );
  });
});

describe('payout schedule: the sandbox gateway enforces the same rules (scheduleChecks: false)', () => {
  let rig: DataHostRig;
  beforeEach(async () => {
    rig = await startDataHost(fromKst(2026, 11, 23, 9, 0), { payout: { scheduleChecks: false } });
    rig.sandbox.dataHost.addHoliday('20261125');
    await rig.nicepay.payout.registerSubMerchant(seller);
  });
  afterEach(() => rig.close());

  const cases: Array<[string, (r: DataHostRig) => Promise<unknown>, string, string]> = [
    [
      'past settlmntDt',
      (r) => r.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261120' }),
      '1109',
      'unlisted-code',
    ], // the sandbox's own code (1107 is the 10:30 cut-off)
    [
      'Saturday settlmntDt',
      (r) => r.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261128' }),
      '1001',
      'non-business-day',
    ],
    [
      'holiday settlmntDt',
      (r) => r.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261125' }),
      '1001',
      'non-business-day',
    ],
    [
      'same-day request at 10:30',
      (r) => {
        r.at(2026, 11, 23, 10, 30);
        return r.nicepay.payout.request({ subId: 's1', amount: 1 });
      },
      '1107',
      'past-cutoff',
    ],
    [
      'registration at 23:30',
      (r) => {
        r.at(2026, 11, 23, 23, 30);
        return r.nicepay.payout.registerSubMerchant({ ...seller, subId: 's2' });
      },
      '1108',
      'unlisted-code',
    ],
    [
      'results at 15:59',
      (r) => {
        r.at(2026, 11, 23, 15, 59);
        return r.nicepay.payout.results({ settlmntDt: '20261123' });
      },
      '1110',
      'unlisted-code',
    ], // the sandbox's own code
    [
      'cross-border payout for today at 00:00',
      (r) => {
        r.at(2026, 11, 23, 0, 0);
        r.sandbox.dataHost.markCrossBorder(DATA_MID, 's1');
        return r.nicepay.payout.request({ subId: 's1', amount: 1, crossBorder: true });
      },
      '1112',
      'unlisted-code',
    ],
    [
      'request for an unknown subId',
      (r) => r.nicepay.payout.request({ subId: 'nobody', amount: 1 }),
      '1105',
      'unknown-sub-merchant',
    ],
    [
      'modification of an unknown subId',
      (r) => r.nicepay.payout.updateSubMerchant({ ...seller, subId: 'nobody' }),
      '1105',
      'unknown-sub-merchant',
    ],
    [
      'new registration of an existing subId',
      (r) => r.nicepay.payout.registerSubMerchant(seller),
      '1106',
      'sub-merchant-exists',
    ],
    [
      'account holder mismatch',
      (r) => {
        r.sandbox.dataHost.addAccountHolder('004', '55', '김철수');
        return r.nicepay.payout.registerSubMerchant({ ...seller, subId: 's3', accntNo: '55' });
      },
      '1003',
      'account-holder-mismatch',
    ],
    [
      'closed account on registration',
      (r) => {
        r.sandbox.dataHost.closeAccount('004', '66');
        return r.nicepay.payout.registerSubMerchant({ ...seller, subId: 's4', accntNo: '66' });
      },
      '1003',
      'account-holder-mismatch',
    ],
    [
      'cancel of an unknown seq',
      (r) => r.nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261123', seq: '123' }),
      '1104',
      'no-request-data',
    ],
  ];
  for (const [name, run, resCode, reason] of cases) {
    it(`${name} → ${resCode} ${reason}`, async () => {
      const err = await rejection(run(rig));
      expect(err).to.be.instanceOf(NicepayDataApiError);
      expect(err).to.include({ resCode, reason, outcomeUnknown: false, sid: err.sid });
      expect(err.resMsg).to.be.a('string').and.not.equal('');
    });
  }

  it('same-day cancel at 10:30 → 1107, and the payout still runs at 11:00', async () => {
    rig.sandbox.dataHost.deposit(DATA_MID, 10);
    const { seq } = await rig.nicepay.payout.request({ subId: 's1', amount: 10 });
    rig.at(2026, 11, 23, 10, 30);
    const err = await rejection(rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261123', seq }));
    expect(err).to.include({ resCode: '1107', reason: 'past-cutoff' });
    rig.at(2026, 11, 23, 11, 0);
    expect(rig.sandbox.dataHost.payouts()[0]!.status).to.equal('성공');
    expect(rig.sandbox.dataHost.balance(DATA_MID).remainAmt).to.equal(0);
  });

  it('a completed payout cannot be cancelled, even when the gateway is asked directly', async () => {
    // Requested for tomorrow; executed tomorrow 11:00; a cancel dated tomorrow arrives the day after.
    rig.sandbox.dataHost.deposit(DATA_MID, 10);
    const { seq } = await rig.nicepay.payout.request({ subId: 's1', amount: 10, settlmntDt: '20261124' });
    rig.at(2026, 11, 24, 12, 0);
    const err = await rejection(rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261124', seq }));
    expect(err).to.include({ resCode: '1107' });
    expect(err.resMsg).to.include('되돌릴 수 없습니다');
    expect(rig.sandbox.dataHost.payouts()[0]!.status).to.equal('성공');
  });

  it('a cross-border sub-merchant is paid when asked the day before, refused from 00:00 of the payout day', async () => {
    rig.sandbox.dataHost.markCrossBorder(DATA_MID, 's1');
    rig.at(2026, 11, 23, 23, 59, 59);
    const ok = await rig.nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261124', crossBorder: true });
    expect(ok.seq).to.be.a('string');
    rig.at(2026, 11, 24, 0, 0);
    const err = await rejection(
      rig.nicepay.payout.request({ subId: 's1', amount: 2, settlmntDt: '20261124', dupCheck: false }),
    );
    expect(err).to.include({ resCode: '1112' });
    expect(rig.sandbox.dataHost.payouts().map((p) => p.amount)).to.deep.equal([1]);
  });

  it('dupCheck false allows two payouts to one seller on one day', async () => {
    await rig.nicepay.payout.request({ subId: 's1', amount: 1, dupCheck: false });
    const second = await rig.nicepay.payout.request({ subId: 's1', amount: 2, dupCheck: false });
    expect(second.dupCheck).to.equal(false);
    expect(rig.sandbox.dataHost.payouts().map((p) => p.dupChkYn)).to.deep.equal(['N', 'N']);
    // With the check on, the third is a duplicate.
    const err = await rejection(rig.nicepay.payout.request({ subId: 's1', amount: 3 }));
    expect(err.resCode).to.equal('1103');
  });

  it('a cancelled request no longer counts as a duplicate', async () => {
    const first = await rig.nicepay.payout.request({ subId: 's1', amount: 1 });
    await rig.nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261123', seq: first.seq });
    const again = await rig.nicepay.payout.request({ subId: 's1', amount: 1 });
    expect(again.seq).to.not.equal(first.seq);
  });
});
