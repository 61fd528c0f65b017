/**
 * Runs one step of a sequence against the world: the shop's and buyers' steps (shop-steps.ts)
 * and the world's own: the gateway's deposits, notices and faults, hooks that misbehave and
 * settle, instances killed, the clock, settle().
 */
import type { FaultTarget } from '../../src/sandbox/index.js';
import { quiesce, settleHungHook } from './quiesce.js';
import {
  cancelStep,
  chargeCall,
  floodStep,
  keyinCall,
  postReturn,
  receiptStep,
  registerStep,
  removeStep,
  returnStep,
  seen,
} from './shop-steps.js';
import { amountOf, type Step } from './steps.js';
import type { World } from './world.js';

/** Runs `step`; returns once everything it started has finished (notices included). */
export async function runStep(world: World, step: Step): Promise<void> {
  const { sandbox, books } = world;
  const hookOf = { return: 'approval', keyin: 'keyin', charge: 'billing' } as const;
  if ((step.t === 'return' || step.t === 'keyin' || step.t === 'charge') && step.mode)
    books.queueMode(hookOf[step.t], step.mode);
  switch (step.t) {
    case 'authenticate':
      world.auths.push(
        await sandbox.authenticate({
          moid: `w${step.order}`,
          amount: amountOf(step.order),
          method: step.method,
          decline: step.decline === true,
        }),
      );
      break;
    case 'return':
      await returnStep(world, step);
      break;
    case 'flood':
      await floodStep(world, step);
      break;
    case 'keyin':
      await Promise.all(
        slots(step.inst, step.twice).map((i) =>
          keyinCall(world, world.instances[i]!, step.order, step.declined, step.hook),
        ),
      );
      break;
    case 'register':
      await registerStep(world, step);
      break;
    case 'charge': {
      const bid = world.bids[step.bid % Math.max(world.bids.length, 1)];
      if (bid)
        await Promise.all(
          slots(step.inst, step.twice).map((i) => chargeCall(world, world.instances[i]!, bid, step.order, step.hook)),
        );
      break;
    }
    case 'remove':
      await removeStep(world, step);
      break;
    case 'receipt':
      await receiptStep(world, step);
      break;
    case 'cancel':
      await Promise.all(slots(step.inst, step.twice).map((i) => cancelStep(world, { ...step, inst: i })));
      break;
    case 'deposit': {
      const unpaid = sandbox.ledger.entries().filter((e) => e.method === 'VBANK' && e.status === 'awaiting-deposit');
      const entry = unpaid[step.pick % Math.max(unpaid.length, 1)];
      if (entry)
        await sandbox.deposit(
          entry.tid,
          step.timing === 'duplicate' ? { duplicate: true } : step.timing === 'late' ? { lateMinutes: 5 } : {},
        );
      break;
    }
    case 'notices':
      await sandbox.notices.runDue();
      break;
    case 'fault':
      sandbox.faults.inject({ target: step.target, kind: step.kind, commit: step.commit });
      break;
    case 'hook':
      books.queueMode(step.hook, step.mode);
      break;
    case 'hook-settles':
      await settleHungHook(world, step.pick, step.outcome);
      break;
    case 'kill':
      if (world.kind === 'memory') {
        // One process: its restart forgets the store, so it is modelled once nothing is open.
        await quiesce(world);
        world.restartMemory();
      } else {
        await world.kill(step.inst);
      }
      break;
    case 'crash':
      await crashStep(world, step);
      break;
    case 'advance':
      await world.advance(step.ms);
      break;
    case 'settle':
      for (const report of await Promise.all(
        slots(step.inst, step.both).map((i) => world.instances[i]!.nicepay.settle()),
      ))
        seen(world, report);
      break;
  }
  // A cancel's notice leaves just after its answer: let it arrive before anything is checked.
  await new Promise((resolve) => setImmediate(resolve));
  await sandbox.notices.idle();
}

/** The instance slots a step runs on: its own, or both at once. */
const slots = (inst: number, both: boolean | undefined): number[] => (both ? [inst, 1 - inst] : [inst]);

/**
 * An instance killed while its request is at the gateway: the gateway commits it (or not) and
 * holds its answer; the instance dies before any answer. Nothing is killed when the request
 * never reaches the gateway (a repeat answered from the ledger).
 */
async function crashStep(world: World, step: Extract<Step, { t: 'crash' }>): Promise<void> {
  const { sandbox } = world;
  const target: FaultTarget = step.op === 'return' ? 'approve' : step.op === 'keyin' ? 'keyin' : 'billing-charge';
  const instance = world.instances[step.inst]!;
  const bid = world.bids[0];
  if (step.op === 'charge' && !bid) return;
  const abort = new AbortController();
  sandbox.faults.inject({ target, kind: 'delay', delayMs: 600_000, commit: step.commit });
  const taken = world.faultTaken(target).then(() => true);
  let work: Promise<void>;
  if (step.op === 'return') {
    const auth = await sandbox.authenticate({
      moid: `w${step.order}`,
      amount: amountOf(step.order),
      method: step.method,
    });
    world.auths.push(auth);
    work = postReturn(world, step.inst, auth, auth.fields, abort.signal);
  } else if (step.op === 'keyin') {
    work = keyinCall(world, instance, step.order, false, true);
  } else {
    work = chargeCall(world, instance, bid!, step.order, true);
  }
  const reached = await Promise.race([
    taken,
    work.then(
      () => false,
      () => false,
    ),
  ]);
  if (!reached) {
    // The request never left: take the unused fault back out of the queue.
    const rest = sandbox.faults
      .pending()
      .filter((f) => !(f.target === target && f.kind === 'delay' && f.delayMs === 600_000));
    sandbox.faults.clear();
    for (const f of rest) sandbox.faults.inject(f);
    return;
  }
  await world.kill(step.inst);
  abort.abort();
}
