/**
 * A bounded ledger store that is full refuses new work rather than forget money: through the
 * key-in client against the sandbox, a memoryStore of two keys holding a recorded payment and
 * an open (unsettled) one answers a third Moid with 503 NICEPAY_STORE_FULL and sends nothing;
 * once settlement closes the open record as costing no money, its key makes room.
 */
import { expect } from 'chai';
import { createNicepay, memoryStore, NicepayError, type KeyinInput, type Nicepay } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { kstParts } from '../src/wire/kst.js';
import { ledgerRecord } from './helpers/ledger-store.js';
import { rejectedWith } from './helpers/rejected.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const FUTURE = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();

describe('a full ledger store refuses new work and never drops a live record', () => {
  let sandbox: Sandbox;
  let nicepay: Nicepay;
  const store = memoryStore({ maxEntries: 2 });

  before(async () => {
    sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    // No automatic settler: the test settles when it says so.
    nicepay = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: url,
      store,
      settle: false,
      timeouts: { connectMs: 2_000, responseMs: 3_000 },
    });
  });
  after(async () => {
    await nicepay.close();
    await sandbox.close();
  });

  const input = (moid: string): KeyinInput => ({
    moid,
    amount: 1004,
    goodsName: '테스트 상품',
    card: { number: '4111111111111111', expiry: FUTURE },
  });
  const entriesOf = (moid: string) => sandbox.ledger.entries().filter((e) => e.moid === moid);

  it('full of a recorded payment and an open one: a new Moid is 503 NICEPAY_STORE_FULL and nothing is sent; both records stay; a settled record that cost nothing makes room', async () => {
    const paid = await nicepay.keyin(input('full-paid'));
    expect(paid.status).to.equal('approved');
    // Reset before the gateway booked it, and the net cancel lost too: the record stays open.
    sandbox.faults.inject({ target: 'keyin', kind: 'drop', commit: false });
    sandbox.faults.inject({ target: 'net-cancel', kind: 'status-500', commit: false });
    const lost = await rejectedWith(nicepay.keyin(input('full-open')), NicepayError);
    expect(lost).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', settlement: 'pending' });

    const refused = await rejectedWith(nicepay.keyin(input('full-new')), NicepayError);
    expect(refused).to.include({ code: 'NICEPAY_STORE_FULL', status: 503 });
    expect(entriesOf('full-new')).to.have.length(0);
    // Neither live record was dropped to make room: the payment still answers its repeats.
    expect(await ledgerRecord(store, `keyin:${MID}:full-paid`)).to.include({ state: 'recorded' });
    expect((await store.open(10)).map((r) => r.key)).to.deep.equal([`keyin:${MID}:full-open`]);
    expect(await nicepay.keyin(input('full-paid'))).to.include({ status: 'approved', duplicate: true, tid: paid.tid });

    // Settlement learns the gateway never charged the open one: closed, it costs nothing to drop.
    const report = await nicepay.settle();
    expect(report.settled.map((s) => [s.moid, s.outcome])).to.deep.equal([['full-open', 'never-charged']]);
    const charged = await nicepay.keyin(input('full-new'));
    expect(charged).to.include({ status: 'approved', duplicate: false });
    expect(entriesOf('full-new')).to.have.length(1);
    expect(await ledgerRecord(store, `keyin:${MID}:full-paid`)).to.include({ state: 'recorded' });
  });
});
