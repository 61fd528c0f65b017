/**
 * The model's commands as plain data: what fast-check generates and shrinks, what a failure
 * prints, and what a regression test replays (test/model/regressions.test.ts). A `pick` chooses
 * among what exists when the step runs (a recorded TID, an unpaid virtual account, a hung hook),
 * modulo how many there are; a step with nothing to pick does nothing.
 */
import fc from 'fast-check';
import type { PayMethod } from '../../src/index.js';
import type { FaultKind, FaultTarget } from '../../src/sandbox/index.js';
import type { HookKind, HookMode } from './shop-books.js';

/** One command of a sequence. */
export type Step =
  /**
   * A buyer authenticates order `order` in the payment window (its auth return is kept);
   * `decline`: the issuer will refuse its approval (the window's 거절).
   */
  | { t: 'authenticate'; order: number; method: PayMethod; decline?: boolean }
  /**
   * The buyer's browser posts auth return `auth` to instance `inst`: as it is, with another
   * order's Moid of the same amount, with another PayMethod (both unsigned), or with a
   * stranger's token on this TxTid; `twice` posts it to both instances at once.
   */
  | {
      t: 'return';
      auth: number;
      inst: number;
      forge: 'none' | 'other-moid' | 'other-method' | 'stranger';
      twice: boolean;
      mode?: HookMode;
    }
  /** A flood of returns with made-up TxTids, each genuinely signed (auth `auth`'s token). */
  | { t: 'flood'; auth: number; inst: number }
  /**
   * The shop keys in a card for order `order` (a declining card when `declined`), with an
   * onApproved or without; `twice`: on both instances at once (a double submit). A step's
   * `mode` is how the next run of its hook behaves (as a 'hook' step would queue it).
   */
  | { t: 'keyin'; order: number; inst: number; declined: boolean; hook: boolean; twice?: boolean; mode?: HookMode }
  | { t: 'register'; inst: number }
  | { t: 'charge'; bid: number; order: number; inst: number; hook: boolean; twice?: boolean; mode?: HookMode }
  | { t: 'remove'; bid: number; inst: number }
  | { t: 'receipt'; order: number; inst: number }
  /** The shop refunds one of its recorded payments, in whole or in part, under idempotency key `key` (`twice`: a double click reaching both instances). */
  | { t: 'cancel'; pick: number; inst: number; partial: boolean; key: number; twice?: boolean }
  /** A buyer pays an issued virtual account; its notice is delivered at once, twice at once, or late. */
  | { t: 'deposit'; pick: number; timing: 'now' | 'duplicate' | 'late' }
  /** The gateway delivers the notices now due (late ones, retries). */
  | { t: 'notices' }
  | { t: 'fault'; target: FaultTarget; kind: FaultKind; commit: boolean }
  /** The next run of a hook throws, is slow, or hangs. */
  | { t: 'hook'; hook: HookKind; mode: HookMode }
  /** A hung hook settles. */
  | { t: 'hook-settles'; pick: number; outcome: 'resolve' | 'reject' }
  /** An instance is killed and restarted (memory: the process restarts once nothing is open). */
  | { t: 'kill'; inst: number }
  /** An instance is killed while its request is at the gateway, which commits it (or not) and never answers. */
  | { t: 'crash'; inst: number; op: 'return' | 'keyin' | 'charge'; order: number; method: PayMethod; commit: boolean }
  | { t: 'advance'; ms: number }
  /** settle() on one instance, or on both at once. */
  | { t: 'settle'; inst: number; both?: boolean };

/** Orders per kind in one sequence: few, so that repeats and collisions happen. */
export const ORDERS = 4;
/** An order's amount: two amounts, so another order of the same amount exists. */
export const amountOf = (order: number): number => (order % 2 === 0 ? 1_100 : 2_200);

const inst = fc.integer({ min: 0, max: 1 });
const order = fc.integer({ min: 0, max: ORDERS - 1 });
const pick = fc.nat({ max: 7 });
/** A step's hook behaviour: mostly none (the hook works). */
const mode = fc.option(fc.constantFrom<HookMode>('throw', 'slow', 'hang'), { freq: 3, nil: undefined });

/** Faults the model injects: every kind but `delay` (a lost answer is a `drop`, committed or not). */
const FAULT_KINDS: readonly FaultKind[] = [
  'drop',
  'status-500',
  'html',
  'truncate',
  'bad-signature',
  'alter-amount',
  'decline',
];
const FAULT_TARGETS: readonly FaultTarget[] = [
  'approve',
  'net-cancel',
  'keyin',
  'cancel',
  'status',
  'billing-charge',
  'billing-register',
  'billing-remove',
  'cash-receipt',
  'data',
];
/**
 * A fault on an endpoint. An issuer's refusal of an approval comes from the window's 거절
 * (`authenticate` with `decline`): a queued `decline` would also answer a replay of a TID the
 * gateway approved before, which the gateway answers "already approved" (1682), never refused.
 */
const faultArb = fc
  .record({
    t: fc.constant('fault' as const),
    target: fc.constantFrom(...FAULT_TARGETS),
    kind: fc.constantFrom(...FAULT_KINDS),
    commit: fc.boolean(),
  })
  .filter((f) => !(f.target === 'approve' && f.kind === 'decline'));

/** Every step, with how often it is drawn. */
export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('authenticate' as const),
      order,
      method: fc.constantFrom<PayMethod>('CARD', 'BANK', 'VBANK', 'VBANK', 'CELLPHONE'),
      decline: fc.constantFrom(false, false, false, true),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('return' as const),
      auth: pick,
      inst,
      forge: fc.constantFrom(
        'none' as const,
        'none' as const,
        'other-moid' as const,
        'other-method' as const,
        'stranger' as const,
      ),
      twice: fc.boolean(),
      mode,
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('flood' as const), auth: pick, inst }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('keyin' as const),
      order,
      inst,
      declined: fc.constantFrom(false, false, false, true),
      hook: fc.boolean(),
      twice: fc.constantFrom(false, false, true),
      mode,
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('register' as const), inst }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('charge' as const),
      bid: pick,
      order,
      inst,
      hook: fc.boolean(),
      twice: fc.constantFrom(false, false, true),
      mode,
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('remove' as const), bid: pick, inst }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('receipt' as const), order, inst }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('cancel' as const),
      pick,
      inst,
      partial: fc.boolean(),
      key: fc.nat({ max: 1 }),
      twice: fc.constantFrom(false, false, true),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('deposit' as const),
      pick,
      timing: fc.constantFrom('now' as const, 'duplicate' as const, 'late' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('notices' as const) }) },
  { weight: 5, arbitrary: faultArb },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('hook' as const),
      hook: fc.constantFrom<HookKind>('approval', 'keyin', 'billing', 'deposit', 'cancel'),
      mode: fc.constantFrom<HookMode>('throw', 'slow', 'hang'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('hook-settles' as const),
      pick,
      outcome: fc.constantFrom('resolve' as const, 'reject' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('kill' as const), inst }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('crash' as const),
      inst,
      op: fc.constantFrom('return' as const, 'keyin' as const, 'charge' as const),
      order,
      method: fc.constantFrom<PayMethod>('CARD', 'VBANK'),
      commit: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('advance' as const),
      ms: fc.constantFrom(1_000, 31_000, 11 * 60_000, 60 * 60_000),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('settle' as const), inst, both: fc.constantFrom(false, false, true) }),
  },
);
