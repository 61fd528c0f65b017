import { kstDate8 } from '../../wire/kst.js';
import type { SandboxModule, SandboxState } from '../types.js';
import { executePayouts } from './execute.js';
import { feedFromLedger } from './ledger-feed.js';
import { omApi } from './om-api.js';
import { reconApi } from './recon-api.js';
import { executionDue } from './schedule.js';
import {
  accountKey,
  balanceOf,
  dataHostState,
  MODULE_NAME,
  subKey,
  type SandboxBalance,
  type SandboxCashReceipt,
  type SandboxPayout,
  type SandboxSubMerchant,
} from './state.js';

export type {
  SandboxBalance,
  SandboxBalanceEntry,
  SandboxCashReceipt,
  SandboxPayout,
  SandboxPayoutStatus,
  SandboxSubMerchant,
} from './state.js';

/**
 * The data host (interfaces C and D): POST /om/api and POST /recon/api. Registers the
 * ledger listener that turns approvals into settlement money and cash receipts.
 */
export function createDataHostModule(state: SandboxState): SandboxModule {
  dataHostState(state);
  feedFromLedger(state);
  return { name: MODULE_NAME, routes: { 'POST /om/api': omApi, 'POST /recon/api': reconApi } };
}

/** Test controls of the sandbox's data host (`sandbox.dataHost`). */
export interface SandboxDataHost {
  /** A cash deposit into the merchant's payout balance (lastcl 01), dated today in KST. */
  deposit(mid: string, amount: number): void;
  /**
   * Registers the holder of an account in the bank's lookup. Registration checks accntNm
   * against it (1003 on a mismatch); accounts not in the lookup are accepted as given.
   */
  addAccountHolder(bankCd: string, accntNo: string, name: string): void;
  /** Closes an account: registering it gives 1003; payouts to it fail at execution. */
  closeAccount(bankCd: string, accntNo: string): void;
  /** Makes a weekday a non-business day (payout requests for it give 1001). */
  addHoliday(yyyymmdd: string): void;
  /**
   * Marks a sub-merchant as paid through a cross-border wallet service: its payout requests
   * must arrive by 23:59 KST of the day before the payout date (spec, Limits), else 1112.
   */
  markCrossBorder(mid: string, subId: string): void;
  /** The merchant's balance, after running the payouts due on the virtual clock. */
  balance(mid: string): SandboxBalance;
  /** Payout requests (copies), after running the payouts due. */
  payouts(mid?: string): SandboxPayout[];
  /** Registered sub-merchants (copies). */
  subMerchants(mid?: string): SandboxSubMerchant[];
  /** Cash receipts recorded from approvals (copies). */
  cashReceipts(mid?: string): SandboxCashReceipt[];
}

/** The facade over a sandbox's data host state. */
export function dataHostFacade(state: SandboxState): SandboxDataHost {
  const ds = () => dataHostState(state);
  const run = () => executePayouts(ds(), state.clock.now(), executionDue);
  const byMid = <T extends { mid: string }>(rows: T[], mid?: string): T[] =>
    rows.filter((r) => mid === undefined || r.mid === mid).map((r) => ({ ...r }));
  return {
    deposit(mid, amount) {
      if (!Number.isSafeInteger(amount) || amount <= 0)
        throw new Error('sandbox.dataHost.deposit: amount must be a positive whole number of won');
      run();
      const bal = balanceOf(ds(), mid);
      bal.remainAmt += amount;
      bal.last = { lastcl: '01', amount, date: kstDate8(state.clock.now()) };
    },
    addAccountHolder(bankCd, accntNo, name) {
      ds().holders.set(accountKey(bankCd, accntNo), name);
    },
    closeAccount(bankCd, accntNo) {
      ds().closedAccounts.add(accountKey(bankCd, accntNo));
    },
    addHoliday(yyyymmdd) {
      ds().holidays.add(yyyymmdd);
    },
    markCrossBorder(mid, subId) {
      ds().crossBorder.add(subKey(mid, subId));
    },
    balance(mid) {
      run();
      const b = balanceOf(ds(), mid);
      return { remainAmt: b.remainAmt, last: b.last ? { ...b.last } : undefined };
    },
    payouts(mid) {
      run();
      return byMid(ds().payouts, mid);
    },
    subMerchants: (mid) => byMid([...ds().subMerchants.values()], mid),
    cashReceipts: (mid) => byMid(ds().receipts, mid),
  };
}
