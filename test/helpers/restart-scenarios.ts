/**
 * The scenarios of the restart tests (test/slow/restart-sqlite.test.ts): which processes are
 * killed where, what each leaves in the ledger file, and what everything must end in.
 */
import type { SettledOutcome } from '../../src/index.js';
import { operation, type Operation } from './restart-operations.js';

/** One run of processes on one ledger file, and what it must end in. */
export interface Scenario {
  o: Operation;
  /**
   * The KILL_AT of each process that dies, in order; the process after the last one lives.
   * `hang:<op>`: that process's hook hangs instead, and the test kills it once it answered.
   */
  kills: string[];
  /** The record as each killed process left it in the file. */
  left: { state: string; hook: string }[];
  /** The gateway keeps the money once everything settled. */
  charged: boolean;
  /** The record's last state. */
  final: 'recorded' | 'never-charged' | 'reversed';
  /**
   * What the last process's settle() closes it as; undefined when its repeat closes it (a repeat
   * that finds the record open and due settles it then and there, with its own hook).
   */
  settledAs: SettledOutcome | undefined;
  /** Runs of the shop's hook for the TID, killed ones included. */
  hookRuns: number;
}

/** The scenario of one kill at `point` of `o`. */
export function killedOnce(
  o: Operation,
  point: 'before-send' | 'after-commit' | 'in-hook' | 'in-hook-recorded',
): Scenario {
  const kills = [`${point}:${o.op}`];
  const sending = { state: 'sending', hook: o.hook ? 'pending' : 'none' };
  switch (point) {
    case 'before-send':
      // The gateway never heard of it, and the repeat's settlement step finds so.
      return { o, kills, left: [sending], charged: false, final: 'never-charged', settledAs: undefined, hookRuns: 0 };
    case 'after-commit':
      // No hook can have recorded a receipt: it is reversed. A payment is kept, its hook run once,
      // by the repeat that settles it (the buyer's retry, the shop's resubmission).
      if (!o.hook)
        return { o, kills, left: [sending], charged: false, final: 'reversed', settledAs: undefined, hookRuns: 0 };
      return { o, kills, left: [sending], charged: true, final: 'recorded', settledAs: undefined, hookRuns: 1 };
    default:
      // The repeat brings the hook and runs it again, once the first run's process is dead.
      return {
        o,
        kills,
        left: [{ state: 'committed', hook: 'pending' }],
        charged: true,
        final: 'recorded',
        settledAs: undefined,
        hookRuns: 2,
      };
  }
}

/** Successors killed again while they finish what the first left. */
export const KILLED_TWICE: Scenario[] = [
  // The repeat settles the approval, runs the hook and dies in it; the next repeat runs it again.
  {
    o: operation('approval'),
    kills: ['after-commit:approval', 'in-hook:approval'],
    left: [
      { state: 'sending', hook: 'pending' },
      { state: 'committed', hook: 'pending' },
    ],
    charged: true,
    final: 'recorded',
    settledAs: undefined,
    hookRuns: 2,
  },
  // The repeat dies asking the gateway what it holds: nothing moved, the next one asks again.
  {
    o: operation('approval'),
    kills: ['before-send:approval', 'before-send:status'],
    left: [
      { state: 'sending', hook: 'pending' },
      { state: 'sending', hook: 'pending' },
    ],
    charged: false,
    final: 'never-charged',
    settledAs: undefined,
    hookRuns: 0,
  },
  // The repeat's hook run dies after recording the payment: a third run records nothing new.
  {
    o: operation('keyin'),
    kills: ['in-hook:keyin', 'in-hook-recorded:keyin'],
    left: [
      { state: 'committed', hook: 'pending' },
      { state: 'committed', hook: 'pending' },
    ],
    charged: true,
    final: 'recorded',
    settledAs: undefined,
    hookRuns: 3,
  },
  // The charge's own repeat brings its hook after settlement found the charge, and dies in it.
  {
    o: operation('billing.charge'),
    kills: ['after-commit:billing.charge', 'in-hook:billing.charge'],
    left: [
      { state: 'sending', hook: 'pending' },
      { state: 'committed', hook: 'pending' },
    ],
    charged: true,
    final: 'recorded',
    settledAs: undefined,
    hookRuns: 2,
  },
  // The repeat dies before its reversal of the receipt leaves, then after the gateway did it.
  {
    o: operation('cash-receipt'),
    kills: ['after-commit:cash-receipt', 'before-send:net-cancel'],
    left: [
      { state: 'sending', hook: 'none' },
      { state: 'reversing', hook: 'none' },
    ],
    charged: false,
    final: 'reversed',
    settledAs: undefined,
    hookRuns: 0,
  },
  {
    o: operation('cash-receipt'),
    kills: ['after-commit:cash-receipt', 'after-commit:net-cancel'],
    left: [
      { state: 'sending', hook: 'none' },
      { state: 'reversing', hook: 'none' },
    ],
    charged: false,
    final: 'reversed',
    settledAs: undefined,
    hookRuns: 0,
  },
];

/** Processes killed while their hook hangs: its record says so, and a repeat is told at once. */
export const KILLED_WHILE_HOOK_HANGS: Scenario[] = (['approval', 'keyin', 'billing.charge'] as const).map((op) => ({
  o: operation(op),
  kills: [`hang:${op}`],
  left: [{ state: 'committed', hook: 'hung' }],
  charged: true,
  final: 'recorded',
  settledAs: undefined,
  hookRuns: 2,
}));

/** A kill as a title says it. */
const killName = (k: string): string => (k.startsWith('hang:') ? 'while its hook hangs' : k);

/** The test's title: the kills, what they left, how it ends. */
export function title(s: Scenario): string {
  const end = s.charged
    ? `kept once, its hook run ${s.hookRuns} time(s) in all, never two at once`
    : s.final === 'reversed'
      ? 'reversed by the settler'
      : 'settled as never charged';
  return `${s.o.label}, killed ${s.kills.map(killName).join(', then its successor ')}: left ${s.left.map((l) => l.state).join(', then ')}; after the restart ${end}; gateway, ledger and shop agree`;
}
