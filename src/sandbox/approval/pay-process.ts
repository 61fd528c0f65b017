import { parseAmount } from '../../wire/amount.js';
import { safeEquals } from '../../wire/hash.js';
import { kstTimestamp12 } from '../../wire/kst.js';
import { approvalResponseSignature, approvalSignData } from '../../wire/signatures.js';
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
import { methodFields } from './method-fields.js';
import { approvedMoidHolder, burnToken, tokenExpired } from './rules.js';
import { randomDigits } from './util.js';
import { APPROVAL_RULES, brokenRule, ruleMessage } from '../request-rules.js';

/**
 * Result codes the approval endpoint answers besides the per-method success codes. Codes from
 * gateway-facts.md keep the meaning given there (A211 signature error, 1682 identical approval
 * already succeeded, I003 re-request of an authenticated transaction, A127 duplicate Moid, A123
 * amount differs); the W0xx codes, 3011 and 9999 are the sandbox's own (docs/sandbox.md).
 */
export const APPROVAL_CODES = {
  ...REQUEST_CODES,
  badField: 'W002',
  invalidAuth: 'W010',
  tokenExpired: 'W011',
  alreadyApproved: '1682',
  tokenUsed: 'I003',
  duplicateMoid: 'A127',
  amountMismatch: 'A123',
  buyerDeclined: '3011',
  notProcessed: '9999',
} as const;

/** The ResultMsg of the issuer's refusal (the window's 거절 choice and the `decline` fault). */
export const ISSUER_DECLINE_MSG = '카드사 승인 거절(한도초과)';

const REQUIRED = ['TID', 'AuthToken', 'MID', 'Amt', 'EdiDate', 'SignData'] as const;

/**
 * `POST /webapi/pay_process.jsp`: approves an authenticated window transaction. Checks in
 * order: body readable as EUC-KR (W009), MID of the spec's shape (W002), MID known (W005), required fields (W001), the
 * request table (W002: sizes, Amt digits, CharSet and EdiType values), SignData in
 * lower-case hex (A211), TID and AuthToken issued together (W010), TID already approved
 * (1682), token used or transaction closed (I003), token expired (W011); then, with the
 * token burnt on failure: EdiDate a KST time near the clock (W004), the Moid not already
 * approved for the merchant (A127), Amt equal to the authenticated amount (A123), the buyer's
 * 거절 choice (3011). Every call naming a booked TID counts in `entry.approvalCalls`.
 */
export function payProcess(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const read = readGatewayForm(req);
  if ('unreadable' in read) {
    return gatewayResponse(
      encodeReply(declined(APPROVAL_CODES.undecodable, read.unreadable), read.format),
      read.format,
    );
  }
  const f = read.fields;
  const entry = state.ledger.get(field(f, 'TID'));
  if (entry) entry.approvalCalls++;
  const merchant = state.merchants.get(field(f, 'MID'));
  return answerWithFault(state, 'approve', {
    format: replyFormat(f),
    process: () => approve(state, f, entry, merchant),
    notCommitted: () =>
      refusal(state, APPROVAL_CODES.notProcessed, '샌드박스: 요청이 처리되지 않았습니다.', f, entry, merchant),
    decline: (code, message) => {
      if (entry?.status === 'authenticated') burnToken(state, entry);
      return refusal(state, code, message, f, entry, merchant);
    },
    amountField: 'Amt',
    sign: (r) => approvalResponseSignature(r.TID ?? '', r.MID ?? '', r.Amt ?? '', merchant?.merchantKey ?? ''),
  });
}

/**
 * A refusal shaped like every answer: the request's TID and MID, the 12-digit Amt, what the
 * ledger knows, and a Signature over TID + MID + Amt when the merchant (its key) is known.
 */
function refusal(
  state: SandboxState,
  code: string,
  message: string,
  f: Record<string, string>,
  entry: LedgerEntry | undefined,
  merchant: Required<SandboxMerchant> | undefined,
): Record<string, string> {
  const tid = field(f, 'TID');
  const amt = paddedAmount(field(f, 'Amt'));
  // Whether "already processed" names the order is not documented: named only when the rule says so.
  const processed = code === APPROVAL_CODES.alreadyApproved || code === APPROVAL_CODES.tokenUsed;
  const moid = processed && !state.rules.processedNamesOrder ? '' : (entry?.moid ?? '');
  return declined(code, message, {
    TID: tid,
    MID: field(f, 'MID'),
    Moid: moid,
    Amt: amt,
    PayMethod: entry?.method ?? '',
    MallReserved: field(f, 'MallReserved'),
    ...(merchant ? { Signature: approvalResponseSignature(tid, merchant.mid, amt, merchant.merchantKey) } : {}),
  });
}

