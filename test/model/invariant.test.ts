/**
 * The model's checks themselves (test/model/invariant.ts): each finds the disagreement it is
 * for, so a sequence that passes them has been checked, not waved through.
 */
import { expect } from 'chai';
import { captureLogger } from '../helpers/capture.js';
import { checkMoney, checkStep, type Cursor } from './invariant.js';
import { runStep } from './run-step.js';
import { startWorld, type World } from './world.js';

describe('the model invariant catches each kind of disagreement', function () {
  this.timeout(20_000);
  let world: World;
  let lines: string[];
  let cursor: Cursor;
  beforeEach(async () => {
    const captured = captureLogger();
    lines = captured.lines;
    world = await startWorld('memory', captured.logger, 'invariant');
    cursor = { lines: 0, seen: 0, answers: 0 };
  });
  afterEach(() => world.close());

  /** A key-in the shop makes without a hook and records from its result. */
  async function keyedIn(): Promise<string> {
    await runStep(world, { t: 'keyin', order: 0, inst: 0, declined: false, hook: false });
    return [...world.books.charges.keys()][0]!;
  }

  it('holds for a key-in recorded from its result', async () => {
    await keyedIn();
    expect(checkStep(world, lines, cursor)).to.deep.equal([]);
    expect(checkMoney(world, new Set(), true)).to.deep.equal([]);
  });

  it('a payment the gateway holds and the shop did not record is a violation, unless it is still open', async () => {
    const tid = await keyedIn();
    world.books.charges.delete(tid);
    expect(checkMoney(world, new Set(), true).join('\n')).to.include(
      `the gateway holds 1100 won (approved), the shop recorded 0`,
    );
    expect(checkMoney(world, new Set([tid]), false)).to.deep.equal([]);
  });

  it('a record of another order than the gateway names is a violation (relabelled from unsigned input)', async () => {
    const tid = await keyedIn();
    world.books.charges.set(tid, { op: 'keyin', moid: 'k1', amount: 1_100 });
    expect(checkStep(world, lines, cursor).join('\n')).to.include('the gateway has it for order k0');
  });

  it('an answer that reports an order paid which the shop has not recorded is a violation', async () => {
    const tid = await keyedIn();
    world.notes.answers.push({ op: 'keyin', tid, moid: 'k2', status: 'approved' });
    expect(checkStep(world, lines, cursor).join('\n')).to.include('the shop has not recorded it for that order');
  });

  it('a gateway cancel the shop did not ask for on a recorded payment is a violation (reversed behind its back)', async () => {
    const tid = await keyedIn();
    world.sandbox.ledger.get(tid)!.cancels = [
      {
        amount: 1_100,
        remaining: 0,
        partial: false,
        resultCode: '2001',
        cancelNum: '1',
        at: new Date(),
        reason: '결제 취소(정산)',
        moid: 'x',
      },
    ];
    expect(checkMoney(world, new Set(), true).join('\n')).to.include('was reversed at the gateway');
  });

  it('a hook that starts while another run for its key has not finished is a violation', async () => {
    world.books.queueMode('keyin', 'hang');
    const first = world.books.runHook('keyin', 'keyin:T', 'x', false, () => undefined);
    await world.books.runHook('keyin', 'keyin:T', 'x', false, () => undefined);
    world.books.settleHung(0, 'resolve');
    await first;
    expect(checkStep(world, lines, cursor).join('\n')).to.include('started while another run of it had not finished');
  });

  it('a BID, a card number or a receipt identity in a log line or a result is a violation', async () => {
    world.bids.push('BIKYnicepay00m2603021000000001');
    world.notes.identities.add('01099887766');
    lines.push(JSON.stringify({ msg: 'x', bid: 'BIKYnicepay00m2603021000000001' }));
    world.notes.seen.push('{"card":"4111111111111111","identity":"01099887766"}');
    const found = checkStep(world, lines, cursor).join('\n');
    expect(found).to.include('card number');
    expect(found).to.include('BID or receipt identity');
    // The scan reads each line once: the next step's check starts after them.
    expect(checkStep(world, lines, cursor)).to.deep.equal([]);
  });

  it('an expiry that occurs by chance inside a hex word (a signature, a trace id) or a masked BID is not a leak; one on its own is', () => {
    world.notes.seen.push(
      '{"SandboxTrace":"sbx-72c2912b5cea","Signature":"0fe96276a23689e2912ac4757909ddd","bid":"BIKY**********************2912"}',
    );
    expect(checkStep(world, lines, cursor)).to.deep.equal([]);
    world.notes.seen.push('{"expiry":"2912"}');
    expect(checkStep(world, lines, cursor).join('\n')).to.include('card expiry');
  });
});
