import type { SandboxMerchant, SandboxModule, SandboxState } from './types.js';
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
export function lifecycleFacade(state: SandboxState): {
  deposit(tid: string, options?: DepositOptions): Promise<void>;
  notices: SandboxNotices;
} {
  return {
    deposit: (tid, options) => deposit(state, tid, options),
    notices: {
      runDue: () => runDueNotices(state),
      pending: () => pendingNotices(state),
      idle: () => noticesIdle(state),
    },
  };
}

/**
 * Refuses notice settings the merchant admin would not accept: notificationUrl an absolute
 * http(s) URL, retries every 1-10 minutes, 1-10 times (lifecycle-facts §3).
 */
export function checkNoticeSettings(m: SandboxMerchant): void {
  if (m.notificationUrl !== undefined && m.notificationUrl !== '') {
    let ok = false;
    try {
      const u = new URL(m.notificationUrl);
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      ok = false;
    }
    if (!ok) throw new Error(`sandbox merchant ${m.mid}: notificationUrl must be an absolute http(s) URL`);
  }
  const r = m.notificationRetry;
  const inRange = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 10;
  if (r !== undefined && !(inRange(r.intervalMinutes) && inRange(r.count))) {
    throw new Error(`sandbox merchant ${m.mid}: notificationRetry needs intervalMinutes and count from 1 to 10`);
  }
}
