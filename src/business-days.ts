import { kstParts, parseKstTimestamp } from './wire/kst.js';

/** Business-day predicate over KST dates (YYYYMMDD): the payout schedule's calendar. */
export type BusinessDays = (yyyymmdd: string) => boolean;

/** Monday to Friday (KST calendar); no holidays. The default of `payout.businessDays`. */
export const weekdaysOnly: BusinessDays = (yyyymmdd) => {
  const d = parseKstTimestamp(yyyymmdd);
  if (!d) return false;
  const wd = kstParts(d).weekday;
  return wd >= 1 && wd <= 5;
};
