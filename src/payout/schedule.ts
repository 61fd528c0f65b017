import { NicepayScheduleError } from '../errors/index.js';
import { fromKst, kstDate8, kstParts, parseKstTimestamp } from '../wire/kst.js';

/*
 * The payout schedule of gateway-interface.md (C. Payout operations and the Limits table),
 * as pure functions of an instant and a KST date. All wall-clock reasoning is in KST, so
 * the rules hold whatever the server's TZ is. Each check throws a NicepayScheduleError
 * whose `rule` is one of {@link ScheduleRule}.
 */

/** The rule a call would break. */
export type ScheduleRule =
  | 'past-date'
  | 'non-business-day'
  | 'request-cutoff'
  | 'cancel-cutoff'
  | 'registration-blackout'
  | 'results-not-ready'
  | 'cross-border-cutoff';

/** 10:30 KST: payout request and cancel cut-off of the payout day. */
export const CUTOFF = { hour: 10, minute: 30 } as const;
/** 16:00 KST: results of the payout day can be queried. */
export const RESULTS_FROM = { hour: 16, minute: 0 } as const;
/** 23:00-01:00 KST: sub-merchant registration and modification are impossible (bank switch time). */
export const BLACKOUT = { fromHour: 23, toHour: 1 } as const;

export { type BusinessDays, weekdaysOnly } from '../business-days.js';
import type { BusinessDays } from '../business-days.js';

/** The instant of hh:mm KST on a YYYYMMDD date. */
export function kstTimeOn(yyyymmdd: string, hour: number, minute: number): Date {
  return fromKst(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)), Number(yyyymmdd.slice(6, 8)), hour, minute);
}

/** True when `yyyymmdd` is a real calendar date of 8 digits. */
export function isDate8(yyyymmdd: string): boolean {
  return typeof yyyymmdd === 'string' && /^\d{8}$/.test(yyyymmdd) && parseKstTimestamp(yyyymmdd) !== undefined;
}

/** Payout date not before today in KST. */
export function checkNotPast(settlmntDt: string, now: Date): void {
  const today = kstDate8(now);
  if (settlmntDt < today) {
    throw new NicepayScheduleError('past-date', `settlmntDt ${settlmntDt} is in the past (today is ${today} KST); a payout date must be today or later`);
  }
}

/** Payout date is a business day. */
export function checkBusinessDay(settlmntDt: string, businessDays: BusinessDays): void {
  if (!businessDays(settlmntDt)) {
    throw new NicepayScheduleError('non-business-day', `settlmntDt ${settlmntDt} is not a business day; payouts run on business days only`);
  }
}

/** Same-day request or cancel only before 10:30 KST; a past date is past its cut-off. */
export function checkCutoff(settlmntDt: string, now: Date, op: 'request' | 'cancel'): void {
  const cutoff = kstTimeOn(settlmntDt, CUTOFF.hour, CUTOFF.minute);
  if (now.getTime() >= cutoff.getTime()) {
    throw new NicepayScheduleError(
      op === 'request' ? 'request-cutoff' : 'cancel-cutoff',
      `a payout ${op} for ${settlmntDt} must reach the gateway before 10:30 KST of that day`,
    );
  }
}

/** Sub-merchant registration or modification outside 23:00-01:00 KST. */
export function checkRegistrationWindow(now: Date): void {
  const { hour } = kstParts(now);
  if (hour >= BLACKOUT.fromHour || hour < BLACKOUT.toHour) {
    throw new NicepayScheduleError('registration-blackout', 'sub-merchants cannot be registered or modified between 23:00 and 01:00 KST (bank system switch); try after 01:00');
  }
}

/** Results of a payout day only from 16:00 KST of that day. */
export function checkResultsReady(settlmntDt: string, now: Date): void {
  const from = kstTimeOn(settlmntDt, RESULTS_FROM.hour, RESULTS_FROM.minute);
  if (now.getTime() < from.getTime()) {
    throw new NicepayScheduleError('results-not-ready', `payout results for ${settlmntDt} are available from 16:00 KST of that day`);
  }
}

/**
 * Cross-border wallet payouts: requested by 23:59 KST of the day before the payout date
 * (gateway-interface.md, Limits), so from 00:00 KST of that day on it is too late.
 */
export function checkCrossBorderCutoff(settlmntDt: string, now: Date): void {
  if (now.getTime() >= kstTimeOn(settlmntDt, 0, 0).getTime()) {
    throw new NicepayScheduleError('cross-border-cutoff', `a cross-border wallet payout for ${settlmntDt} must be requested by 23:59 KST of the day before`);
  }
}

/** All rules of a payout request; `crossBorder` adds the day-before rule of cross-border wallet payouts. */
export function checkPayoutRequest(settlmntDt: string, now: Date, businessDays: BusinessDays, crossBorder = false): void {
  checkNotPast(settlmntDt, now);
  checkBusinessDay(settlmntDt, businessDays);
  if (crossBorder) checkCrossBorderCutoff(settlmntDt, now);
  checkCutoff(settlmntDt, now, 'request');
}

/** All rules of a payout cancel. */
export function checkPayoutCancel(settlmntDt: string, now: Date): void {
  checkCutoff(settlmntDt, now, 'cancel');
}
