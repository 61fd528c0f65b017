/**
 * `express-nicepay/sandbox`: the stateful gateway simulator of interfaces A-D, for
 * development and tests.
 * @module
 */
import { createVirtualClock, type VirtualClock } from './clock.js';
import { createFaultQueue, type FaultQueue } from './faults.js';
import { createLedger, type Ledger } from './ledger.js';
import { type AuthenticateOptions, type AuthReturn, approvalModule, authenticate } from './approval/index.js';
import { keyinModule } from './keyin/index.js';
import { billingModule } from './billing/index.js';
import { receiptModule } from './receipt/index.js';
import { createDataHostModule, dataHostFacade, type SandboxDataHost } from './data-host/index.js';
import { createSandboxServer } from './server.js';
import {
  checkNoticeSettings,
  lifecycleFacade,
  lifecycleModule,
  type DepositOptions,
  type SandboxNotices,
} from './lifecycle.js';
import type { SandboxMerchant, SandboxModule, SandboxState } from './types.js';
import { MID_PATTERN } from '../wire/keyin-fields.js';
import { PUBLISHED_TEST_MIDS, sweepTestCancels, trackTestCancels } from './test-auto-cancel.js';
import { GATEWAY_TIME_TOLERANCE_MS } from './gateway-time.js';

export type { SandboxMerchant } from './types.js';
export { SANDBOX_TEST_CARDS, KEYIN_DECLINES, type SandboxTestCard, type SandboxCardOutcome } from './keyin/index.js';
export { BILLING_CODES, type SandboxBillingKey } from './billing/index.js';
export { RECEIPT_CODES } from './receipt/index.js';
export type { VirtualClock } from './clock.js';
export type {
  SandboxDataHost,
  SandboxBalance,
  SandboxBalanceEntry,
  SandboxCashReceipt,
  SandboxPayout,
  SandboxPayoutStatus,
  SandboxSubMerchant,
} from './data-host/index.js';
export type { Fault, FaultKind, FaultQueue, FaultTarget } from './faults.js';
export type { Ledger, LedgerEntry, LedgerListener, LedgerStatus } from './ledger.js';
export type { AuthenticateOptions, AuthReturn, CashReceiptChoice } from './approval/index.js';
export { APPROVAL_CODES, NET_CANCEL_CODES, AUTH_TOKEN_TTL_MS, NET_CANCEL_WINDOW_MS } from './approval/index.js';
export { GATEWAY_TIME_TOLERANCE_MS } from './gateway-time.js';
export { PUBLISHED_TEST_MIDS, TEST_AUTO_CANCEL_REASON } from './test-auto-cancel.js';
export type { DepositOptions, SandboxNotices } from './lifecycle.js';
export type { LedgerCancel, LedgerDeposit, LedgerNoticeDelivery } from './ledger.js';
export { CANCEL_CODES, CANCEL_PERIOD_MS, STATUS_CODES } from './lifecycle.js';

/** The gateway's published test merchants (gateway-facts.md), used when none are given. */
export const TEST_MERCHANTS: readonly SandboxMerchant[] = [
  {
    mid: 'nicepay00m',
    merchantKey: 'EYzu8jGGMfqaDEp76gSckuvnaHHu+bC4opsSN6lHv3b2lurNYkVXrZ7Z1AoqQnXI3eLuaUFyoRNC6FkrzVjceg==',
  },
  {
    mid: 'nictest04m',
    merchantKey: 'b+zhZ4yOZ7FsH8pm5lhDfHZEb79tIwnjsdA0FBXh86yLc6BJeFVrZFXhAoJ3gEWgrWwN+lJMV0W4hvDdbe4Sjw==',
  },
];

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /** Merchants the sandbox accepts. @default TEST_MERCHANTS */
  merchants?: readonly SandboxMerchant[];
  /** Where the virtual clock starts. @default real time */
  clock?: () => Date;
  /**
   * The default of `testAutoCancel` for merchants that do not set it: false turns the 23:30 KST
   * cancel of the published test MIDs off (a test that moves the clock across 23:30 KST and
   * expects its payments to stand). @default true (for the published test MIDs only)
   */
  testAutoCancel?: boolean;
  /**
   * How far a client's KST timestamp (EdiDate, the data host's trDtm, a key-in TID's time) may
   * stand from the virtual clock, either way. The documents publish no tolerance: ten minutes is
   * the sandbox's choice, still refusing a time written in UTC (nine hours off).
   * @default GATEWAY_TIME_TOLERANCE_MS (600000, ten minutes)
   */
  ediDateToleranceMs?: number;
  /**
   * Whether a refused approval that the merchant provably sent (valid SignData: EdiDate off,
   * duplicate Moid, amount differs, issuer refusal) burns the AuthToken, so the retry is I003.
   * The facts name I003 but not which refusals lead to it: this is the sandbox's choice.
   * @default true
   */
  burnTokenOnRefusal?: boolean;
  /**
   * Whether an "already processed" refusal of an approval (1682, I003) names the Moid of the
   * transaction. The documents do not say it does, so by default it names none: a client must
   * not take the order of a processed TID from it (nor from the buyer's form).
   * @default false
   */
  processedNamesOrder?: boolean;
}

