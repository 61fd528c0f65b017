import type { LedgerEntry } from '../ledger.js';
import type { SandboxState } from '../types.js';

/**
 * How long an AuthToken can be approved after the window issued it, on the sandbox's virtual
 * clock. The documents publish no lifetime; the sandbox is strict and allows ten minutes, far
 * more than a server that approves right after the return needs, so a client that parks the
 * token (or a test that forgets the clock) fails here. docs/sandbox.md says so.
 */
export const AUTH_TOKEN_TTL_MS = 10 * 60 * 1000;

/**
 * How long after the approval (or, for a transaction never approved, after its authentication)
 * a net cancel is accepted. gateway-facts: "2020 = net-cancel window passed (window length
 * unpublished)". A net cancel is the immediate reversal of an outcome the merchant could not
 * learn, so the sandbox allows ten minutes on its virtual clock; later, a shop must cancel.
 */
export const NET_CANCEL_WINDOW_MS = 10 * 60 * 1000;

/** True when the entry's AuthToken has outlived {@link AUTH_TOKEN_TTL_MS} at `now`. */
export function tokenExpired(entry: LedgerEntry, now: Date): boolean {
  return now.getTime() - entry.createdAt.getTime() > AUTH_TOKEN_TTL_MS;
}

/** True when a net cancel of `entry` at `now` is past {@link NET_CANCEL_WINDOW_MS}. */
export function netCancelWindowPassed(entry: LedgerEntry, now: Date): boolean {
  const from = entry.approvedAt ?? entry.createdAt;
  return now.getTime() - from.getTime() > NET_CANCEL_WINDOW_MS;
}

/**
 * Burns the AuthToken of an authenticated transaction after a failed approval attempt that
 * presented it with a valid SignData: the transaction is booked 'declined' and any later
 * approval is a re-request (I003). Attempts that did not prove the merchant sent them (bad
 * SignData, a token that does not belong to the TID) change nothing, so a buyer or a third
 * party holding only the token cannot spoil the merchant's approval.
 */
export function burnToken(state: SandboxState, entry: LedgerEntry): void {
  // Which refusals burn is the sandbox's guess (the facts only name I003): it can be turned off.
  if (!state.rules.burnTokenOnRefusal) return;
  entry.extra.tokenUsed = '1';
  if (entry.status === 'authenticated') state.ledger.update(entry.tid, 'declined', state.clock.now());
}

/**
 * The transaction of the same merchant and Moid that holds an approval, other than `tid`:
 * approved, awaiting deposit or cancelled after approval all count (the order was paid once);
 * only a net cancel erases an approval, as if it never happened.
 */
export function approvedMoidHolder(
  state: SandboxState,
  mid: string,
  moid: string,
  tid: string,
): LedgerEntry | undefined {
  return state.ledger
    .byMoid(mid, moid)
    .find((e) => e.tid !== tid && e.approvedAt !== undefined && e.status !== 'net-cancelled');
}
