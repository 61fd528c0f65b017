/**
 * The money invariant (docs/reliability.md, "The money invariant, checked by a model"), read
 * off the sandbox's ledger (the gateway's truth) and the shop's books. Each check returns the
 * violations it found, in words; none means it holds.
 *
 * - After every step: the shop recorded only what the gateway committed, for the order and
 *   amount the gateway has (nothing recorded or relabelled from unsigned input); every answer
 *   that reports an order paid was recorded first, and a decline never names a paid order; no
 *   hook ran twice at once for one key; no secret in a log line, an error or a result.
 * - After every settle(): for every TID the gateway holds money if and only if the shop
 *   recorded it (in won, refunds counted), except for TIDs still open in the ledger or whose
 *   notice the gateway is still delivering; no Moid charged twice; nothing the shop recorded
 *   was reversed behind its back.
 * - At the end, once at rest: the same with no exception, and every deposit recorded.
 */
import { KEYIN_RESULT_TTL_MS } from '../../src/keyin/operation.js';
import type { LedgerEntry } from '../../src/sandbox/index.js';
import { findSecrets } from '../hooks/secret-guard.js';
import { SHOP_CANCEL_REASON } from './shop-steps.js';
import type { World } from './world.js';

/** How far the per-step checks have read (log lines, seen texts, answers). */
export interface Cursor {
  lines: number;
  seen: number;
  answers: number;
}

const HOLDING = new Set(['approved', 'awaiting-deposit']);

/** Won the gateway holds for a transaction: committed, less what was cancelled. */
export function gatewayHeld(e: LedgerEntry): number {
  if (!HOLDING.has(e.status)) return 0;
  const cancels = e.cancels ?? [];
  return cancels.length > 0 ? cancels[cancels.length - 1]!.remaining : e.amount;
}

