import { issueTid } from '../wire/tid.js';

/** Payment-method code of a card TID (gateway-facts.md, "Card key-in"). */
const METHOD_CARD = '01';
/** Medium code of a normal transaction. */
const MEDIUM_NORMAL = '01';

/**
 * Makes a key-in TID: MID (10) + '01' (card) + '01' (normal) + YYMMDDHHMISS in KST (12) +
 * 4 random characters of [0-9A-Za-z] (gateway-interface.md, "TID format"), unique within
 * the process.
 */
export function issueKeyinTid(mid: string, now: Date, random?: (max: number) => number): string {
  return issueTid(mid, METHOD_CARD, MEDIUM_NORMAL, now, random);
}
