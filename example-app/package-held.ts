/**
 * What the package still holds open, as the back-office pages ask it: a charge attempt, refund
 * or cash receipt whose record nicepay.unsettled() lists is being settled by the package, and
 * the page offers no manual outcome and no "send again" for it meanwhile.
 */
import type { LedgerOperation, UnsettledItem } from '../src/index.js';
import type { ShopContext } from './shop-context.js';

/**
 * The package's open records of `operation` by Moid (the order's or the charge's); undefined
 * when the list cannot be read (logged; the pages then offer nothing for an open record).
 * nicepay.unsettled() lists at most `settle.batch` records.
 */
export async function heldRecords(
  ctx: Pick<ShopContext, 'nicepay' | 'logger'>,
  operation: LedgerOperation,
): Promise<Map<string, UnsettledItem[]> | undefined> {
  try {
    const held = new Map<string, UnsettledItem[]>();
    for (const u of await ctx.nicepay.unsettled())
      if (u.operation === operation) held.set(u.moid, [...(held.get(u.moid) ?? []), u]);
    return held;
  } catch (err) {
    ctx.logger.error({ error: (err as Error).message }, 'example shop: the open payments could not be listed');
    return undefined;
  }
}