/** The checks of every step; advances `cursor` past what it read. */
export function checkStep(world: World, lines: readonly string[], cursor: Cursor): string[] {
  const { books, sandbox, notes } = world;
  const found = [...books.violations];
  for (const [tid, charge] of books.charges) {
    const e = sandbox.ledger.get(tid);
    if (!e || e.approvedAt === undefined)
      found.push(`the shop recorded ${charge.op} ${tid} of order ${charge.moid}, which the gateway never committed`);
    else if (
      e.moid !== charge.moid ||
      e.amount !== charge.amount ||
      (charge.op === 'approval') !== (e.source === 'window')
    ) {
      found.push(
        `the shop recorded ${tid} as ${charge.op} of order ${charge.moid} (${charge.amount} won); the gateway has it for order ${e.moid} (${e.amount} won)`,
      );
    }
  }
  for (const a of notes.answers.slice(cursor.answers)) {
    const e = sandbox.ledger.get(a.tid);
    if (a.status === 'declined' || a.status === 'refused') {
      if (e && (e.moid !== a.moid || gatewayHeld(e) > 0))
        found.push(
          `${a.op} ${a.tid} was answered ${a.status} for order ${a.moid}; the gateway holds ${gatewayHeld(e)} won of it for order ${e.moid}`,
        );
    } else if (books.charges.get(a.tid)?.moid !== a.moid) {
      found.push(
        `${a.op} ${a.tid} was answered ${a.status} for order ${a.moid} but the shop has not recorded it for that order`,
      );
    }
  }
  cursor.answers = notes.answers.length;
  const text = [...lines.slice(cursor.lines), ...notes.seen.slice(cursor.seen)].join('\n');
  cursor.lines = lines.length;
  cursor.seen = notes.seen.length;
  // Hex words (signatures, tokens, trace ids) and masked values (a BID's last four characters
  // after its stars) are set aside first: a short secret such as an expiry occurs in one by
  // chance. Digit runs stay: a card number has no hex letter and no star.
  const unhexed = text
    .replace(/[0-9a-fA-F]{8,}/g, (m) => (/[a-fA-F]/.test(m) && /\d/.test(m) ? '#'.repeat(m.length) : m))
    .replace(/\w*\*+\w*/g, (m) => '#'.repeat(m.length));
  found.push(...findSecrets(unhexed).map((s) => `secret in a log line, error or result: ${s}`));
  for (const secret of [...world.bids, ...notes.identities]) {
    if (new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`).test(text))
      found.push(`a BID or receipt identity in a log line, error or result (${secret.slice(0, 4)}…)`);
  }
  return found;
}

/**
 * The money checks: gateway and shop agree on every TID outside `pending` (all of them when
 * `final`), no Moid is charged twice, nothing the shop recorded was reversed, deposits agree.
 */
export function checkMoney(world: World, open: ReadonlySet<string>, final: boolean): string[] {
  const { books, sandbox, notes } = world;
  const found: string[] = [];
  const entries = sandbox.ledger.entries();
  const pending = new Set([...open, ...notes.excluded.keys()]);
  for (const e of entries) {
    if (pending.has(e.tid)) continue;
    const shop = books.held(e.tid);
    if (gatewayHeld(e) !== shop)
      found.push(
        `${e.source === 'window' ? 'approval' : (e.extra.service ?? 'card charge')} ${e.tid} of order ${e.moid}: the gateway holds ${gatewayHeld(e)} won (${e.status}), the shop recorded ${shop}`,
      );
  }
  const byMoid = new Map<string, LedgerEntry[]>();
  for (const e of entries.filter((x) => gatewayHeld(x) > 0 && !pending.has(x.tid)))
    byMoid.set(e.moid, [...(byMoid.get(e.moid) ?? []), e]);
  for (const [moid, held] of byMoid) {
    if (held.length < 2) continue;
    // Documented: a memoryStore restart forgets, and a key-in's record answers repeats for a day only.
    const forgotten =
      held.every((e) => e.source === 'keyin') && (notes.memoryRestarts > 0 || spread(held) >= KEYIN_RESULT_TTL_MS);
    if (!forgotten)
      found.push(`order ${moid} is charged ${held.length} times at the gateway: ${held.map((e) => e.tid).join(', ')}`);
  }
  for (const tid of books.charges.keys()) {
    if (notes.excluded.has(tid)) continue;
    const e = sandbox.ledger.get(tid);
    const foreign = (e?.cancels ?? []).filter((c) => c.reason !== SHOP_CANCEL_REASON);
    if (e?.status === 'net-cancelled' || foreign.length > 0)
      found.push(
        `${tid}, which the shop recorded, was reversed at the gateway (${e?.status}; ${foreign.map((c) => c.reason).join(', ')})`,
      );
  }
  for (const [tid, amount] of books.deposits) {
    if (sandbox.ledger.get(tid)?.deposit?.amount !== amount)
      found.push(`the shop recorded a deposit of ${amount} won to ${tid}, which the gateway never took`);
  }
  if (final) {
    for (const e of entries.filter((x) => x.deposit && !books.deposits.has(x.tid))) {
      const tries = (e.notices ?? []).filter((n) => n.kind === 'deposit');
      // The gateway gives up after its last retry: a shop that failed them all never hears.
      if (tries.length < 11 || tries.some((n) => n.ok))
        found.push(
          `the gateway took a deposit of ${e.deposit!.amount} won to ${e.tid} (order ${e.moid}) that the shop never recorded`,
        );
    }
  }
  return found;
}

/** TIDs the checks after settle() leave out: open in the ledger, or with a notice still being delivered. */
export async function pendingTids(world: World): Promise<Set<string>> {
  const pending = new Set((await world.instances[0]!.nicepay.unsettled()).map((u) => u.tid));
  if (world.sandbox.notices.pending() > 0) {
    for (const e of world.sandbox.ledger.entries()) {
      const heard = [...world.books.refunds.values()].filter((r) => r.tid === e.tid).reduce((s, r) => s + r.amount, 0);
      const cancelled = (e.cancels ?? []).reduce((s, c) => s + c.amount, 0);
      if (heard !== cancelled || (e.deposit && !world.books.deposits.has(e.tid))) pending.add(e.tid);
    }
  }
  return pending;
}

function spread(entries: readonly LedgerEntry[]): number {
  const times = entries.map((e) => e.approvedAt!.getTime());
  return Math.max(...times) - Math.min(...times);
}
