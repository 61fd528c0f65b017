import type { ClientContext } from '../context.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import {
  type AnswerTable,
  type LedgerRecord,
  type OperationCall,
  type OperationKind,
  TALLY_KEEP_MS,
  tallyRecords,
} from '../pipeline/index.js';
import { parseAmount } from '../wire/amount.js';
import {
  CANCEL_DONE_CODES,
  CANCEL_RETRY_CODES,
  REFUND_PENDING_CODE,
  cancelRefusalReason,
} from '../wire/cancel-codes.js';
import { parseKstTimestamp } from '../wire/kst.js';
import { CANCEL_PATH } from '../wire/lifecycle-fields.js';
import { frozenFields } from '../wire/payment-mapper.js';
import { ownField } from '../wire/response-body.js';
import { cancelResponseSignature } from '../wire/signatures.js';
import { buildCancelForm, type NormalizedCancel } from './request.js';
import type { CancelResult } from './types.js';
import { EUC_KR_FORM } from '../wire/content-type.js';

/** The tally of a TID's cancels (src/pipeline/tally.ts). */
export function cancelTallyBase(mid: string, tid: string): string {
  return `cancels:${mid}:${tid}`;
}

/**
 * How long a cancel's closed record answers repeats of its (TID, amount, key): as long as the
 * TID's tally names it (35 days), so a late repeat is never sent again (a partial one would
 * refund twice) and settlement and notices read every cancel the tally names.
 */
export const CANCEL_RESULT_TTL_MS = TALLY_KEEP_MS;

/**
 * Why settlement does not send a partial cancel again: the gateway refuses a repeat as a
 * duplicate (2060) only for a moment after the first (lifecycle-facts §2 publishes no window),
 * and the status inquiry does not show partial cancels, so a repeat sent later may refund twice.
 * The gateway's cancel notice naming it (CancelMOID, cards) settles it instead.
 */
export const PARTIAL_CANCEL_UNSAFE =
  "a partial cancel whose outcome is unknown is not sent again (the gateway may refund it twice, and the status inquiry does not show partial cancels): the gateway's cancel notice naming its Moid settles it; without one (notices off, or a method whose notice does not name the cancel) the merchant admin shows whether it happened";

/**
 * The cancel kind of the ledger (lifecycle-facts §2). A cancel cannot be reversed: a full cancel
 * whose outcome is unknown is completed by sending it again with the same Moid of its own, which
 * the gateway does, or refuses as done already (already cancelled). A partial cancel is not sent
 * again ({@link PARTIAL_CANCEL_UNSAFE}): it waits for the shop, needing attention.
 */
export function cancelKind(ctx: ClientContext): OperationKind<CancelResult> {
  return {
    op: 'cancel',
    what: 'cancel',
    keepMs: CANCEL_RESULT_TTL_MS,
    result: cancelResult,
    inquire: () => Promise.reject(new Error('a cancel is settled by sending it again')),
    // The TID's cancels, which tell apart cancel notices that carry nothing else to tell them by.
    tally: (r) => cancelTallyBase(r.mid, r.tid),
    // A refund account is needed to send the refund again, not once it is done or refused.
    openOnlyData: REFUND_DATA,
    resend: (r) => {
      const n = fromRecord(r);
      if (n.partial) return { unsafe: PARTIAL_CANCEL_UNSAFE };
      return {
        request: cancelRequest(ctx, n),
        table: cancelTable(ctx.config, n),
        doneAlready: async (code) =>
          cancelRefusalReason(code) === 'already-cancelled' && !(await anotherFullCancelDone(ctx, r)),
      };
    },
  };
}

/**
 * True when another full cancel of the TID explains the gateway's "already cancelled" to this
 * one sent again: one recorded done, or one still open that was made before this one (by when
 * it was written, then by cancel Moid). The gateway cancels a TID in full once, so of the full
 * cancels whose outcome was lost exactly the earliest is kept and the others never happened,
 * whichever instance settles them and in whatever order.
 */
async function anotherFullCancelDone(ctx: ClientContext, r: LedgerRecord): Promise<boolean> {
  const cancels = await tallyRecords(ctx, cancelTallyBase(r.mid, r.tid));
  const mine = r.data.cancelMoid ?? '';
  const before = (c: LedgerRecord): boolean => c.at < r.at || (c.at === r.at && (c.data.cancelMoid ?? '') < mine);
  return cancels.some((c) => {
    if (c.data.partial === '1' || (c.data.cancelMoid ?? '') === mine) return false;
    if (c.state === 'recorded') return true;
    return (c.state === 'sending' || c.state === 'unknown' || c.state === 'committed') && before(c);
  });
}

