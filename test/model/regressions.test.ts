/**
 * Violations the model found (test/model/runner.ts), each kept as the shrunk sequence that
 * showed it, replayed against the sandbox and checked by the same invariant, with what was
 * fixed asserted directly beside it.
 */
import { expect } from 'chai';
import type { AnswerTable } from '../../src/pipeline/answer-rules.js';
import { readAnswer } from '../../src/pipeline/answer-rules.js';
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

    it("(memory) the gateway's cancel notice, naming the cancel's Moid, settles it (kept); settle() a minute later sends nothing, and the gateway refunded 300 won once", async () => {
      const world = await startWorld('memory', captureLogger().logger, 'partial-cancel');
      try {
        for (const step of steps.filter((s) => s.t !== 'hook')) await runStep(world, step);
        await world.advance(61_000);
        const report = await world.instances[1]!.nicepay.settle();
        const [entry] = world.sandbox.ledger.entries();
        expect(entry!.cancels!.map((c) => c.amount)).to.deep.equal([300]);
        expect(report).to.deep.equal({ settled: [], unsettled: [] });
        await quiesce(world);
        expect(world.sandbox.ledger.entries()[0]!.cancels!.map((c) => c.amount)).to.deep.equal([300]);
      } finally {
        await world.close();
      }
    });
  });

  describe("a return's unsigned PayMethod never turns the gateway's word on a TID into an unknown outcome", () => {
    // The store forgot the paid TID (a memory restart); a stranger posts their own token (a card
    // payment) on it with its Moid. The gateway refuses the token for the TID (W010), echoing the
    // TID's own PayMethod, which the pipeline read as an unknown outcome and reversed.
    it("(memory) a stranger's token on a paid TxTid after a restart leaves the victim's payment standing", () =>
      replay('memory', [
        { t: 'authenticate', order: 3, method: 'BANK' },
        { t: 'return', auth: 0, inst: 0, forge: 'none', twice: false },
        { t: 'kill', inst: 0 },
        { t: 'authenticate', order: 1, method: 'CARD' },
        { t: 'return', auth: 0, inst: 0, forge: 'stranger', twice: false },
      ]));

    it('(memory) the buyer replaying their own paid return with another PayMethod after a restart is not net-cancelled', () =>
      replay('memory', [
        { t: 'authenticate', order: 0, method: 'BANK' },
        { t: 'return', auth: 0, inst: 0, forge: 'none', twice: false },
        { t: 'kill', inst: 0 },
        { t: 'return', auth: 0, inst: 0, forge: 'other-method', twice: false },
      ]));

    it("reads the gateway's code first: W010 and 1682 echoing another PayMethod than the return claimed are invalid and processed; a success or a refusal naming another is unknown", () => {
      const tid = 'nicepay00m01012603021000000001';
      const table: AnswerTable = {
        charset: 'utf-8',
        ediType: 'JSON',
        success: new Set(['3001']),
        invalid: new Set(['W010']),
        processed: new Set(['1682']),
        retry: new Set(['1227']),
        mustEcho: { TID: tid, MID: 'nicepay00m', Moid: 'w0' },
        mayEcho: { PayMethod: 'CARD' },
      };
      const answer = (code: string): Buffer =>
        Buffer.from(
          JSON.stringify({
            ResultCode: code,
            ResultMsg: 'x',
            TID: tid,
            MID: 'nicepay00m',
            Moid: 'w0',
            PayMethod: 'BANK',
          }),
        );
      expect(readAnswer(answer('W010'), table).kind).to.equal('invalid');
      expect(readAnswer(answer('1682'), table).kind).to.equal('processed');
      expect(readAnswer(answer('1227'), table).kind).to.equal('retry');
      expect(readAnswer(answer('3011'), table)).to.include({
        kind: 'unknown',
        reason: 'the answer (3011) names another PayMethod',
      });
      expect(readAnswer(answer('3001'), table)).to.include({
        kind: 'unknown',
        reason: 'the answer (3001) names another PayMethod',
      });
    });

    it('(sqlite) the same replay once the closed record expired (a day later) is not cancelled by settlement', () =>
      replay('sqlite', [
        { t: 'authenticate', order: 0, method: 'BANK' },
        { t: 'return', auth: 0, inst: 0, forge: 'none', twice: false },
        ...Array.from({ length: 25 }, (): Step => ({ t: 'advance', ms: 60 * 60_000 })),
        { t: 'return', auth: 0, inst: 0, forge: 'other-method', twice: false },
        { t: 'settle', inst: 1 },
      ]));
  });

  describe('settlement never reverses an approval the gateway made long before the request it settles', () => {
    // A day later the closed record has expired; the return is posted again and the gateway's
    // answer (1682, or W010 for a stranger's token) is lost. The request may have done anything,
    // as far as it knows, but the gateway approved the TID a day before it was written.
    it("(sqlite) the buyer's browser resubmitting a paid return a day later, its answer lost, leaves the payment standing", () =>
      replay('sqlite', [
        { t: 'authenticate', order: 0, method: 'CARD' },
        { t: 'return', auth: 0, inst: 0, forge: 'none', twice: false },
        { t: 'advance', ms: 25 * 60 * 60_000 },
        { t: 'fault', target: 'approve', kind: 'drop', commit: true },
        { t: 'return', auth: 0, inst: 1, forge: 'none', twice: false },
        { t: 'settle', inst: 0 },
      ]));

    it("(sqlite) a stranger's token on a day-old paid TxTid, its answer lost, leaves the victim's payment standing", () =>
      replay('sqlite', [
        { t: 'authenticate', order: 3, method: 'BANK' },
        { t: 'return', auth: 0, inst: 0, forge: 'none', twice: false },
        { t: 'advance', ms: 25 * 60 * 60_000 },
        { t: 'authenticate', order: 1, method: 'CARD' },
        { t: 'fault', target: 'approve', kind: 'drop', commit: true },
        { t: 'return', auth: 0, inst: 1, forge: 'stranger', twice: false },
        { t: 'settle', inst: 0 },
      ]));
  });

  describe('settlement never keeps what the status inquiry cannot tell from nothing (an unpaid virtual account is "not found" too), and never trusts the return\'s PayMethod for it', () => {
    // A virtual-account return posted as CARD: the gateway issues the account and answers 4100,
    // another method's success (unknown); the net cancel's answer is lost before it acted.
    // The status inquiry says "not found" of an unpaid account too, and the record's method
    // (the buyer's) said CARD, so settlement closed it as never charged: the account stood.
    it('(memory) the issued account is reversed by settle()', () =>
      replay('memory', [
        { t: 'fault', target: 'net-cancel', kind: 'drop', commit: false },
        { t: 'authenticate', order: 0, method: 'VBANK' },
        { t: 'return', auth: 0, inst: 0, forge: 'other-method', twice: false },
        { t: 'settle', inst: 0 },
      ]));

    // The instance dies while its virtual-account approval is at the gateway. Settlement read
    // "not found" as an issued account and ran onApproved: a payment recorded that never was.
    it('(sqlite) an instance killed before the gateway issued the account: settle() records nothing', () =>
      replay('sqlite', [
        { t: 'crash', inst: 0, op: 'return', order: 0, method: 'VBANK', commit: false },
        { t: 'settle', inst: 1 },
      ]));

    it('(sqlite) an instance killed after the gateway issued the account, before any answer: settle() cancels it', () =>
      replay('sqlite', [
        { t: 'crash', inst: 0, op: 'return', order: 0, method: 'VBANK', commit: true },
        { t: 'settle', inst: 1 },
      ]));

    it('(sqlite) a repeat of the genuine return meanwhile is answered from the record, and the account is reversed', () =>
      replay('sqlite', [
        { t: 'fault', target: 'net-cancel', kind: 'drop', commit: false },
        { t: 'authenticate', order: 0, method: 'VBANK' },
        { t: 'return', auth: 0, inst: 0, forge: 'other-method', twice: false },
        { t: 'return', auth: 0, inst: 0, forge: 'none', twice: false },
      ]));
  });
});
