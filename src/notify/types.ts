import type { HookContext } from '../pipeline/hook-runner.js';
import { knownKeys } from '../validation/known-keys.js';

/** A virtual account was paid (ResultCode 4110, PayMethod VBANK): what the shop's onDeposit receives. */
export interface DepositNotice {
  tid: string;
  /** The order number (the notice's upper-case `MOID`). */
  moid: string;
  /** Won deposited (Amt), already checked equal to the shop's expected amount. */
  amount: number;
  /** When the buyer deposited (AuthDate, KST), when the notice says. */
  depositedAt: Date | undefined;
  /** The account number paid into (VbankNum). */
  accountNumber: string;
  /** The bank's name (VbankName, or FnName). */
  bankName: string;
  /** The bank's code (FnCd). */
  bankCode: string;
  /** Who deposited (VbankInputName), decoded from EUC-KR. */
  depositorName: string;
  /** Every field of the notice, verbatim, except an undocumented `MerchantKey` (dropped). */
  raw: Readonly<Record<string, string>>;
}

/** A cancellation notice (StateCd 1 before capture, 2 after): what onCancel receives. */
export interface CancelNotice {
  tid: string;
  moid: string;
  /** Won the notice reports (Amt), at most the shop's expected amount. */
  amount: number;
  payMethod: string;
  /** '1' cancelled before capture, '2' after. */
  stateCd: '1' | '2';
  /** CancelDate as sent (KST). */
  cancelDate: string;
  /**
   * The cancel's own order number: CancelMOID as sent (the gateway sends it for card cancels),
   * or, for a notice without one, the Moid of the shop's own cancel (nicepay.cancel) this notice
   * was matched to, or ''. It tells two cancels of the same amount on the same day apart.
   */
  cancelMoid: string;
  /**
   * Which of several same-looking cancels of this TID and amount this is (1 for the first): a
   * notice that carries nothing to tell them apart is matched to the shop's own cancels in the
   * order the ledger recorded them (docs/lifecycle.md, "Partial cancels").
   */
  occurrence: number;
  raw: Readonly<Record<string, string>>;
}

/** What expectedAmount may answer: the order's amount, or the amount and the TID the shop recorded. */
export type ExpectedOrder = number | { amount: number; tid?: string } | undefined | null;

/** Options of {@link Nicepay.notifications}. */
export interface NotificationsOptions {
  /**
   * The shop's order for a notice's MOID: its amount (the truth a notice must match), or
   * `{ amount, tid }` to check the TID too (the TID `req.checkout` gave when the account was
   * issued). Nothing for an unknown order: the notice is refused.
   */
  expectedAmount: (moid: string) => ExpectedOrder | Promise<ExpectedOrder>;
  /**
   * Records the deposit (marks the order paid). Runs through the hook runner (docs/hooks.md):
   * never twice at once for one TID, however long it runs, even when the gateway retries or
   * two instances receive the same notice; not again once it resolved. `OK` is answered only
   * after it resolved; `FAIL` when it threw (the gateway retries and it runs again) or while it
   * is still running (the retry finds it done, or still running). At-least-once: make it
   * idempotent by TID.
   */
  onDeposit: (notice: DepositNotice, context: HookContext) => void | Promise<void>;
  /**
   * Cancellation notices (StateCd 1/2), each cancel once (its identity includes CancelMOID),
   * run like onDeposit; without it they are acknowledged and logged only.
   */
  onCancel?: (notice: CancelNotice, context: HookContext) => void | Promise<void>;
  /**
   * Addresses notices may come from. @default the gateway's: 121.133.126.10, 121.133.126.11,
   * 211.33.136.39 (a sandbox shop passes ['127.0.0.1'])
   */
  allowedIps?: readonly string[];
  /**
   * Read the source address from X-Forwarded-For instead of the socket: `true` trusts one proxy
   * of the shop (the last address it appended), a number that many. @default false (the socket)
   */
  trustProxy?: boolean | number;
  /** Largest notice body read, in bytes. @default 16384 */
  limit?: number;
  /**
   * When a hook's `signal` aborts, asking it to give up. The hook is not abandoned: a notice is
   * answered once the hook settles, or `FAIL` if it is still running a second hookTimeoutMs
   * later; it runs on holding the notice's lock (renewed while it runs), and its own promise
   * decides: resolved, a retry is answered OK without running it again; rejected, a retry runs
   * it again. A retry arriving while it runs waits up to hookTimeoutMs, then gets `FAIL`.
   * @default 10000
   */
  hookTimeoutMs?: number;
}

/** Every option of {@link NotificationsOptions}; another (`onDepsit`, say) is refused at creation. */
export const NOTIFICATIONS_OPTION_NAMES = knownKeys<NotificationsOptions>({
  expectedAmount: true,
  onDeposit: true,
  onCancel: true,
  allowedIps: true,
  trustProxy: true,
  limit: true,
  hookTimeoutMs: true,
});

/** What the notifications client answers one notice with. */
export interface NoticeAnswer {
  /** HTTP status: 200 for OK; 4xx for a refused notice; 500 / 503 when the shop failed. */
  status: number;
  /** Exactly `OK` when handled; `FAIL` otherwise (the gateway retries anything but OK). */
  body: 'OK' | 'FAIL';
  /**
   * What happened, for tests and logs: 'deposit', 'cancel', 'ignored', or the refusal;
   * 'in-progress' (409) while the notice's hook is still running, 'shutting-down' (503) after
   * close().
   */
  outcome:
    | 'deposit'
    | 'deposit-repeat'
    | 'cancel'
    | 'cancel-repeat'
    | 'ignored'
    | 'forbidden-source'
    | 'malformed'
    | 'unknown-order'
    | 'mismatch'
    | 'hook-failed'
    | 'store-unavailable'
    | 'in-progress'
    | 'shutting-down';
}
