import { NicepayConfigError } from '../errors/index.js';
import { type BusinessDays, weekdaysOnly } from '../business-days.js';
import { isObject } from '../util/is-object.js';
import { refuseUnknown } from '../validation/known-keys.js';
import { knownKeys } from '../validation/known-keys.js';

/** Options of the payout client (`createNicepay({ payout })`). */
export interface PayoutOptions {
  /**
   * Check the schedule rules (past date, business day, 10:30 cut-off, 23:00-01:00
   * registration blackout, results from 16:00) before sending, so a call that the gateway
   * would refuse fails fast with a NicepayScheduleError naming the rule. Turn off to let
   * the gateway decide (it checks the same rules; see docs/payout.md).
   * @default true
   */
  scheduleChecks?: boolean;
  /**
   * Says whether a KST date (YYYYMMDD) is a business day. Plug in the Korean bank-holiday
   * calendar here; the library ships none.
   * @default Monday to Friday are business days
   */
  businessDays?: (yyyymmdd: string) => boolean;
}

/** {@link PayoutOptions} with the defaults filled in. */
export interface ResolvedPayoutOptions {
  scheduleChecks: boolean;
  businessDays: BusinessDays;
}

const PAYOUT_OPTION_NAMES = knownKeys<PayoutOptions>({ scheduleChecks: true, businessDays: true });

/** Checks `createNicepay({ payout })` and fills its defaults. */
export function resolvePayout(options: PayoutOptions | undefined): ResolvedPayoutOptions {
  if (options !== undefined && !isObject(options)) throw new NicepayConfigError('payout', 'an object');
  if (options !== undefined) refuseUnknown(options, PAYOUT_OPTION_NAMES, 'payout.');
  const scheduleChecks = options?.scheduleChecks ?? true;
  if (typeof scheduleChecks !== 'boolean') throw new NicepayConfigError('payout.scheduleChecks', 'a boolean');
  const businessDays: unknown = options?.businessDays ?? weekdaysOnly;
  if (typeof businessDays !== 'function')
    throw new NicepayConfigError('payout.businessDays', 'a function (yyyymmdd: string) => boolean');
  return { scheduleChecks, businessDays: businessDays as BusinessDays };
}
