import { randomInt } from 'node:crypto';
import { kstTimestamp12 } from '../wire/kst.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MAX_ATTEMPTS = 1_000;
const KEEP_PREFIXES = 256;
/** Suffixes issued per prefix (MID + codes + second), shared by every client of this process. */
const issued = new Map<string, Set<string>>();

/**
 * A new TID: MID (10) + method (2) + medium (2) + YYMMDDHHMISS in KST (12) + 4 random
 * characters of [0-9A-Za-z], unique within the process (a suffix already issued in the same
 * second is drawn again). Billing charges use `01` + `16`, standalone cash receipts `04` +
 * `01` (docs/spec/billing-facts.md).
 */
export function issueTid(mid: string, method: string, medium: string, now: Date, random: (max: number) => number = randomInt): string {
  const prefix = mid + method + medium + kstTimestamp12(now);
  let used = issued.get(prefix);
  if (!used) {
    used = new Set();
    issued.set(prefix, used);
    while (issued.size > KEEP_PREFIXES) issued.delete(issued.keys().next().value!);
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let suffix = '';
    for (let i = 0; i < 4; i++) suffix += ALPHABET[random(ALPHABET.length)];
    if (!used.has(suffix)) {
      used.add(suffix);
      return prefix + suffix;
    }
  }
  throw new Error('no free TID suffix left in this second');
}

/** A billing charge's TID: MID + `01` (card) + `16` (billing) + KST time + 4 random. */
export function issueBillingTid(mid: string, now: Date, random?: (max: number) => number): string {
  return issueTid(mid, '01', '16', now, random);
}
