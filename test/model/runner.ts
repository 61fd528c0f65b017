/**
 * Model-based runs: fast-check generates sequences of steps (fc.commands), runs each against a
 * fresh world (fc.asyncModelRun), checks the invariant after every step, after every settle()
 * and at rest, and shrinks a failure to the shortest sequence that shows it. The same runner
 * serves the slow suite (test/model.slow.test.ts), `npm run fuzz:model` (test/model/run.ts) and the
 * regressions (test/model/regressions.test.ts), which replay a shrunk sequence as data.
 */
import fc from 'fast-check';
import { captureLogger } from '../helpers/capture.js';
import { checkMoney, checkStep, type Cursor, pendingTids } from './invariant.js';
import { quiesce } from './quiesce.js';
import { runStep } from './run-step.js';
import { stepArb, type Step } from './steps.js';
import type { StoreKind } from './store-setup.js';
import { startWorld, type World } from './world.js';

/** Most steps in one sequence. */
export const MAX_STEPS = 25;

/** What the commands know without running anything: enough to tell which steps apply. */
interface Model {
  kind: StoreKind;
  auths: number;
  registers: number;
}

/** A failed check: the violations, in words. */
export class ModelViolation extends Error {
  override name = 'ModelViolation';
  constructor(readonly violations: readonly string[]) {
    super(`the money invariant does not hold:\n- ${violations.slice(0, 12).join('\n- ')}`);
  }
}

/** The world and the checks' state, as the commands see it. */
interface Real {
  world: World;
  lines: string[];
  cursor: Cursor;
}

/** Whether a step applies to the model (a step that does not is skipped, in a run and a replay alike). */
function applies(m: Model, step: Step): boolean {
  if (step.t === 'return' || step.t === 'flood') return m.auths > 0;
  if (step.t === 'charge' || step.t === 'remove') return m.registers > 0;
  // One memory process cannot lose one instance and keep the other's store: see 'kill'.
  if (step.t === 'crash') return m.kind !== 'memory';
  return true;
}

/** One step as a fast-check command. */
class StepCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly step: Step) {}
  check(m: Readonly<Model>): boolean {
    return applies(m, this.step);
  }
  async run(m: Model, real: Real): Promise<void> {
    if (this.step.t === 'authenticate' || (this.step.t === 'crash' && this.step.op === 'return')) m.auths++;
    if (this.step.t === 'register') m.registers++;
    await runStep(real.world, this.step);
    const found = checkStep(real.world, real.lines, real.cursor);
    if (this.step.t === 'settle' && found.length === 0) found.push(...checkMoney(real.world, await pendingTids(real.world), false));
    if (found.length > 0) {
      if (process.env.MODEL_DEBUG) console.log(real.world.notes.seen.join('\n'), '\n', real.lines.join('\n'));
      throw new ModelViolation(found);
    }
  }
  toString(): string {
    return JSON.stringify(this.step);
  }
}

let sequences = 0;

/** What the runs so far did, for the runner's summary line (a run that charges nothing proves little). */
export const totals = { sequences: 0, steps: 0, committed: 0, recorded: 0, refunds: 0, deposits: 0, kills: 0, hung: 0, threw: 0 };

/** Runs `commands` on a fresh world of `kind`, brings it to rest and checks the invariant there. */
async function runSequence(kind: StoreKind, commands: Iterable<fc.AsyncCommand<Model, Real>>, redisUrl: string | undefined): Promise<void> {
  const captured = captureLogger();
  const world = await startWorld(kind, captured.logger, String(++sequences), redisUrl);
  const real: Real = { world, lines: captured.lines, cursor: { lines: 0, seen: 0, answers: 0 } };
  try {
    await fc.asyncModelRun(() => ({ model: { kind, auths: 0, registers: 0 }, real }), commands);
    await quiesce(world);
    totals.sequences++;
    totals.steps += [...commands].filter((c) => (c as unknown as { hasRan?: boolean }).hasRan !== false).length;
    totals.committed += world.sandbox.ledger.entries().filter((e) => e.approvedAt !== undefined).length;
    totals.recorded += world.books.charges.size;
    totals.refunds += world.books.refunds.size;
    totals.deposits += world.books.deposits.size;
    totals.kills += world.all.length - 2;
    totals.hung += world.books.misbehaved.hang;
    totals.threw += world.books.misbehaved.throw;
    const found = [...checkStep(world, real.lines, real.cursor), ...checkMoney(world, new Set(), true)];
    if (found.length > 0) throw new ModelViolation(found);
  } finally {
    await world.close();
  }
}

/** The property: every sequence of steps on `kind` keeps the invariant. */
export function modelProperty(kind: StoreKind, redisUrl?: string): fc.IAsyncPropertyWithHooks<[Iterable<fc.AsyncCommand<Model, Real>>]> {
  const commands = fc.commands([stepArb.map((step) => new StepCommand(step))], { maxCommands: MAX_STEPS, size: 'max' });
  return fc.asyncProperty(commands, (cmds) => runSequence(kind, cmds, redisUrl));
}

/** Replays a sequence of steps (a shrunk counterexample) on `kind`; rejects with the violations. */
export function replay(kind: StoreKind, steps: readonly Step[], redisUrl?: string): Promise<void> {
  return runSequence(kind, steps.map((s) => new StepCommand(s)), redisUrl);
}

/** The steps of a counterexample, as a regression test that replays them. */
export function asRegression(kind: StoreKind, commands: Iterable<fc.AsyncCommand<Model, Real>>, message: string): string {
  // fast-check wraps each command and marks the ones the failing run ran.
  const wrapped = [...commands] as unknown as Array<{ cmd: StepCommand; hasRan: boolean }>;
  const ran = wrapped.filter((w) => w.hasRan);
  const steps = (ran.length > 0 ? ran : wrapped).map((w) => w.cmd.step);
  const title = message.split('\n').find((l) => l.startsWith('- '))?.slice(2, 120) ?? 'the money invariant holds';
  return [
    `it(${JSON.stringify(`(${kind}) ${title}`)}, () =>`,
    `  replay(${JSON.stringify(kind)}, [`,
    ...steps.map((s) => `    ${JSON.stringify(s)},`),
    // A Redis replay needs the suite's redis-server (startRedisServer in a before hook).
    kind === 'redis' ? `  ], redis.url));` : `  ]));`,
  ].join('\n');
}
