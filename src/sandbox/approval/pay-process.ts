import { padAmount, parseAmount } from '../../wire/amount.js';
import { hexEquals, safeEquals } from '../../wire/hash.js';
import { kstTimestamp12 } from '../../wire/kst.js';
import { approvalResponseSignature, approvalSignData } from '../../wire/signatures.js';
import type { LedgerEntry } from '../ledger.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { answerWithFault } from './fault-wrap.js';
import { DEFAULT_FORMAT, declined, encodeReply, field, gatewayResponse, readGatewayForm, replyFormat } from './gateway-io.js';
import { methodFields } from './method-fields.js';
import { randomDigits } from './util.js';

/** Result codes the approval endpoint answers besides the per-method success codes. */
export const APPROVAL_CODES = {
  undecodable: 'W009',
  unknownMid: 'W005',
  missingField: 'W001',
  badEdiDate: 'W004',
  badSignData: 'A211',
  invalidAuth: 'A127',
  alreadyApproved: '1682',
  tokenUsed: 'I003',
  amountMismatch: 'A123',
  notProcessed: '9999',
} as const;

const REQUIRED = ['TID', 'AuthToken', 'MID', 'Amt', 'EdiDate', 'SignData'] as const;

/**
 * `POST /webapi/pay_process.jsp`: approves an authenticated window transaction. Checks in
 * order: body decodable, MID known, required fields, SignData (A211), TID and AuthToken as
 * issued (A127), TID already approved (1682), token already used or transaction cancelled
 * (I003), Amt equal to the authenticated amount (A123). Every call naming a booked TID counts
 * in `entry.approvalCalls`, faults and failures included.
 */
export function payProcess(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const f = readGatewayForm(req);
  if (!f) {
    const body = encodeReply(declined(APPROVAL_CODES.undecodable, '요청 전문을 해석할 수 없습니다.'), DEFAULT_FORMAT);
    return gatewayResponse(body, DEFAULT_FORMAT);
  }
  const entry = state.ledger.get(field(f, 'TID'));
  if (entry) entry.approvalCalls++;
  const key = state.merchants.get(field(f, 'MID'))?.merchantKey;
  return answerWithFault(state, 'approve', {
    format: replyFormat(f),
    process: () => approve(state, f, entry),
    notCommitted: () => declined(APPROVAL_CODES.notProcessed, '샌드박스: 요청이 처리되지 않았습니다.', context(f, entry)),
    decline: (code, message) => {
      if (entry?.status === 'authenticated') state.ledger.update(entry.tid, 'declined', state.clock.now());
      return declined(code, message, context(f, entry));
    },
    amountField: 'Amt',
    sign: (r) => approvalResponseSignature(r.TID ?? '', r.MID ?? '', r.Amt ?? '', key ?? ''),
  });
}

/** Fields of a declined answer: what the request and the ledger know. */
function context(f: Record<string, string>, entry: LedgerEntry | undefined): Record<string, string> {
  return {
    TID: field(f, 'TID'), MID: field(f, 'MID'), Moid: entry?.moid ?? '', Amt: field(f, 'Amt'),
    PayMethod: entry?.method ?? '', MallReserved: field(f, 'MallReserved'),
  };
}

/** The checks and, when they pass, the commit; returns the response fields. */
function approve(state: SandboxState, f: Record<string, string>, entry: LedgerEntry | undefined): Record<string, string> {
  const ctx = context(f, entry);
  const merchant = state.merchants.get(field(f, 'MID'));
  if (!merchant) return declined(APPROVAL_CODES.unknownMid, '등록되지 않은 상점 아이디(MID)입니다.', ctx);
  const missing = REQUIRED.find((k) => !field(f, k));
  if (missing) return declined(APPROVAL_CODES.missingField, `필수 항목이 누락되었습니다: ${missing}`, ctx);
  if (!/^\d{14}$/.test(field(f, 'EdiDate'))) return declined(APPROVAL_CODES.badEdiDate, '요청 일시(EdiDate) 형식이 올바르지 않습니다.', ctx);
  const expected = approvalSignData(field(f, 'AuthToken'), merchant.mid, field(f, 'Amt'), field(f, 'EdiDate'), merchant.merchantKey);
  if (!hexEquals(expected, field(f, 'SignData'))) return declined(APPROVAL_CODES.badSignData, '위변조 검증 데이터(SignData)가 일치하지 않습니다.', ctx);
  if (!entry || entry.source !== 'window' || entry.mid !== merchant.mid || !safeEquals(entry.extra.authToken ?? '', field(f, 'AuthToken'))) {
    return declined(APPROVAL_CODES.invalidAuth, '유효하지 않은 인증 거래입니다 (TID 또는 AuthToken 불일치).', ctx);
  }
  if (entry.status === 'approved' || entry.status === 'awaiting-deposit') {
    return declined(APPROVAL_CODES.alreadyApproved, '동일한 승인 거래가 이미 성공하였습니다.', ctx);
  }
  if (entry.extra.tokenUsed === '1' || entry.status !== 'authenticated') {
    return declined(APPROVAL_CODES.tokenUsed, '이미 처리된 인증 거래입니다. 재요청할 수 없습니다.', ctx);
  }
  if (parseAmount(field(f, 'Amt')) !== entry.amount) {
    return declined(APPROVAL_CODES.amountMismatch, '인증 금액과 승인 요청 금액이 일치하지 않습니다.', ctx);
  }
  const now = state.clock.now();
  entry.extra.tokenUsed = '1';
  entry.extra.authDate = kstTimestamp12(now);
  entry.extra.authCode = entry.method === 'VBANK' ? '' : randomDigits(8);
  const block = methodFields(state, entry);
  state.ledger.update(entry.tid, entry.method === 'VBANK' ? 'awaiting-deposit' : 'approved', now);
  const amt12 = padAmount(entry.amount);
  const x = entry.extra;
  return {
    ResultCode: block.ResultCode!, ResultMsg: block.ResultMsg!,
    Amt: amt12, MID: entry.mid, Moid: entry.moid,
    Signature: approvalResponseSignature(entry.tid, entry.mid, amt12, merchant.merchantKey),
    BuyerEmail: x.buyerEmail ?? '', BuyerTel: x.buyerTel ?? '', BuyerName: entry.buyerName, GoodsName: entry.goodsName,
    TID: entry.tid, AuthCode: x.authCode ?? '', AuthDate: x.authDate ?? '', PayMethod: entry.method,
    MallReserved: Object.hasOwn(f, 'MallReserved') ? f.MallReserved! : (x.mallReserved ?? ''),
    ...block,
  };
}
