/**
 * Violations the model found (test/model/runner.ts), each kept as the shrunk sequence that
 * showed it, replayed against the sandbox and checked by the same invariant, with what was
 * fixed asserted directly beside it.
 */
import { expect } from 'chai';
import { captureLogger } from '../helpers/capture.js';
import { quiesce } from './quiesce.js';
import { runStep } from './run-step.js';
import { replay } from './runner.js';
import type { Step } from './steps.js';
import { startWorld } from './world.js';

describe('model regressions: the money invariant', function () {
  this.timeout(30_000);

  describe('a partial cancel whose answer was lost is never sent again by settlement', () => {
    // The gateway cancels, the answer is lost; the cancel notice's onCancel throws once.
    const steps: Step[] = [
      { t: 'fault', target: 'cancel', kind: 'drop', commit: true },
      { t: 'hook', hook: 'cancel', mode: 'throw' },
      { t: 'keyin', order: 0, inst: 0, declined: false, hook: false },
      { t: 'cancel', pick: 0, inst: 0, partial: true, key: 0 },
    ];

    it('(memory) the gateway refunds it once and the shop agrees', () => replay('memory', steps));

    it('(memory) settle() a minute later leaves it open, needing attention, and the gateway refunded 300 won once', async () => {
      const world = await startWorld('memory', captureLogger().logger, 'partial-cancel');
      try {
        for (const step of steps.filter((s) => s.t !== 'hook')) await runStep(world, step);
        await world.advance(61_000);
        const report = await world.instances[1]!.nicepay.settle();
        const [entry] = world.sandbox.ledger.entries();
        expect(entry!.cancels!.map((c) => c.amount)).to.deep.equal([300]);
        expect(report.settled).to.deep.equal([]);
        expect(report.unsettled).to.have.length(1);
        expect(report.unsettled[0]).to.include({ operation: 'cancel', state: 'unknown', needsAttention: true, amount: 300 });
        expect(report.unsettled[0]!.reason).to.match(/partial cancel/);
        await quiesce(world);
        expect(world.sandbox.ledger.entries()[0]!.cancels!.map((c) => c.amount)).to.deep.equal([300]);
      } finally {
        await world.close();
      }
    });
  });
});
