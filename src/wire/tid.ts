import { randomInt } from 'node:crypto';
import { kstTimestamp12 } from './kst.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Retries before giving up on a free suffix (62^4 = 14.8 million per second make this unreachable). */
const MAX_ATTEMPTS = 1_000;

/*
 * Suffixes issued per prefix (MID + method + medium + second), shared by every client of this
 * process so two createNicepay() instances of one merchant cannot issue the same TID either.
 * Only the most recent prefixes are kept: a TID of an older second cannot collide with a new one.
 */
const issued = new Map<string, Set<string>>();
const KEEP_PREFIXES = 256;

/**
 * A new TID in the gateway's one format (gateway-interface.md "TID format",
 * billing-facts.md): MID (10) + payment method code (2) + medium code (2) + YYMMDDHHMISS in
 * KST (12) + 4 random characters of [0-9A-Za-z]. Key-in uses `01` + `01`, billing charges
 * `01` + `16`, standalone cash receipts `04` + `01`. Unique within the process: a suffix
 * already issued in the same second is drawn again (the pipeline claims it in a shared store,
 * which makes it unique across instances).
 */
export function issueTid(
  mid: string,
  method: string,
  medium: string,
  now: Date,
  random: (max: number) => number = randomInt,
): string {
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
