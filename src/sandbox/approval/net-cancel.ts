import { parseAmount } from '../../wire/amount.js';
import { decodeForm } from '../../wire/form-codec.js';
import { safeEquals } from '../../wire/hash.js';
import { kstTimestamp14 } from '../../wire/kst.js';
import { approvalSignData, cancelResponseSignature, cancelSignData } from '../../wire/signatures.js';
import type { FieldTable } from '../../wire/field-sizes.js';
import { KEYIN_NET_CANCEL_RULES, NET_CANCEL_RULES, brokenRule, ruleMessage } from '../request-rules.js';
import { checkGatewayTime } from '../gateway-time.js';
import type { LedgerEntry } from '../ledger.js';
import type { SandboxMerchant, SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { answerWithFault } from './fault-wrap.js';
import {
  REQUEST_CODES,
  declined,
  encodeReply,
  field,
  gatewayResponse,
  midMisshaped,
  paddedAmount,
  readGatewayForm,
  replyFormat,
} from './gateway-io.js';
import { netCancelWindowPassed } from './rules.js';
import { randomDigits } from './util.js';
import { plainCancel } from '../cancel/cancel-process.js';

/**
 * Result codes of the cancel endpoint. 2001, 2020 (gateway-facts) and 2012, 2028, 2032
 * (lifecycle-facts cancel codes) keep the meaning given there; A211 is the facts' signature
 * error; the W0xx codes, 2099 and 9999 are the sandbox's own (docs/sandbox.md).
 */
export const NET_CANCEL_CODES = {
  success: '2001',
  unknownTid: '2012',
  windowPassed: '2020',
  partialNotAllowed: '2028',
  amountTooLarge: '2032',
  notSupported: '2099',
  ...REQUEST_CODES,
  badField: 'W002',
  invalidAuth: 'W010',
  notProcessed: '9999',
} as const;

/**
 * `POST /webapi/cancel_process.jsp`. With NetCancel=1 (망취소): checks MID, the request table
 * (W001 missing, W002 broken), SignData (approval formula over the request's AuthToken,
 * lower-case hex; a key-in TID, which has no token, takes only the documented cancel's shape
 * and formula sha256(MID + CancelAmt + EdiDate + key)), the TID (2012), the token (W010), the
 * amount (2032 larger, 2028 smaller: a net cancel reverses the whole transaction), EdiDate
 * (W004) and the net-cancel window (2020), then marks the transaction 'net-cancelled'
 * (approved, awaiting deposit or only authenticated: a later approval is refused) and answers
 * 2001 with CancelAmt, CancelDate, CancelTime, CancelNum, RemainAmt and Signature =
 * sha256(TID + MID + CancelAmt + key). A repeated net cancel answers the same 2001, even past
 * the window (it reports what was done). A plain cancel (no NetCancel) is served by
 * ../cancel/cancel-process.ts.
 */
export function cancelProcess(req: SandboxRequest, state: SandboxState): SandboxResponse {
  // A plain cancel reads its own body: text in another charset than EUC-KR is read garbled, as
  // the gateway reads it, not refused. Only a net cancel (or a form that cannot be read one
  // way) goes through the approval side's strict reading.
  if (isPlainCancel(req)) return plainCancel(req, state);
  const read = readGatewayForm(req);
  if ('unreadable' in read) {
    return gatewayResponse(
      encodeReply(declined(NET_CANCEL_CODES.undecodable, read.unreadable), read.format),
      read.format,
    );
  }
  const f = read.fields;
  const format = replyFormat(f);
  const merchant = state.merchants.get(field(f, 'MID'));
  return answerWithFault(state, 'net-cancel', {
    format,
    process: () => netCancel(state, f, merchant),
    notCommitted: () => refusal(NET_CANCEL_CODES.notProcessed, '샌드박스: 요청이 처리되지 않았습니다.', f, merchant),
    amountField: 'CancelAmt',
    sign: (r) => cancelResponseSignature(r.TID ?? '', r.MID ?? '', r.CancelAmt ?? '', merchant?.merchantKey ?? ''),
  });
}

/** True for a readable form without NetCancel=1, its bytes in whatever charset. */
function isPlainCancel(req: SandboxRequest): boolean {
  try {
    return field(decodeForm(req.body, 'euc-kr', { garbled: () => undefined }), 'NetCancel') !== '1';
  } catch {
    return false;
  }
}

/** A refusal shaped like the cancel answer: TID, MID, 12-digit CancelAmt and, with a known merchant, a Signature. */
function refusal(
  code: string,
  message: string,
  f: Record<string, string>,
  merchant: Required<SandboxMerchant> | undefined,
): Record<string, string> {
  const tid = field(f, 'TID');
  const cancelAmt = paddedAmount(Object.hasOwn(f, 'CancelAmt') ? field(f, 'CancelAmt') : field(f, 'Amt'));
  return declined(code, message, {
    TID: tid,
    MID: field(f, 'MID'),
    CancelAmt: cancelAmt,
    ...(merchant ? { Signature: cancelResponseSignature(tid, merchant.mid, cancelAmt, merchant.merchantKey) } : {}),
  });
}

/**
 * The fields, amount and SignData of a net cancel of `entry`. A window transaction is
 * net-cancelled with the approval's fields and formula (gateway-facts, Net cancel). A key-in
 * transaction has no AuthToken: it takes exactly the documented cancel (lifecycle-facts 2,
 * CancelAmt and SignData = sha256(MID + CancelAmt + EdiDate + key)) with NetCancel=1, and any
 * other shape (the approval's Amt, an AuthToken, a field the cancel table does not list) is refused.
 */
function shapeOf(
  f: Record<string, string>,
  entry: LedgerEntry | undefined,
  m: Required<SandboxMerchant>,
): { rules: FieldTable; amount: string; signData: string } {
  const edi = field(f, 'EdiDate');
  // A key-in's (cancel-shaped, no AuthToken) or a transaction the sandbox never booked, asked
  // for in the cancel's shape: read as that shape, so an unknown TID is 2012, not a missing AuthToken.
  if (entry?.source === 'keyin' || (!entry && Object.hasOwn(f, 'CancelAmt') && !Object.hasOwn(f, 'AuthToken'))) {
    const amt = field(f, 'CancelAmt');
    return { rules: KEYIN_NET_CANCEL_RULES, amount: amt, signData: cancelSignData(m.mid, amt, edi, m.merchantKey) };
  }
  const amt = field(f, 'Amt');
  return {
    rules: NET_CANCEL_RULES,
    amount: amt,
    signData: approvalSignData(field(f, 'AuthToken'), m.mid, amt, edi, m.merchantKey),
  };
}

function netCancel(
  state: SandboxState,
  f: Record<string, string>,
  merchant: Required<SandboxMerchant> | undefined,
): Record<string, string> {
  const refuse = (code: string, message: string): Record<string, string> => refusal(code, message, f, merchant);
  if (midMisshaped(f))
    return refuse(NET_CANCEL_CODES.badMid, '상점 아이디(MID) 형식이 올바르지 않습니다 (영문·숫자 9자리 + 소문자 m).');
  if (!merchant) return refuse(NET_CANCEL_CODES.unknownMid, '등록되지 않은 상점 아이디(MID)입니다.');
  const entry = state.ledger.get(field(f, 'TID'));
  const shape = shapeOf(f, entry, merchant);
  const missing = Object.entries(shape.rules).find(([k, spec]) => spec.required && !field(f, k))?.[0];
  if (missing) return refuse(NET_CANCEL_CODES.missingField, `필수 항목이 누락되었습니다: ${missing}`);
  const broken = brokenRule(shape.rules, f, 'euc-kr');
  if (broken) return refuse(NET_CANCEL_CODES.badField, ruleMessage(broken));
  const stray = Object.keys(f).find((k) => !Object.hasOwn(shape.rules, k));
  if (entry?.source === 'keyin' && stray)
    return refuse(NET_CANCEL_CODES.badField, `카드 키인 거래의 망취소에 없는 항목입니다: ${stray}`);
  // gateway-facts: "SignData output is lowercase hex", compared exactly.
  if (!safeEquals(shape.signData, field(f, 'SignData')))
    return refuse(NET_CANCEL_CODES.badSignData, '위변조 검증 데이터(SignData)가 일치하지 않습니다.');
  if (!entry || entry.mid !== merchant.mid)
    return refuse(NET_CANCEL_CODES.unknownTid, '취소할 거래가 존재하지 않습니다.');
  if (entry.source === 'window' && !safeEquals(entry.extra.authToken ?? '', field(f, 'AuthToken'))) {
    return refuse(
      NET_CANCEL_CODES.invalidAuth,
      '유효하지 않은 인증 거래입니다 (TID와 AuthToken이 함께 발급된 값이 아닙니다).',
    );
  }
  const amount = parseAmount(shape.amount);
  if (amount === undefined || amount > entry.amount)
    return refuse(NET_CANCEL_CODES.amountTooLarge, '취소 금액이 취소 가능 금액보다 큽니다.');
  if (amount < entry.amount)
    return refuse(NET_CANCEL_CODES.partialNotAllowed, '망취소는 거래 금액 전체만 취소할 수 있습니다.');
  const now = state.clock.now();
  const ediDate = field(f, 'EdiDate');
  const timeProblem = ediDate.length === 14 ? checkGatewayTime(ediDate, now, state.rules.ediDateToleranceMs) : 'format';
  if (timeProblem) {
    const why =
      timeProblem === 'format'
        ? 'YYYYMMDDHHMISS 14자리 한국 표준시여야 합니다'
        : '게이트웨이 시각(한국 표준시)과 맞지 않습니다';
    return refuse(NET_CANCEL_CODES.badEdiDate, `요청 일시(EdiDate)가 ${why}.`);
  }
  const x = entry.extra;
  if (entry.status !== 'net-cancelled') {
    if (netCancelWindowPassed(entry, now))
      return refuse(NET_CANCEL_CODES.windowPassed, '망취소 가능 시간이 지났습니다. 일반 취소를 이용해 주십시오.');
    const stamp = kstTimestamp14(now);
    x.cancelDate = stamp.slice(0, 8);
    x.cancelTime = stamp.slice(8);
    x.cancelNum = randomDigits(8);
    x.tokenUsed = '1';
    state.ledger.update(entry.tid, 'net-cancelled', now);
  }
  const cancelAmt = paddedAmount(String(entry.amount));
  return {
    ResultCode: NET_CANCEL_CODES.success,
    ResultMsg: '취소 성공',
    TID: entry.tid,
    MID: entry.mid,
    Moid: entry.moid,
    PayMethod: entry.method,
    CancelAmt: cancelAmt,
    CancelDate: x.cancelDate ?? '',
    CancelTime: x.cancelTime ?? '',
    CancelNum: x.cancelNum ?? '',
    RemainAmt: '000000000000',
    Signature: cancelResponseSignature(entry.tid, entry.mid, cancelAmt, merchant.merchantKey),
  };
}