/** The checks and, when they pass, the commit; returns the response fields. */
function approve(
  state: SandboxState,
  f: Record<string, string>,
  entry: LedgerEntry | undefined,
  merchant: Required<SandboxMerchant> | undefined,
): Record<string, string> {
  const refuse = (code: string, message: string): Record<string, string> =>
    refusal(state, code, message, f, entry, merchant);
  if (midMisshaped(f))
    return refuse(APPROVAL_CODES.badMid, '상점 아이디(MID) 형식이 올바르지 않습니다 (영문·숫자 9자리 + 소문자 m).');
  if (!merchant) return refuse(APPROVAL_CODES.unknownMid, '등록되지 않은 상점 아이디(MID)입니다.');
  const missing = REQUIRED.find((k) => !field(f, k));
  if (missing) return refuse(APPROVAL_CODES.missingField, `필수 항목이 누락되었습니다: ${missing}`);
  // gateway-interface A's request table (sizes in EUC-KR bytes, Amt digits, the CharSet and
  // EdiType value lists): a request that breaks it proves nothing yet, so nothing is burnt.
  const broken = brokenRule(APPROVAL_RULES, f, 'euc-kr');
  if (broken) return refuse(APPROVAL_CODES.badField, ruleMessage(broken));
  // gateway-facts: "SignData output is lowercase hex" — compared exactly, so upper case fails.
  const expected = approvalSignData(
    field(f, 'AuthToken'),
    merchant.mid,
    field(f, 'Amt'),
    field(f, 'EdiDate'),
    merchant.merchantKey,
  );
  if (!safeEquals(expected, field(f, 'SignData')))
    return refuse(APPROVAL_CODES.badSignData, '위변조 검증 데이터(SignData)가 일치하지 않습니다.');
  if (
    entry?.source !== 'window' ||
    entry.mid !== merchant.mid ||
    !safeEquals(entry.extra.authToken ?? '', field(f, 'AuthToken'))
  ) {
    return refuse(
      APPROVAL_CODES.invalidAuth,
      '유효하지 않은 인증 거래입니다 (TID와 AuthToken이 함께 발급된 값이 아닙니다).',
    );
  }
  if (entry.status === 'approved' || entry.status === 'awaiting-deposit') {
    return refuse(APPROVAL_CODES.alreadyApproved, '동일한 승인 거래가 이미 성공하였습니다.');
  }
  if (entry.extra.tokenUsed === '1' || entry.status !== 'authenticated') {
    return refuse(APPROVAL_CODES.tokenUsed, '이미 처리된 인증 거래입니다. 재요청할 수 없습니다.');
  }
  const now = state.clock.now();
  // Expiry is a fact of the clock, not an event: every later attempt is answered W011 again.
  if (tokenExpired(entry, now)) {
    return refuse(APPROVAL_CODES.tokenExpired, '인증 유효 시간이 지났습니다. 결제를 다시 진행해 주십시오.');
  }
  // From here the request is the merchant's (SignData) for this token: a refusal burns it.
  const burn = (code: string, message: string): Record<string, string> => {
    burnToken(state, entry);
    return refuse(code, message);
  };
  const ediDate = field(f, 'EdiDate');
  const timeProblem = ediDate.length === 14 ? checkGatewayTime(ediDate, now, state.rules.ediDateToleranceMs) : 'format';
  if (timeProblem === 'format')
    return burn(APPROVAL_CODES.badEdiDate, '요청 일시(EdiDate)는 YYYYMMDDHHMISS 14자리 한국 표준시여야 합니다.');
  if (timeProblem === 'skew')
    return burn(APPROVAL_CODES.badEdiDate, '요청 일시(EdiDate)가 게이트웨이 시각(한국 표준시)과 맞지 않습니다.');
  if (approvedMoidHolder(state, entry.mid, entry.moid, entry.tid)) {
    return burn(APPROVAL_CODES.duplicateMoid, '이미 승인된 주문번호(Moid)입니다.');
  }
  if (parseAmount(field(f, 'Amt')) !== entry.amount) {
    return burn(APPROVAL_CODES.amountMismatch, '인증 금액과 승인 요청 금액이 일치하지 않습니다.');
  }
  if (entry.extra.buyerOutcome === 'decline') return burn(APPROVAL_CODES.buyerDeclined, ISSUER_DECLINE_MSG);
  entry.extra.tokenUsed = '1';
  entry.extra.authDate = kstTimestamp12(now);
  entry.extra.authCode = entry.method === 'VBANK' ? '' : randomDigits(8);
  const block = methodFields(state, entry);
  state.ledger.update(entry.tid, entry.method === 'VBANK' ? 'awaiting-deposit' : 'approved', now);
  const amt12 = paddedAmount(String(entry.amount));
  const x = entry.extra;
  return {
    ResultCode: block.ResultCode!,
    ResultMsg: block.ResultMsg!,
    Amt: amt12,
    MID: entry.mid,
    Moid: entry.moid,
    Signature: approvalResponseSignature(entry.tid, entry.mid, amt12, merchant.merchantKey),
    BuyerEmail: x.buyerEmail ?? '',
    BuyerTel: x.buyerTel ?? '',
    BuyerName: entry.buyerName,
    GoodsName: entry.goodsName,
    TID: entry.tid,
    AuthCode: x.authCode ?? '',
    AuthDate: x.authDate ?? '',
    PayMethod: entry.method,
    MallReserved: Object.hasOwn(f, 'MallReserved') ? f.MallReserved! : (x.mallReserved ?? ''),
    ...block,
  };
}
