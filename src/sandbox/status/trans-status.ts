import { safeEquals } from '../../wire/hash.js';
import { statusSignData } from '../../wire/signatures.js';
import {
  REQUEST_CODES,
  declined,
  encodeReply,
  field,
  gatewayResponse,
  midMisshaped,
  readGatewayForm,
  replyFormat,
} from '../approval/gateway-io.js';
import { checkGatewayTime } from '../gateway-time.js';
import type { LedgerEntry } from '../ledger.js';
import { answerWithFault } from '../approval/fault-wrap.js';
import { kstTimestamp12 } from '../../wire/kst.js';
import { STATUS_RULES, brokenRule, ruleMessage } from '../request-rules.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';

/** Result codes of the status inquiry: 0000 means the inquiry itself worked. */
export const STATUS_CODES = {
  ok: '0000',
  ...REQUEST_CODES,
  badField: 'W002',
} as const;

/**
 * Status 0 approved (a paid virtual account and partial cancels included), 1 cancelled, 9 no
 * approved transaction. An issued virtual account not yet paid is 9: the spec says such a payment
 * "is complete only when the buyer has deposited", so answering it approved would tell a shop
 * that polls the status to ship an unpaid order (the strict reading; the facts give no fourth value).
 */
function statusOf(entry: LedgerEntry | undefined): '0' | '1' | '9' {
  if (!entry) return '9';
  if (entry.status === 'approved') return '0';
  if (entry.status === 'cancelled' || entry.status === 'net-cancelled') return '1';
  return '9';
}

/**
 * The approval's AuthCode and AuthDate (yyMMddHHmmss, KST) as its answer gave them, for every
 * kind of approval: the window's approval keeps both, a key-in or billing charge keeps its
 * AuthCode (recorded with its answer, keyin/fault-reply.ts) and its approval time.
 */
function authOf(entry: LedgerEntry): { AuthCode: string; AuthDate: string } {
  const date = entry.extra.authDate ?? (entry.approvedAt ? kstTimestamp12(entry.approvedAt) : '');
  return { AuthCode: entry.extra.authCode ?? '', AuthDate: date };
}

/**
 * `POST /webapi/inquery/trans_status.jsp` (lifecycle-facts §4), answered from the ledger: checks
 * the MID's shape (W002) and merchant, TID, EdiDate (KST) and SignData = sha256(TID + MID + EdiDate + key) in lower-case hex;
 * answers ResultCode 0000 with Status, AuthCode and AuthDate, and no amount or signature, as the
 * gateway does.
 */
export function transStatus(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const read = readGatewayForm(req);
  if ('unreadable' in read)
    return gatewayResponse(encodeReply(declined(STATUS_CODES.undecodable, read.unreadable), read.format), read.format);
  const f = read.fields;
  const format = replyFormat(f);
  const reply = (fields: Record<string, string>): SandboxResponse =>
    gatewayResponse(encodeReply(fields, format), format);
  const tid = field(f, 'TID');
  const merchant = state.merchants.get(field(f, 'MID'));
  if (midMisshaped(f))
    return reply(
      declined(STATUS_CODES.badMid, '상점 아이디(MID) 형식이 올바르지 않습니다 (영문·숫자 9자리 + 소문자 m).', {
        TID: tid,
      }),
    );
  if (!merchant) return reply(declined(STATUS_CODES.unknownMid, '등록되지 않은 상점 아이디(MID)입니다.', { TID: tid }));
  const missing = ['TID', 'EdiDate', 'SignData'].find((k) => !field(f, k));
  if (missing)
    return reply(declined(STATUS_CODES.missingField, `필수 항목이 누락되었습니다: ${missing}`, { TID: tid }));
  // lifecycle-facts 4's request table: TID 30 characters, EdiDate 14 digits, CharSet and EdiType values.
  const broken = brokenRule(STATUS_RULES, f, 'euc-kr');
  if (broken) return reply(declined(STATUS_CODES.badField, ruleMessage(broken), { TID: tid }));
  if (checkGatewayTime(field(f, 'EdiDate'), state.clock.now(), state.rules.ediDateToleranceMs))
    return reply(declined(STATUS_CODES.badEdiDate, '요청 일시(EdiDate)가 올바르지 않습니다 (KST).', { TID: tid }));
  if (!safeEquals(statusSignData(tid, merchant.mid, field(f, 'EdiDate'), merchant.merchantKey), field(f, 'SignData'))) {
    return reply(declined(STATUS_CODES.badSignData, '위변조 검증 데이터(SignData)가 일치하지 않습니다.', { TID: tid }));
  }
  const found = state.ledger.get(tid);
  const entry = found?.mid === merchant.mid ? found : undefined;
  const status = statusOf(entry);
  const fields = {
    ResultCode: STATUS_CODES.ok,
    ResultMsg: '조회 성공',
    TID: tid,
    Status: status,
    ...(status === '9' || !entry ? { AuthCode: '', AuthDate: '' } : authOf(entry)),
  };
  // Faults (target 'status') reach the inquiry settlement relies on: a lost or unusable answer.
  return answerWithFault(state, 'status', {
    format,
    process: () => fields,
    notCommitted: () => fields,
    amountField: 'Amt',
    sign: () => '',
  });
}
