import type { SandboxModule, SandboxState } from './types.js';
import { transStatus } from './status/trans-status.js';
import { deposit, type DepositOptions } from './notify/deposit.js';
import { noticesIdle, pendingNotices, runDueNotices } from './notify/deliveries.js';

export type { DepositOptions } from './notify/deposit.js';
export { CANCEL_CODES, CANCEL_PERIOD_MS } from './cancel/cancel-process.js';
export { STATUS_CODES } from './status/trans-status.js';

/**
 * The rest of a payment's life in the sandbox: the status inquiry route. (Plain cancels are
 * served by the approval module's cancel_process.jsp, which dispatches them to cancel/.)
 */
export const lifecycleModule: SandboxModule = {
  name: 'lifecycle',
  routes: {
    'POST /webapi/inquery/trans_status.jsp': transStatus,
  },
};

/** Sandbox controls for payment notices (deposits and cancels). */
export interface SandboxNotices {
  /** Delivers every notice due on the virtual clock (late ones, retries); resolves to how many deliveries were made. */
  runDue(): Promise<number>;
  /** Notices not yet answered OK that will be retried. */
  pending(): number;
  /** Resolves once no delivery is under way (a cancel's notice leaves just after its answer). */
  idle(): Promise<void>;
}

/** The facade's lifecycle members, over one sandbox's state. */
export function lifecycleFacade(state: SandboxState): { deposit(tid: string, options?: DepositOptions): Promise<void>; notices: SandboxNotices } {
  return {
    deposit: (tid, options) => deposit(state, tid, options),
    notices: { runDue: () => runDueNotices(state), pending: () => pendingNotices(state), idle: () => noticesIdle(state) },
  };
}
