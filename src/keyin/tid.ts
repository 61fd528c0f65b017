import { randomInt } from 'node:crypto';
import { kstTimestamp12 } from '../wire/kst.js';

/** Payment-method code of a card TID (gateway-facts.md, "Card key-in"). */
const METHOD_CARD = '01';
/** Medium code of a normal transaction. */
const MEDIUM_NORMAL = '01';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Retries before giving up on a free suffix (62^4 = 14.8 million per second make this unreachable). */
const MAX_ATTEMPTS = 1_000;

/*
 * Suffixes issued per MID and second, shared by every client of this process so two
 * createNicepay() instances of one merchant cannot issue the same TID either. Only the most
 * recent (MID, second) pairs are kept: a TID of an older second cannot collide with a new one.
 */
const issued = new Map<string, Set<string>>();
const KEEP_PREFIXES = 256;

/**
 * Makes a key-in TID: MID (10) + '01' (card) + '01' (normal) + YYMMDDHHMISS in KST (12) +
 * 4 random characters of [0-9A-Za-z] (gateway-interface.md, "TID format"). Unique within
 * the process: a suffix already issued in the same second is drawn again.
 */
export function issueKeyinTid(mid: string, now: Date, random: (max: number) => number = randomInt): string {
  const prefix = mid + METHOD_CARD + MEDIUM_NORMAL + kstTimestamp12(now);
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
  throw new Error('no free key-in TID suffix left in this second');
}
