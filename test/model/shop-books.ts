/**
 * The model shop's own database: what it recorded, and only through the ways a real shop
 * records money. A payment is recorded by its hook (onApproved of the return route, of a
 * key-in or of a billing charge) or, for a call made without a hook, from the result returned
 * to the caller (a key-in, a charge, a cash receipt); a refund by a cancel's result or by
 * onCancel; a deposit by onDeposit. Every record is idempotent by TID (by cancel for refunds),
 * as docs/hooks.md asks of a shop.
 *
 * Every hook goes through {@link ShopBooks.runHook}, which gives it the behaviour the model
 * queued for its kind (throw, slow, hang) and notes a violation if a hook starts while another
 * run for the same key has not finished.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** The hooks of the model shop. */
export type HookKind = 'approval' | 'keyin' | 'billing' | 'deposit' | 'cancel';
/** How the next run of a hook behaves: fails, resolves after its signal aborted, or does not settle until told. */
export type HookMode = 'throw' | 'slow' | 'hang';

/** When a hook's signal aborts (it is reported hung at twice this). */
export const HOOK_TIMEOUT_MS = 25;
/** How long a slow hook takes: past its signal's abort, short of hung. */
const SLOW_MS = 36;

/** A payment the shop recorded. */
export interface Charge {
  op: 'approval' | 'keyin' | 'billing.charge' | 'cash-receipt';
  moid: string;
  amount: number;
}

/** A hook run that has not settled, waiting for the model to settle it. */
export interface HungHook {
  kind: HookKind;
  key: string;
  /** The instance (slot and generation) it runs in: a killed instance's hooks never settle. */
  owner: string;
  settle(outcome: 'resolve' | 'reject'): void;
}

/** The shop's records, its hooks' queued behaviours and the violations its hooks saw. */
export class ShopBooks {
  /** TID -> the payment recorded. */
  readonly charges = new Map<string, Charge>();
  /** `${tid} ${cancelMoid}` -> won refunded by that cancel. */
  readonly refunds = new Map<string, { tid: string; amount: number }>();
  /** TID -> won deposited. */
  readonly deposits = new Map<string, number>();
  /** The shop's orders: Moid -> amount (what expectedAmount answers). */
  readonly orders = new Map<string, number>();
  readonly violations: string[] = [];
  readonly hung: HungHook[] = [];
  /** How many hook runs hung, threw or were slow (for the runner's summary). */
  readonly misbehaved = { hang: 0, throw: 0, slow: 0 };
  private readonly modes = new Map<HookKind, HookMode[]>();
  private readonly running = new Map<string, number>();
  private runs = 0;

  /** Queues the behaviour of the next run of a hook kind. */
  queueMode(kind: HookKind, mode: HookMode): void {
    const queue = this.modes.get(kind) ?? [];
    queue.push(mode);
    this.modes.set(kind, queue);
  }

  /** Forgets every queued behaviour (the shop's systems work again). */
  clearModes(): void {
    this.modes.clear();
  }

  /**
   * Runs one hook: `record` is what it writes to the database. A run by settlement takes a
   * queued `hang` only from a request (settlement gives a hook 30 s before it is hung, which the
   * model does not wait for); `throw` and `slow` apply to any run.
   */
  async runHook(kind: HookKind, key: string, owner: string, bySettlement: boolean, record: () => void): Promise<void> {
    const queue = this.modes.get(kind) ?? [];
    const mode = queue[0] === 'hang' && bySettlement ? undefined : queue.shift();
    if (this.running.has(key))
      this.violations.push(`hook ${kind} for ${key} started while another run of it had not finished`);
    if (mode) this.misbehaved[mode]++;
    const run = ++this.runs;
    this.running.set(key, run);
    try {
      if (mode === 'throw') throw new Error('the shop database is unavailable');
      if (mode === 'slow') await sleep(SLOW_MS);
      if (mode === 'hang') {
        await new Promise<void>((resolve, reject) => {
          this.hung.push({
            kind,
            key,
            owner,
            settle: (o) => (o === 'resolve' ? resolve() : reject(new Error('the shop database gave up'))),
          });
        });
      }
      record();
    } finally {
      if (this.running.get(key) === run) this.running.delete(key);
    }
  }

  /** A killed instance's hung hooks: they stop running and never settle. */
  dropHooksOf(owner: string): void {
    for (let i = this.hung.length - 1; i >= 0; i--) {
      const h = this.hung[i]!;
      if (h.owner !== owner) continue;
      this.hung.splice(i, 1);
      this.running.delete(h.key);
    }
  }

  /** Settles one hung hook (chosen by `pick`), if any. */
  settleHung(pick: number, outcome: 'resolve' | 'reject'): boolean {
    if (this.hung.length === 0) return false;
    const [h] = this.hung.splice(pick % this.hung.length, 1);
    h!.settle(outcome);
    return true;
  }

  /** Records a payment, once per TID; a TID recorded for another order or amount is a violation. */
  recordCharge(tid: string, charge: Charge): void {
    const had = this.charges.get(tid);
    if (had && (had.moid !== charge.moid || had.amount !== charge.amount || had.op !== charge.op)) {
      this.violations.push(`TID ${tid} recorded as ${JSON.stringify(had)} and again as ${JSON.stringify(charge)}`);
      return;
    }
    this.charges.set(tid, charge);
  }

  /** Records a refund, once per cancel (its own Moid). */
  recordRefund(tid: string, cancelMoid: string, amount: number): void {
    this.refunds.set(`${tid} ${cancelMoid}`, { tid, amount });
  }

  /**
   * Won the shop holds for a TID: recorded (a payment, or a deposit to an account the shop never
   * heard was issued: onDeposit marks the order paid all the same), less what it knows was refunded.
   */
  held(tid: string): number {
    const recorded = this.charges.get(tid)?.amount ?? this.deposits.get(tid);
    if (recorded === undefined) return 0;
    let refunded = 0;
    for (const r of this.refunds.values()) if (r.tid === tid) refunded += r.amount;
    return recorded - refunded;
  }
}
