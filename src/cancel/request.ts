import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '../config.js';
import { NicepayRequestError } from '../errors/index.js';
import { isValidAmount } from '../wire/amount.js';
import { encodeForm } from '../wire/form-codec.js';
import { checkFields } from '../wire/field-sizes.js';
import { WireFormatError } from '../wire/charset.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { CANCEL_REQUEST_FIELDS } from '../wire/lifecycle-fields.js';
import { cancelSignData } from '../wire/signatures.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import { CANCEL_INPUT_KEYS, type CancelInput, REFUND_ACCOUNT_KEYS } from './types.js';

/** A validated cancel, every option filled. */
export interface NormalizedCancel {
  tid: string;
  moid: string;
  amount: number;
  reason: string;
  partial: boolean;
  refund: { number: string; bankCode: string; holder: string } | undefined;
  key: string;
  /** This cancel's own order number, sent as Moid: see {@link cancelMoidOf}. */
  cancelMoid: string;
  remainingAmount: number | undefined;
  mallReserved: string | undefined;
}

const bad = (
  field: string,
  message: string,
  code: 'NICEPAY_FIELD_INVALID' | 'NICEPAY_CANCEL_EXCEEDS_REMAINING' = 'NICEPAY_FIELD_INVALID',
): NicepayRequestError => new NicepayRequestError(code, `cancel: ${message}; nothing was sent`, field);

const str = (v: unknown, field: string): string => {
  if (typeof v !== 'string' || v.trim() === '') throw bad(field, `${field} is required (a non-empty string)`);
  return v.trim();
};

/** An identifier taken exactly as given: one with surrounding spaces is refused, not trimmed. */
const exact = (v: unknown, field: string): string => {
  const text = str(v, field);
  if (text !== v) throw bad(field, `${field} has surrounding whitespace`);
  return text;
};

/** Checks a cancel's input once; the error names the option, never its value. */
export function validateCancel(input: CancelInput): NormalizedCancel {
  if (typeof input !== 'object' || input === null) throw bad('input', 'input must be an object');
  refuseUnknownInput(input, CANCEL_INPUT_KEYS, 'cancel()');
  const tid = exact(input.tid, 'tid');
  const moid = exact(input.moid, 'moid');
  if (!isValidAmount(input.amount))
    throw bad('amount', 'amount must be a whole number of won from 1 to 999,999,999,999');
  const reason = str(input.reason, 'reason');
  if (input.partial !== undefined && typeof input.partial !== 'boolean')
    throw bad('partial', 'partial must be true or false');
  const partial = input.partial === true;
  const r = input.refundAccount;
  let refund: NormalizedCancel['refund'];
  if (r !== undefined) {
    if (typeof r !== 'object' || r === null)
      throw bad('refundAccount', 'refundAccount must be { number, bankCode, holder }');
    refuseUnknownInput(r, REFUND_ACCOUNT_KEYS, 'cancel()', 'refundAccount.');
    refund = {
      number: str(r.number, 'refundAccount.number').replace(/[-\s]/g, ''),
      bankCode: str(r.bankCode, 'refundAccount.bankCode'),
      holder: str(r.holder, 'refundAccount.holder'),
    };
  }
  const key = input.idempotencyKey ?? '';
  if (typeof key !== 'string' || key.length > 200)
    throw bad('idempotencyKey', 'idempotencyKey must be a string of at most 200 characters');
  const remaining = input.remainingAmount;
  if (remaining !== undefined) {
    if (typeof remaining !== 'number' || !Number.isSafeInteger(remaining) || remaining < 0)
      throw bad('remainingAmount', 'remainingAmount must be a whole number of won, 0 or more');
    // The shop knows the balance: a cancel the gateway must refuse (2032) is not sent at all.
    if (input.amount > remaining)
      throw bad(
        'amount',
        `amount ${input.amount} is more than the remaining ${remaining} won`,
        'NICEPAY_CANCEL_EXCEEDS_REMAINING',
      );
    if (!partial && input.amount !== remaining)
      throw bad(
        'amount',
        `a full cancel must cancel the whole remaining ${remaining} won (or pass partial: true)`,
        'NICEPAY_CANCEL_EXCEEDS_REMAINING',
      );
  }
  if (input.mallReserved !== undefined && typeof input.mallReserved !== 'string')
    throw bad('mallReserved', 'mallReserved must be a string');
  return {
    tid,
    moid,
    amount: input.amount,
    reason,
    partial,
    refund,
    key,
    cancelMoid: cancelMoidOf(tid, input.amount, key),
    remainingAmount: remaining,
    mallReserved: input.mallReserved || undefined,
  };
}

/**
 * A cancel's own Moid (lifecycle-facts §2: the gateway uses a cancel's Moid against duplicate
 * partial cancels, and its cancel notices carry it as CancelMOID). Derived from what makes a
 * cancel this cancel (TID, amount, idempotency key), so a retry of one cancel sends the same
 * Moid (the gateway refuses it as a repeat) while two cancels of the same amount under two keys
 * send two (both go through, and their notices tell them apart). `C` and 40 hex digits: 41
 * bytes, within the field's 64, whatever the key holds.
 */
export function cancelMoidOf(tid: string, amount: number, key: string): string {
  return `C${createHash('sha256').update(`${tid}\n${amount}\n${key}`, 'utf8').digest('hex').slice(0, 40)}`;
}

/** Maps a wire field back to the option the shop wrote, for error messages. */
const OPTION_OF: Readonly<Record<string, string>> = {
  TID: 'tid',
  Moid: 'moid',
  CancelAmt: 'amount',
  CancelMsg: 'reason',
  RefundAcctNo: 'refundAccount.number',
  RefundBankCd: 'refundAccount.bankCode',
  RefundAcctNm: 'refundAccount.holder',
  MallReserved: 'mallReserved',
};

/**
 * The signed cancel form (lifecycle-facts §2): SignData = sha256(MID + CancelAmt + EdiDate + key),
 * EdiDate in KST. The whole form is EUC-KR bytes, CancelMsg included, whatever CharSet says;
 * the answer is asked for as UTF-8 JSON.
 */
export function buildCancelForm(
  config: Pick<ResolvedConfig, 'mid' | 'merchantKey' | 'clock'>,
  n: NormalizedCancel,
): Buffer {
  const cancelAmt = String(n.amount);
  const ediDate = kstTimestamp14(config.clock());
  const fields: Record<string, string | undefined> = {
    TID: n.tid,
    MID: config.mid,
    Moid: n.cancelMoid,
    CancelAmt: cancelAmt,
    CancelMsg: n.reason,
    PartialCancelCode: n.partial ? '1' : '0',
    EdiDate: ediDate,
    SignData: cancelSignData(config.mid, cancelAmt, ediDate, config.merchantKey),
    CharSet: 'utf-8',
    EdiType: 'JSON',
    MallReserved: n.mallReserved,
    RefundAcctNo: n.refund?.number,
    RefundBankCd: n.refund?.bankCode,
    RefundAcctNm: n.refund?.holder,
  };
  const problem = checkFields(CANCEL_REQUEST_FIELDS, fields, 'euc-kr');
  if (problem) {
    const option = OPTION_OF[problem.field] ?? problem.field;
    throw bad(option, `${option}: ${problem.message}`);
  }
  try {
    return encodeForm(fields, 'euc-kr');
  } catch (err) {
    if (err instanceof WireFormatError) {
      const option = OPTION_OF[err.field ?? ''] ?? err.field ?? 'input';
      throw bad(option, `${option} has characters EUC-KR cannot encode`);
    }
    throw err;
  }
}
