import { issueTid } from '../wire/tid.js';

/** A billing charge's TID: MID + `01` (card) + `16` (billing) + KST time + 4 random. */
export function issueBillingTid(mid: string, now: Date, random?: (max: number) => number): string {
  return issueTid(mid, '01', '16', now, random);
}
