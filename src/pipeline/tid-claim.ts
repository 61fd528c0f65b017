import type { ClientContext } from '../context.js';
import { NicepayServiceError } from '../errors/index.js';
import { storeError, writeOnce } from './ledger.js';

/**
 * How long a claimed TID stays claimed. A TID names its second (on the issuing instance's
 * clock), so a claim guards it for as long as two instances' clocks could disagree, with room.
 */
const TID_CLAIM_KEEP_MS = 60 * 60 * 1000;

/** Draws before giving up (a draw is taken by another instance about once in 14.8 million). */
const MAX_DRAWS = 16;

/**
 * A TID the shop issues itself (key-in, billing charge, cash receipt), claimed in the store
 * before its record is written: `first`, or while another instance holds it, the next `draw`. Each
 * is unique within its process; the claim makes it unique across every instance sharing the
 * store, so no two of them send one TID for two orders (the gateway would refuse the second as a
 * duplicate, and settlement would read the first's payment as the second's). The claim names the
 * record it is for. A store that fails or is full rejects with a NicepayServiceError: nothing
 * was written or sent.
 */
export async function claimTid(
  ctx: ClientContext,
  ledgerKey: string,
  first: string,
  draw: () => string,
): Promise<string> {
  let tid = first;
  for (let i = 1; !(await claim(ctx, `tid:${tid}`, ledgerKey)); i++) {
    if (i === MAX_DRAWS)
      throw new NicepayServiceError(
        'NICEPAY_STORE_UNAVAILABLE',
        `the ledger store holds a claim on every TID drawn (${MAX_DRAWS}); nothing was sent, retry shortly`,
      );
    tid = draw();
  }
  return tid;
}

/** Takes `key` for the record under `ledgerKey` when nobody holds it, kept {@link TID_CLAIM_KEEP_MS}. */
async function claim(ctx: ClientContext, key: string, ledgerKey: string): Promise<boolean> {
  try {
    // A claim guards no money itself (the record it precedes does): a full store may drop it.
    return await writeOnce(ctx, key, JSON.stringify({ claimedBy: ledgerKey }), TID_CLAIM_KEEP_MS);
  } catch (err) {
    throw storeError(err);
  }
}
