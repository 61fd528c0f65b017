import { fromKst, kstDate8, kstParts, parseKstTimestamp } from '../../wire/kst.js';
import type { DataHostState } from './state.js';

/*
 * The gateway's side of the payout schedule (gateway-interface.md, C and Limits), judged on
 * the sandbox's virtual clock in KST. Kept apart from the client's pre-checks on purpose:
 * the sandbox must refuse what a client with scheduleChecks: false sends.
 */

/** The instant of hh:mm KST on YYYYMMDD. */
export function at(yyyymmdd: string, hour: number, minute = 0): Date {
  return fromKst(
    Number(yyyymmdd.slice(0, 4)),
    Number(yyyymmdd.slice(4, 6)),
    Number(yyyymmdd.slice(6, 8)),
    hour,
    minute,
  );
}

export const today = (now: Date): string => kstDate8(now);

/** Mon-Fri in KST, minus the sandbox's holidays. */
export function isBusinessDay(ds: DataHostState, yyyymmdd: string): boolean {
  const d = parseKstTimestamp(yyyymmdd);
  if (!d) return false;
  const wd = kstParts(d).weekday;
  return wd >= 1 && wd <= 5 && !ds.holidays.has(yyyymmdd);
}

/** Request and cancel cut-off: 10:30 KST of the payout day. */
export const pastCutoff = (settlmntDt: string, now: Date): boolean => now.getTime() >= at(settlmntDt, 10, 30).getTime();
/** Cross-border wallet payout cut-off: 23:59 KST of the day before, i.e. refused from 00:00 of the payout day. */
export const pastCrossBorderCutoff = (settlmntDt: string, now: Date): boolean =>
  now.getTime() >= at(settlmntDt, 0).getTime();
/** Execution: from 11:00 KST of the payout day. */
export const executionDue = (settlmntDt: string, now: Date): boolean => now.getTime() >= at(settlmntDt, 11).getTime();
/** Results: from 16:00 KST of the payout day. */
export const resultsReady = (settlmntDt: string, now: Date): boolean => now.getTime() >= at(settlmntDt, 16).getTime();
/** Registration blackout 23:00-01:00 KST. */
export function inBlackout(now: Date): boolean {
  const { hour } = kstParts(now);
  return hour >= 23 || hour < 1;
}
