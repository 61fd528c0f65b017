/**
 * Drives a world to rest, as time and a shop's ordinary retries would: faults stop, the shop's
 * hooks work again and hung ones settle, the gateway delivers every notice still due, and
 * settle() runs on every instance, the clock moved past each back-off, until nothing is open.
 * A billing charge whose hook never resolved has no hook settlement could run (docs/billing.md):
 * the merchant's retry of that charge brings one, as the settle report asks. A partial cancel
 * whose outcome is unknown is left for the shop by design (docs/lifecycle.md): it stays open,
 * needing attention, and its TID is noted in `notes.excluded`.
 */
import { PARTIAL_CANCEL_UNSAFE } from '../../src/cancel/operation.js';
import type { UnsettledItem } from '../../src/index.js';
import { chargeCall, keyinCall, seen } from './shop-steps.js';
import type { World } from './world.js';

/** How long the model waits for work a settled hook let go on (a guard, never a pause). */
const SETTLED_HOOK_WORK_MS = 10_000;
/** Rounds of settlement before a record still open is a violation. */
const ROUNDS = 10;
/** Most notice deliveries drained per round (the gateway retries every minute, ten times). */
const NOTICE_ROUNDS = 12;

/** Brings the world to rest; what would not settle is added to the shop's violations. */
export async function quiesce(world: World): Promise<void> {
  const { sandbox, books } = world;
  sandbox.faults.clear();
  books.clearModes();
  let open: UnsettledItem[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    while (books.hung.length > 0) await settleHungHook(world, 0, 'resolve');
    await drainNotices(world);
    for (const instance of world.instances) seen(world, await instance.nicepay.settle());
    open = await world.instances[0]!.nicepay.unsettled();
    for (const item of open.filter((u) => u.state === 'committed')) {
      // The merchant's retry of a call whose hook never resolved (the same input, with its hook).
      const order = Number(item.moid.slice(1));
      const charge = world.notes.charges.get(item.moid);
      if (item.operation === 'billing.charge' && charge)
        await chargeCall(world, world.instances[0]!, charge.bid, order, true);
      if (item.operation === 'keyin')
        // A committed key-in was paid by the approving card: a declining one is never charged.
        await keyinCall(world, world.instances[0]!, order, false, true);
    }
    await drainNotices(world);
    open = await world.instances[0]!.nicepay.unsettled();
    open = open.filter((u) => !leftForShop(world, u));
    if (open.length === 0 && books.hung.length === 0 && sandbox.notices.pending() === 0) return;
    await world.advance(60 * 60_000);
  }
  books.violations.push(
    `not at rest after ${ROUNDS} rounds of settle(): open ${JSON.stringify(open.map((u) => ({ op: u.operation, tid: u.tid, moid: u.moid, state: u.state, reason: u.reason })))}, ${books.hung.length} hung hooks, ${sandbox.notices.pending()} notices pending`,
  );
}

/**
 * An open record no settlement can close, by design: a partial cancel whose outcome is unknown
 * (docs/lifecycle.md), or the reversal of a virtual account the buyer paid before it was
 * reversed (a refund needs the buyer's account; the shop heard of the deposit through
 * onDeposit). Its TID is noted as excluded, with why.
 */
function leftForShop(world: World, u: UnsettledItem): boolean {
  const paidAccount = u.operation === 'approval' && world.sandbox.ledger.get(u.tid)?.deposit !== undefined;
  const why =
    u.reason === PARTIAL_CANCEL_UNSAFE
      ? 'a partial cancel whose outcome is unknown is left for the shop'
      : paidAccount
        ? "a paid virtual account cannot be reversed without the buyer's refund account"
        : undefined;
  if (why) world.notes.excluded.set(u.tid, why);
  return why !== undefined;
}

/** Delivers the notices still pending, a minute of virtual time apart, as the gateway retries them. */
async function drainNotices(world: World): Promise<void> {
  const { notices } = world.sandbox;
  await notices.idle();
  for (let n = 0; n < NOTICE_ROUNDS && notices.pending() > 0; n++) {
    await world.advance(61_000);
    await notices.runDue();
    await notices.idle();
  }
}

/** Settles one hung hook and waits until the work it held up has let go of its lease. */
export async function settleHungHook(world: World, pick: number, outcome: 'resolve' | 'reject'): Promise<void> {
  const { books } = world;
  const hung = books.hung[pick % Math.max(books.hung.length, 1)];
  if (!hung) return;
  const owner = world.all.find((i) => i.name === hung.owner)!;
  books.settleHung(pick, outcome);
  await owner.store.whenHolding(books.hung.filter((h) => h.owner === owner.name).length, SETTLED_HOOK_WORK_MS);
}
