/**
 * A reversal's answer is read by the reversal's own answer table, with every rule a cancel's
 * answer is read by: a refusal naming another TID is nobody's word on this payment.
 */
import { expect } from 'chai';
import { cancelReversal } from '../src/cancel/reversal.js';
import { resolveConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/context.js';
import type { LedgerRecord } from '../src/pipeline/ledger-record.js';
import { reverse } from '../src/pipeline/reversal.js';
import { TEST_MERCHANTS } from '../src/sandbox/index.js';
import { cancelResponseSignature } from '../src/wire/signatures.js';
import { startRawGateway } from './helpers/raw-gateway.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const TID = `${MID}01162611271122230001`;
const OTHER_TID = `${MID}01162611271122239999`;
const record = { tid: TID, moid: 'order-1', amount: 1000 } as LedgerRecord;

/** What reverse() makes of one answer, sent by a loopback server standing in for the gateway. */
async function outcomeOf(answer: Record<string, string>): Promise<string> {
  const gateway = await startRawGateway(() => ({
    body: JSON.stringify(answer),
    contentType: 'application/json; charset=utf-8',
  }));
  const ctx = createContext(resolveConfig({ mid: MID, merchantKey: KEY, baseUrl: gateway.url, settle: false }));
  try {
    return await reverse(ctx, record, cancelReversal(ctx.config, record));
  } finally {
    await closeContext(ctx);
    await gateway.close();
  }
}

const signed = (tid: string, amt: string): Record<string, string> => ({
  ResultCode: '2001',
  TID: tid,
  MID,
  CancelAmt: amt,
  Signature: cancelResponseSignature(tid, MID, amt, KEY),
});

describe('a reversal reads its answer by its answer table', () => {
  it('a signed 2001 for the TID and the whole amount confirms it', async () => {
    expect(await outcomeOf(signed(TID, '1000'))).to.equal('reversal-confirmed');
  });

  it('a net cancel answer may leave MID out (its Signature is then over the MID sent), never name another', async () => {
    const { MID: _omitted, ...withoutMid } = signed(TID, '1000');
    expect(await outcomeOf(withoutMid)).to.equal('reversal-confirmed');
    expect(await outcomeOf({ ...signed(TID, '1000'), MID: 'nicepay99m' })).to.equal('reversal-failed');
  });

  it('a 2001 for part of the amount, for another TID or with a Signature that does not verify does not', async () => {
    expect(await outcomeOf(signed(TID, '500'))).to.equal('reversal-failed');
    expect(await outcomeOf(signed(OTHER_TID, '1000'))).to.equal('reversal-failed');
    expect(await outcomeOf({ ...signed(TID, '1000'), Signature: 'f'.repeat(64) })).to.equal('reversal-failed');
  });

  it('"no such transaction" (2012) for the TID means nothing was charged; naming another TID it means nothing', async () => {
    expect(await outcomeOf({ ResultCode: '2012', TID, MID })).to.equal('gateway-none');
    expect(await outcomeOf({ ResultCode: '2012', TID: OTHER_TID, MID })).to.equal('reversal-failed');
  });

  it('"already cancelled" (2013) confirms it only when it does not name another TID', async () => {
    expect(await outcomeOf({ ResultCode: '2013', MID })).to.equal('reversal-confirmed');
    expect(await outcomeOf({ ResultCode: '2013', TID: OTHER_TID, MID })).to.equal('reversal-failed');
  });

  it('a refund accepted but not paid out (2225) is not a reversal', async () => {
    expect(await outcomeOf({ ResultCode: '2225', TID, MID, CancelAmt: '1000' })).to.equal('reversal-failed');
  });
});
