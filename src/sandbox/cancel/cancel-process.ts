import { padAmount, parseAmount } from '../../wire/amount.js';
import { decodeForm } from '../../wire/form-codec.js';
import { kstDate8, kstTimestamp14 } from '../../wire/kst.js';
import { brokenRule, CANCEL_RULES } from '../request-rules.js';
import { cancelResponseSignature, cancelSignData } from '../../wire/signatures.js';
import { safeEquals } from '../../wire/hash.js';
import { answerWithFault } from '../approval/fault-wrap.js';
import {
  DEFAULT_FORMAT,
  REQUEST_CODES,
  declined,
  encodeReply,
  field,
  gatewayResponse,
  midMisshaped,
  replyFormat,
} from '../approval/gateway-io.js';
import { headerCharset, randomDigits } from '../approval/util.js';
import { checkGatewayTime } from '../gateway-time.js';
import { balanceOf, dataHostState } from '../data-host/state.js';
import type { LedgerCancel, LedgerEntry } from '../ledger.js';
import { feedCancel } from '../data-host/ledger-feed.js';
import { queueNotice } from '../notify/deliveries.js';
import { cancelNoticeFields } from '../notify/notice-fields.js';
import { isFormRequest } from '../form-fields.js';
import { logGarbled } from '../request-log.js';
import type { SandboxMerchant, SandboxRequest, SandboxResponse, SandboxState } from '../types.js';

/** Result codes of a plain cancel (lifecycle-facts §2), plus the request-level ones the approval endpoints share. */
export const CANCEL_CODES = {
  cancelled: '2001',
  refundPending: '2225',
  alreadyCancelled: '2015',
  noTransaction: '2012',
  periodPassed: '2016',
  amountTooLarge: '2032',
  partialByContract: '2028',
  partialByMethod: '2029',
  /** The sandbox's use of 2045, whose published meaning is only "a virtual-account case". */
  vbankState: '2045',
  balanceMismatch: '2059',
  duplicatePartial: '2060',
  refundAccountMissing: '2221',
  ...REQUEST_CODES,
  badField: 'W002',
  notProcessed: '9999',
} as const;

/** How long after approval a transaction may be cancelled. The documents give no period: the sandbox allows one year. */
export const CANCEL_PERIOD_MS = 365 * 24 * 60 * 60 * 1000;
/** A partial cancel repeating the last one's Moid and amount within this much virtual time is a duplicate (2060). */
export const DUPLICATE_PARTIAL_MS = 60 * 1000;

const REQUIRED = ['TID', 'MID', 'Moid', 'CancelAmt', 'CancelMsg', 'PartialCancelCode', 'EdiDate', 'SignData'] as const;

/**
 * `POST /webapi/cancel_process.jsp` without NetCancel=1: a full or partial cancel, or the refund
 * of a paid virtual account to a refund account. The body is read as EUC-KR whatever the
 * Content-Type says (CancelMsg is always EUC-KR): bytes that are not EUC-KR are read garbled, as
 * the gateway reads them, with a line in the sandbox's log; only a malformed form, or a body
 * declared as another media type than a form, is W009.
 * Checks in order: MID, required fields, sizes, EdiDate (KST, checkGatewayTime), SignData =
 * sha256(MID + CancelAmt + EdiDate + key) in lower-case hex, the transaction, then the cancel
 * rules; answers with CancelAmt and RemainAmt (12 digits), CancelDate/Time, CancelNum and
 * Signature = sha256(TID + MID + CancelAmt + key). Faults: target 'cancel'.
 */
export function plainCancel(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const garbled: string[] = [];
  let f: Record<string, string> | undefined;
  try {
    f = isFormRequest(req) ? decodeForm(req.body, 'euc-kr', { garbled: (name) => garbled.push(name) }) : undefined;
  } catch {
    f = undefined;
  }
  if (!f) {
    // Declared another media type, a malformed escape or a field sent twice: a request that
    // cannot be read (one way) as the form it must be.
    return gatewayResponse(
      encodeReply(
        declined(CANCEL_CODES.undecodable, '요청 전문을 해석할 수 없습니다 (폼 형식 오류 또는 중복 항목).'),
        DEFAULT_FORMAT,
      ),
      DEFAULT_FORMAT,
    );
  }
  // Text sent as UTF-8 is read as EUC-KR, as the gateway reads it: the reason is kept garbled,
  // not refused. Said in the sandbox's log: bytes not valid EUC-KR, or a body declared UTF-8
  // whose text reads otherwise as EUC-KR.
  if (headerCharset(req.headers) === 'utf-8') garbled.push(...differingFields(f, req.body));
  logGarbled(req.path, garbled);
  const merchant = state.merchants.get(field(f, 'MID'));
  const key = merchant?.merchantKey ?? '';
  let afterAnswer: (() => Promise<void>) | undefined;
  const ctx = { TID: field(f, 'TID'), MID: field(f, 'MID'), Moid: field(f, 'Moid') };
  const response = answerWithFault(state, 'cancel', {
    format: replyFormat(f),
    process: () => {
      const out = cancel(state, f, merchant);
      afterAnswer = out.notify;
      return out.fields;
    },
    notCommitted: () => declined(CANCEL_CODES.notProcessed, '샌드박스: 요청이 처리되지 않았습니다.', ctx),
    amountField: 'CancelAmt',
    sign: (r) => cancelResponseSignature(r.TID ?? '', r.MID ?? '', r.CancelAmt ?? '', key),
  });
  // The cancel notice leaves after the answer, as a gateway's would; its deliveries are in the ledger.
  if (afterAnswer) setImmediate(() => void afterAnswer!().catch(() => undefined));
  return response;
}

