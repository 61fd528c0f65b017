import { moduleSlot } from '../module-state.js';
import type { SandboxState } from '../types.js';

/** A billing key the sandbox issued: bound to one card and its expiry. */
export interface SandboxBillingKey {
  bid: string;
  mid: string;
  cardNo: string;
  /** YY */
  expYear: string;
  /** MM */
  expMonth: string;
  /** The registration's TID. */
  tid: string;
  registeredAt: Date;
  removedAt?: Date;
}

/** The billing module's books inside one sandbox. */
export interface BillingModuleState {
  /** Every BID issued, removed ones included (a removed BID is never restored). */
  keys: Map<string, SandboxBillingKey>;
  /** Charge TIDs that reached the gateway, with how many times each did (more than 1 = refused duplicates). */
  chargeTids: Map<string, number>;
}

/** The billing module's state inside a sandbox (created on first use). */
export function billingState(state: SandboxState): BillingModuleState {
  return moduleSlot<BillingModuleState>(state, 'billing', () => ({ keys: new Map(), chargeTids: new Map() }));
}