/** The caller's result of a cancel record: cancelled or refund pending, or (not kept) refused. */
function cancelResult(r: LedgerRecord, duplicate: boolean): CancelResult {
  const raw = frozenFields(r.fields ?? {});
  const code = r.resultCode ?? '';
  const message = r.reason ?? ownField(raw, 'ResultMsg') ?? '';
  const cancelMoid = r.data.cancelMoid ?? '';
  if (r.state === 'declined')
    return {
      status: 'refused',
      tid: r.tid,
      moid: r.moid,
      cancelMoid,
      code,
      message,
      reason: cancelRefusalReason(code),
      duplicate: false,
      raw,
    };
  const remainText = ownField(raw, 'RemainAmt');
  const date = ownField(raw, 'CancelDate') ?? '';
  const time = ownField(raw, 'CancelTime') ?? '';
  const common = {
    tid: r.tid,
    moid: r.moid,
    cancelMoid,
    cancelledAmount: r.amount,
    remainingAmount: remainText ? parseAmount(remainText) : undefined,
    cancelledAt: /^\d{8}$/.test(date) && /^\d{6}$/.test(time) ? parseKstTimestamp(date + time) : undefined,
    cancelNum: ownField(raw, 'CancelNum') ?? '',
    code,
    message: ownField(raw, 'ResultMsg') ?? '',
    duplicate,
    raw,
  };
  return code === REFUND_PENDING_CODE ? { status: 'refund-pending', ...common } : { status: 'cancelled', ...common };
}

/**
 * A cancel's answer table: 2001 / 2211 (and 2225, a refund accepted) believed only with a
 * Signature = sha256(TID + MID + CancelAmt + key) over the answer's own strings, for this TID,
 * MID and amount (the Signature covers neither ResultCode nor RemainAmt, checked on their own).
 */
export function cancelTable(
  config: { mid: string; merchantKey: string },
  n: Pick<NormalizedCancel, 'tid' | 'amount'>,
): AnswerTable {
  return {
    charset: 'utf-8',
    ediType: 'JSON',
    success: new Set([...CANCEL_DONE_CODES, REFUND_PENDING_CODE]),
    retry: CANCEL_RETRY_CODES,
    signature: (f) =>
      cancelResponseSignature(
        ownField(f, 'TID') ?? '',
        ownField(f, 'MID') ?? '',
        ownField(f, 'CancelAmt') ?? '',
        config.merchantKey,
      ),
    mustEcho: { TID: n.tid, MID: config.mid },
    amount: { field: 'CancelAmt', value: n.amount },
    check: (f) => {
      const remain = ownField(f, 'RemainAmt');
      return remain && parseAmount(remain) === undefined ? 'has an unreadable RemainAmt' : undefined;
    },
  };
}

function cancelRequest(
  ctx: ClientContext,
  n: NormalizedCancel,
): { url: URL; request(): { body: Buffer; contentType: string } } {
  return {
    url: gatewayEndpoint(ctx.config.baseUrl, CANCEL_PATH),
    request: () => ({ body: buildCancelForm(ctx.config, n), contentType: EUC_KR_FORM }),
  };
}

/** The record's refund account, kept only while the cancel is open (see toData). */
const REFUND_DATA = ['refundNumber', 'refundBankCode', 'refundHolder'] as const;

/**
 * The record's request fields, kept so settlement can send the same cancel again: its reason,
 * kind and key, and the refund account of a paid virtual account's refund (the shop's own data
 * about its buyer, needed to complete the refund; never logged, and dropped once it is closed).
 */
function toData(n: NormalizedCancel): Record<string, string> {
  return {
    reason: n.reason,
    partial: n.partial ? '1' : '0',
    key: n.key,
    cancelMoid: n.cancelMoid,
    ...(n.mallReserved ? { mallReserved: n.mallReserved } : {}),
    ...(n.refund
      ? { refundNumber: n.refund.number, refundBankCode: n.refund.bankCode, refundHolder: n.refund.holder }
      : {}),
  };
}

function fromRecord(r: LedgerRecord): NormalizedCancel {
  const d = r.data;
  return {
    tid: r.tid,
    moid: r.moid,
    amount: r.amount,
    reason: d.reason ?? '',
    partial: d.partial === '1',
    key: d.key ?? '',
    cancelMoid: d.cancelMoid ?? '',
    refund: d.refundNumber
      ? { number: d.refundNumber, bankCode: d.refundBankCode ?? '', holder: d.refundHolder ?? '' }
      : undefined,
    remainingAmount: undefined,
    mallReserved: d.mallReserved,
  };
}

/** One cancel, as the ledger runs it: once per (TID, amount, key); a refusal keeps nothing. */
export function cancelCall(
  ctx: ClientContext,
  kind: OperationKind<CancelResult>,
  n: NormalizedCancel,
): OperationCall<CancelResult> {
  const { config } = ctx;
  return {
    kind,
    key: cancelStoreKey(config.mid, n),
    // The key names the whole cancel: every repeat of it is the same request.
    start: { tid: n.tid, moid: n.moid, amount: n.amount, binding: '', data: toData(n) },
    send: { ...cancelRequest(ctx, n), ids: { tid: n.tid, moid: n.moid }, table: cancelTable(ctx.config, n) },
    refusal: 'forgotten',
  };
}

/**
 * The ledger key of one (TID, amount, idempotency key): `cancel:${mid}:${tid}:${amount}:${key}`
 * with '%' and ':' in the TID and the key percent-encoded, so that no two different cancels share
 * a key (raw, tid "T:300" with amount 5 and key "k" ran together with T, 300 and "5:k").
 */
export function cancelStoreKey(mid: string, n: Pick<NormalizedCancel, 'tid' | 'amount' | 'key'>): string {
  return `cancel:${mid}:${escapeColon(n.tid)}:${n.amount}:${escapeColon(n.key)}`;
}

/** '%' and ':' percent-encoded, nothing else (any string, lone surrogates included, maps one to one). */
export const escapeColon = (text: string): string => text.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));