/** The checks and, when they pass, the cancel; returns the answer and the notice to send. */
function cancel(
  state: SandboxState,
  f: Record<string, string>,
  merchant: Required<SandboxMerchant> | undefined,
): { fields: Record<string, string>; notify?: () => Promise<void> } {
  const ctx = { TID: field(f, 'TID'), MID: field(f, 'MID'), Moid: field(f, 'Moid') };
  const no = (code: string, msg: string): { fields: Record<string, string> } => ({ fields: declined(code, msg, ctx) });
  if (midMisshaped(f))
    return no(CANCEL_CODES.badMid, '상점 아이디(MID) 형식이 올바르지 않습니다 (영문·숫자 9자리 + 소문자 m).');
  if (!merchant) return no(CANCEL_CODES.unknownMid, '등록되지 않은 상점 아이디(MID)입니다.');
  const missing = REQUIRED.find((k) => !field(f, k));
  if (missing) return no(CANCEL_CODES.missingField, `필수 항목이 누락되었습니다: ${missing}`);
  const problem = brokenRule(CANCEL_RULES, f, 'euc-kr');
  if (problem) return no(CANCEL_CODES.badField, `${problem.field} 항목의 형식 또는 길이가 올바르지 않습니다.`);
  const now = state.clock.now();
  if (checkGatewayTime(field(f, 'EdiDate'), now, state.rules.ediDateToleranceMs))
    return no(CANCEL_CODES.badEdiDate, '요청 일시(EdiDate)가 올바르지 않습니다 (KST).');
  // Lower-case hex only: the sandbox is stricter than a case-folding gateway might be.
  if (
    !safeEquals(
      cancelSignData(merchant.mid, field(f, 'CancelAmt'), field(f, 'EdiDate'), merchant.merchantKey),
      field(f, 'SignData'),
    )
  ) {
    return no(CANCEL_CODES.badSignData, '위변조 검증 데이터(SignData)가 일치하지 않습니다.');
  }
  // The TID alone names the transaction. A cancel's Moid is the merchant's number for this cancel
  // (the vendor's sample makes a fresh one per cancel, 'moid' + EdiDate, and a public merchant log
  // shows the gateway answering 2001 to it): it need not be the order's, and the answer echoes it.
  const entry = state.ledger.get(field(f, 'TID'));
  if (!entry || entry.mid !== merchant.mid) return no(CANCEL_CODES.noTransaction, '취소할 거래가 존재하지 않습니다.');
  if (entry.status === 'cancelled' || entry.status === 'net-cancelled')
    return no(CANCEL_CODES.alreadyCancelled, '이미 취소된 거래입니다.');
  if (entry.status !== 'approved' && entry.status !== 'awaiting-deposit')
    return no(CANCEL_CODES.noTransaction, '승인된 거래가 없습니다.');
  if (now.getTime() - (entry.approvedAt ?? entry.createdAt).getTime() > CANCEL_PERIOD_MS)
    return no(CANCEL_CODES.periodPassed, '취소 가능 기간이 지났습니다.');

  const amount = parseAmount(field(f, 'CancelAmt'))!;
  const partial = field(f, 'PartialCancelCode') === '1';
  entry.cancels ??= [];
  const cancels = entry.cancels;
  const remaining = cancels.length > 0 ? cancels[cancels.length - 1]!.remaining : entry.amount;
  const paidVbank = entry.method === 'VBANK' && entry.deposit !== undefined;
  const refund = {
    number: field(f, 'RefundAcctNo'),
    bankCode: field(f, 'RefundBankCd'),
    holder: field(f, 'RefundAcctNm'),
  };
  const hasRefund = refund.number !== '' || refund.bankCode !== '' || refund.holder !== '';

  if (amount === 0) return no(CANCEL_CODES.badField, '취소 금액은 0보다 커야 합니다.');
  if (partial) {
    if (!merchant.partialCancel) return no(CANCEL_CODES.partialByContract, '부분취소 계약이 되어 있지 않습니다.');
    if (entry.method === 'CELLPHONE') return no(CANCEL_CODES.partialByMethod, '부분취소가 불가능한 결제수단입니다.');
    if (entry.method === 'VBANK' && !paidVbank)
      return no(CANCEL_CODES.vbankState, '입금 전 가상계좌는 부분취소할 수 없습니다.');
  }
  if (amount > remaining) return no(CANCEL_CODES.amountTooLarge, '취소 금액이 취소 가능 금액보다 큽니다.');
  if (!partial && amount !== remaining)
    return no(CANCEL_CODES.balanceMismatch, '전체취소 금액이 잔액과 일치하지 않습니다.');
  if (paidVbank && !(refund.number && refund.bankCode && refund.holder))
    return no(CANCEL_CODES.refundAccountMissing, '입금된 가상계좌는 환불계좌 정보가 필요합니다.');
  if (!paidVbank && hasRefund) return no(CANCEL_CODES.badField, '환불계좌는 입금된 가상계좌에만 사용할 수 있습니다.');
  const last = cancels[cancels.length - 1];
  const cancelMoid = field(f, 'Moid');
  // lifecycle-facts 2: the Moid is "used against duplicate partial cancels": the same Moid and
  // amount as the previous partial cancel, moments later, is that cancel again.
  if (
    partial &&
    last?.partial &&
    last.moid === cancelMoid &&
    last.amount === amount &&
    now.getTime() - last.at.getTime() < DUPLICATE_PARTIAL_MS
  ) {
    return no(CANCEL_CODES.duplicatePartial, '중복된 부분취소 요청입니다.');
  }

  const left = remaining - amount;
  const resultCode = paidVbank ? CANCEL_CODES.refundPending : CANCEL_CODES.cancelled;
  const stamp = kstTimestamp14(now);
  const cancelNum = randomDigits(8);
  const record: LedgerCancel = {
    amount,
    remaining: left,
    partial,
    resultCode,
    cancelNum,
    at: now,
    reason: field(f, 'CancelMsg'),
    moid: cancelMoid,
    ...(paidVbank
      ? {
          refundAccount: { bankCode: refund.bankCode, number: `****${refund.number.slice(-4)}`, holder: refund.holder },
        }
      : {}),
  };
  cancels.push(record);
  feedCancel(state, entry, record);
  // Money the data host credited at approval (or deposit) goes back out of the payout balance,
  // as a net cancel's does (data-host/ledger-feed.ts).
  if (entry.status === 'approved') balanceOf(dataHostState(state), entry.mid).remainAmt -= amount;
  if (left === 0) state.ledger.update(entry.tid, 'cancelled', now);
  const cancelAmt = padAmount(amount);
  const fields = {
    ResultCode: resultCode,
    ResultMsg: paidVbank ? '환불 접수 (지급 전)' : '취소 성공',
    TID: entry.tid,
    MID: entry.mid,
    Moid: cancelMoid,
    PayMethod: entry.method,
    CancelAmt: cancelAmt,
    RemainAmt: padAmount(left),
    CancelDate: kstDate8(now),
    CancelTime: stamp.slice(8),
    CancelNum: cancelNum,
    MallReserved: field(f, 'MallReserved'),
    Signature: cancelResponseSignature(entry.tid, entry.mid, cancelAmt, merchant.merchantKey),
  };
  // For a virtual account only the deposit is notified, never its refund (lifecycle-facts §3).
  const notify =
    merchant.notifyCancels && entry.method !== 'VBANK'
      ? () => notifyCancel(state, merchant, entry, amount, now, cancelMoid)
      : undefined;
  return notify ? { fields, notify } : { fields };
}

function notifyCancel(
  state: SandboxState,
  merchant: Required<SandboxMerchant>,
  entry: LedgerEntry,
  amount: number,
  at: Date,
  cancelMoid: string,
): Promise<void> {
  return queueNotice(state, merchant, entry, 'cancel', cancelNoticeFields(entry, merchant, amount, at, cancelMoid));
}

/**
 * The fields of a body declared UTF-8 that read otherwise as EUC-KR: UTF-8 Korean, garbled by
 * the EUC-KR reading (only ASCII reads the same). None when the bytes are not UTF-8 at all:
 * then the label was wrong, not the bytes.
 */
function differingFields(eucKr: Record<string, string>, body: Buffer): string[] {
  let utf8: Record<string, string>;
  try {
    utf8 = decodeForm(body, 'utf-8');
  } catch {
    return [];
  }
  return Object.keys(eucKr).filter((k) => utf8[k] !== eucKr[k]);
}