/** A running (or ready to run) gateway simulator. */
export interface Sandbox {
  /** Starts the HTTP server; use the returned url as both baseUrl and dataUrl. */
  listen(port?: number, host?: string): Promise<{ url: string }>;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
  /** Base URL once listening. */
  readonly url: string;
  readonly clock: VirtualClock;
  readonly ledger: Ledger;
  readonly faults: FaultQueue;
  /** Data host (interfaces C and D) controls: deposits, the bank's account-holder lookup, closed accounts, holidays, and views of payouts and cash receipts. */
  readonly dataHost: SandboxDataHost;
  /**
   * Interface A without a browser: authenticates like the payment window's 결제하기 (or
   * 취소 with `cancel: true`) and returns the auth return the browser would POST to the
   * merchant's ReturnURL. Needs `listen()` first (NextAppURL points at the sandbox).
   */
  authenticate(opts: AuthenticateOptions): Promise<AuthReturn>;
  /**
   * The buyer pays a virtual account (TID awaiting deposit): the ledger entry becomes
   * 'approved' and a deposit notice goes to the merchant's notificationUrl. Resolves once the
   * first delivery was answered. See docs/sandbox.md.
   */
  deposit(tid: string, options?: DepositOptions): Promise<void>;
  /** Payment notices: run the deliveries due on the virtual clock (retries, late ones). */
  readonly notices: SandboxNotices;
}

/** Creates the stateful gateway simulator of interfaces A-D. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const tolerance = options.ediDateToleranceMs;
  if (tolerance !== undefined && !(Number.isSafeInteger(tolerance) && tolerance >= 0)) {
    throw new TypeError('createSandbox: option ediDateToleranceMs must be a whole number of milliseconds >= 0');
  }
  for (const option of ['burnTokenOnRefusal', 'processedNamesOrder'] as const) {
    if (options[option] !== undefined && typeof options[option] !== 'boolean')
      throw new TypeError(`createSandbox: option ${option} must be a boolean`);
  }
  const merchants = new Map<string, Required<SandboxMerchant>>();
  for (const m of options.merchants ?? TEST_MERCHANTS) {
    // Every endpoint refuses a mis-shaped MID (W002): such a merchant could never be used.
    if (!MID_PATTERN.test(m.mid))
      throw new Error(`sandbox merchant ${m.mid}: mid must be 10 letters or digits ending in a lower-case m`);
    merchants.set(m.mid, {
      keyinRequiresAuthNum: false,
      keyinRequiresPassword: false,
      usrId: `${m.mid}admin`,
      notificationUrl: '',
      notifyCancels: false,
      notificationRetry: { intervalMinutes: 1, count: 3 },
      partialCancel: true,
      testAutoCancel: (options.testAutoCancel ?? true) && PUBLISHED_TEST_MIDS.has(m.mid),
      ...m,
    });
    checkNoticeSettings(m);
  }
  let baseUrl = '';
  const clock = createVirtualClock(options.clock);
  const state: SandboxState = {
    merchants,
    // Moving the virtual clock runs what it made due, as the passing of real time would.
    clock: {
      now: () => clock.now(),
      set(date) {
        clock.set(date);
        state.tick();
      },
      advance(ms) {
        clock.advance(ms);
        state.tick();
      },
      freeze(frozen) {
        clock.freeze(frozen);
      },
    },
    ledger: createLedger(),
    faults: createFaultQueue(),
    url: () => baseUrl,
    modules: new Map(),
    tick: () => sweepTestCancels(state),
    rules: {
      ediDateToleranceMs: options.ediDateToleranceMs ?? GATEWAY_TIME_TOLERANCE_MS,
      burnTokenOnRefusal: options.burnTokenOnRefusal ?? true,
      processedNamesOrder: options.processedNamesOrder ?? false,
    },
  };
  trackTestCancels(state);
  const modules: SandboxModule[] = [];
  modules.push(approvalModule);
  modules.push(createDataHostModule(state));
  modules.push(keyinModule);
  modules.push(lifecycleModule);
  modules.push(billingModule, receiptModule);
  const server = createSandboxServer(modules, state);

  return {
    async listen(port = 0, host = '127.0.0.1') {
      baseUrl = await server.listen(port, host);
      return { url: baseUrl };
    },
    close: () => server.close(),
    get url() {
      if (!baseUrl) throw new Error('sandbox is not listening yet: await sandbox.listen() first');
      return baseUrl;
    },
    clock: state.clock,
    ledger: state.ledger,
    faults: state.faults,
    dataHost: dataHostFacade(state),
    ...lifecycleFacade(state),
    authenticate(opts) {
      if (!baseUrl) return Promise.reject(new Error('sandbox is not listening yet: await sandbox.listen() first'));
      return authenticate(state, opts);
    },
  };
}
