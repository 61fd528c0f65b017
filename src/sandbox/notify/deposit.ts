import { parseKstTimestamp } from '../../wire/kst.js';
import type { SandboxState } from '../types.js';
import { queueNotice } from './deliveries.js';
import { depositNoticeFields } from './notice-fields.js';

/** Options of `sandbox.deposit()`. */
export interface DepositOptions {
  /** Won deposited. @default the transaction's amount (another amount tests the shop's check) */
  amount?: number;
  /** The depositor's name (VbankInputName), sent in EUC-KR. @default the buyer's name */
  depositor?: string;
  /** Fault: the first delivery arrives twice at the same time. */
  duplicate?: boolean;
  /** Fault: the first delivery arrives this many minutes (virtual clock) late; run it with runDueNotices(). */
  lateMinutes?: number;
}

/**
 * The buyer pays a virtual account: the ledger entry (status 'awaiting-deposit') becomes
 * 'approved' with its `deposit`, and a deposit notice goes to the merchant's notificationUrl
 * (none configured: no notice). Resolves once the first delivery was answered (or queued, when
 * late). Throws on a TID that is not an unpaid virtual account, or one past its expiry.
 */
export async function deposit(state: SandboxState, tid: string, options: DepositOptions = {}): Promise<void> {
  const entry = state.ledger.get(tid);
  if (entry?.method !== 'VBANK') throw new Error(`sandbox.deposit: ${tid} is not a virtual account of this sandbox`);
  if (entry.status !== 'awaiting-deposit')
    throw new Error(`sandbox.deposit: virtual account ${tid} is ${entry.status}, not awaiting a deposit`);
  // The bank takes no deposit into an account past its VbankExpDate/VbankExpTime (KST).
  // A VbankExpDate without a time lasts the whole day.
  const { vbankExpDate = '', vbankExpTime } = entry.extra;
  const expires = parseKstTimestamp(`${vbankExpDate}${vbankExpTime || '235959'}`);
  if (expires && state.clock.now().getTime() > expires.getTime())
    throw new Error(
      `sandbox.deposit: virtual account ${tid} expired at ${vbankExpDate} ${vbankExpTime || '235959'} KST: no deposit, no notice`,
    );
  const amount = options.amount ?? entry.amount;
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new Error('sandbox.deposit: amount must be a positive whole number of won');
  const late = options.lateMinutes ?? 0;
  if (!(late >= 0)) throw new Error('sandbox.deposit: lateMinutes must be 0 or more');
  const merchant = state.merchants.get(entry.mid);
  if (!merchant) throw new Error(`sandbox.deposit: merchant ${entry.mid} is gone`);
  const at = state.clock.now();
  const depositor = options.depositor ?? entry.buyerName;
  entry.deposit = { amount, depositor, at };
  state.ledger.update(tid, 'approved', at);
  await queueNotice(state, merchant, entry, 'deposit', depositNoticeFields(entry, merchant, amount, depositor, at), {
    duplicate: options.duplicate === true,
    lateMs: late * 60_000,
  });
}
