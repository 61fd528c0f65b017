import type { ClientContext } from '../context.js';
import { cancelKind, cancelTallyBase } from '../cancel/operation.js';
import { type SettledItem, settleNoticed, tallyRecords } from '../pipeline/index.js';
import { parseAmount } from '../wire/amount.js';
import { noticeKey } from './identity.js';

/** One cancel a cancel notice may report: its once-key, and what tells it apart. */
export interface CancelOccurrence {
  key: string;
  /** Which of the same-looking cancels it is (1 for the first). */
  occurrence: number;
  /** The cancel's own Moid: the notice's CancelMOID, or the one the ledger holds for this occurrence, or ''. */
  cancelMoid: string;
}

/**
 * The cancels a cancel notice may report. A notice carrying CancelMOID, CancelNum or CancelTime
 * names one cancel (its fields are its identity, identity.ts). One carrying none of them (the
 * gateway sends CancelMOID for cards only, lifecycle-facts §3) looks the same for every cancel of
 * that amount on that day: then the shop's own cancels of the TID through nicepay.cancel, which
 * the ledger tallies before each is sent, say how many such cancels there are, and each gets its
 * own once-key, so two
 * same-amount partial cancels reach onCancel twice while a retried notice of either finds them
 * done. Cancels made elsewhere (the merchant admin page) are not in the tally: identical notices
 * of those cannot be told from a retry, and reach onCancel once (docs/lifecycle.md).
 */
export async function cancelOccurrences(
  ctx: ClientContext,
  get: (field: string) => string,
): Promise<CancelOccurrence[]> {
  const { mid } = ctx.config;
  const key = noticeKey(mid, 'cancel', get);
  if (get('CancelMOID') || get('CancelNum') || get('CancelTime'))
    return [{ key, occurrence: 1, cancelMoid: get('CancelMOID') }];
  const amount = parseAmount(get('Amt'));
  const date = get('CancelDate');
  // The shop's cancels of this TID and amount the ledger holds (in flight, done, or being
  // settled; a refused one left nothing), on the notice's day when both name one.
  const cancels = (await tallyRecords(ctx, cancelTallyBase(mid, get('TID')))).filter((r) => {
    const day = r.fields?.CancelDate ?? '';
    return r.amount === amount && (date === '' || day === '' || day === date);
  });
  return Array.from({ length: Math.max(1, cancels.length) }, (_, i) => ({
    key: i === 0 ? key : `${key}#${i + 1}`,
    occurrence: i + 1,
    cancelMoid: cancels[i]?.data.cancelMoid ?? '',
  }));
}

/**
 * What a card's cancel notice settles: it names the cancel's own Moid (CancelMOID), so a cancel
 * the shop sent through nicepay.cancel whose answer was lost (a partial cancel is never sent
 * again) is now known to have taken effect, and its record is kept. A notice without
 * CancelMOID cannot be told from a cancel made elsewhere and settles nothing.
 */
export function settleNotifiedCancel(ctx: ClientContext, get: (field: string) => string): Promise<SettledItem[]> {
  const cancelMoid = get('CancelMOID');
  const amount = parseAmount(get('Amt'));
  if (!cancelMoid || amount === undefined) return Promise.resolve([]);
  const named = (r: { amount: number; data: Readonly<Record<string, string>> }): boolean =>
    r.data.cancelMoid === cancelMoid && r.amount === amount;
  return settleNoticed(ctx, cancelKind(ctx), cancelTallyBase(ctx.config.mid, get('TID')), named);
}
