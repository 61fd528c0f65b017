import { padAmount, parseAmount } from '../../wire/amount.js';
import { hexEquals, safeEquals, sha256Hex } from '../../wire/hash.js';
import { kstTimestamp14 } from '../../wire/kst.js';
import { approvalSignData, netCancelResponseSignature } from '../../wire/signatures.js';
import type { LedgerEntry } from '../ledger.js';
import type { SandboxMerchant, SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { answerWithFault } from './fault-wrap.js';
import { DEFAULT_FORMAT, declined, encodeReply, field, gatewayResponse, readGatewayForm, replyFormat } from './gateway-io.js';
import { randomDigits } from './util.js';
import { plainCancel } from '../cancel/cancel-process.js';

/** Result codes of the cancel endpoint. */
export const NET_CANCEL_CODES = {
  success: '2001',
  unknownTid: '2003',
  amountMismatch: '2012',
  notSupported: '2099',
  undecodable: 'W009',
  unknownMid: 'W005',
  missingField: 'W001',
  badSignData: 'A211',
  invalidAuth: 'A127',
  notProcessed: '9999',
} as const;

/**
 * `POST /webapi/cancel_process.jsp`. With NetCancel=1 (망취소): checks MID, SignData
 * (approval formula over the request's AuthToken; for key-in TIDs, which have no token, also
 * sha256(MID + Amt + EdiDate + key)), the TID and the amount, then marks the transaction
 * 'net-cancelled' (approved, awaiting deposit or only authenticated: a later approval is
 * refused) and answers 2001 with CancelAmt, CancelDate, CancelTime, CancelNum, RemainAmt and
 * Signature = sha256(TID + MID + CancelAmt + key). A repeated net cancel answers the same
 * 2001. A plain cancel (no NetCancel) is served by ../cancel/cancel-process.ts.
 */
export function cancelProcess(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const f = readGatewayForm(req);
  if (!f) {
    return gatewayResponse(encodeReply(declined(NET_CANCEL_CODES.undecodable, '요청 전문을 해석할 수 없습니다.'), DEFAULT_FORMAT), DEFAULT_FORMAT);
  }
  const format = replyFormat(f);
  const ctx = { TID: field(f, 'TID'), MID: field(f, 'MID') };
  if (field(f, 'NetCancel') !== '1') return plainCancel(req, state);
  const key = state.merchants.get(field(f, 'MID'))?.merchantKey ?? '';
  return answerWithFault(state, 'net-cancel', {
    format,
    process: () => netCancel(state, f),
    notCommitted: () => declined(NET_CANCEL_CODES.notProcessed, '샌드박스: 요청이 처리되지 않았습니다.', ctx),
    amountField: 'CancelAmt',
    sign: (r) => netCancelResponseSignature(r.TID ?? '', r.MID ?? '', r.CancelAmt ?? '', key),
  });
}

function signDataMatches(f: Record<string, string>, entry: LedgerEntry | undefined, m: Required<SandboxMerchant>): boolean {
  const [token, amt, edi, sign] = [field(f, 'AuthToken'), field(f, 'Amt'), field(f, 'EdiDate'), field(f, 'SignData')];
  if (hexEquals(approvalSignData(token, m.mid, amt, edi, m.merchantKey), sign)) return true;
  return entry?.source === 'keyin' && hexEquals(sha256Hex(m.mid + amt + edi + m.merchantKey), sign);
}

function netCancel(state: SandboxState, f: Record<string, string>): Record<string, string> {
  const ctx = { TID: field(f, 'TID'), MID: field(f, 'MID') };
  const merchant = state.merchants.get(field(f, 'MID'));
  if (!merchant) return declined(NET_CANCEL_CODES.unknownMid, '등록되지 않은 상점 아이디(MID)입니다.', ctx);
  const entry = state.ledger.get(field(f, 'TID'));
  const required = entry?.source === 'keyin' ? ['TID', 'Amt', 'EdiDate', 'SignData'] : ['TID', 'AuthToken', 'Amt', 'EdiDate', 'SignData'];
  const missing = required.find((k) => !field(f, k));
  if (missing) return declined(NET_CANCEL_CODES.missingField, `필수 항목이 누락되었습니다: ${missing}`, ctx);
  if (!signDataMatches(f, entry, merchant)) return declined(NET_CANCEL_CODES.badSignData, '위변조 검증 데이터(SignData)가 일치하지 않습니다.', ctx);
  if (!entry || entry.mid !== merchant.mid) return declined(NET_CANCEL_CODES.unknownTid, '취소할 거래가 존재하지 않습니다.', ctx);
  if (entry.source === 'window' && !safeEquals(entry.extra.authToken ?? '', field(f, 'AuthToken'))) {
    return declined(NET_CANCEL_CODES.invalidAuth, '유효하지 않은 인증 거래입니다 (AuthToken 불일치).', ctx);
  }
  if (parseAmount(field(f, 'Amt')) !== entry.amount) return declined(NET_CANCEL_CODES.amountMismatch, '취소 금액이 거래 금액과 일치하지 않습니다.', ctx);
  const x = entry.extra;
  if (entry.status !== 'net-cancelled') {
    const now = state.clock.now();
    const stamp = kstTimestamp14(now);
    x.cancelDate = stamp.slice(0, 8);
    x.cancelTime = stamp.slice(8);
    x.cancelNum = randomDigits(8);
    x.tokenUsed = '1';
    state.ledger.update(entry.tid, 'net-cancelled', now);
  }
  const cancelAmt = padAmount(entry.amount);
  return {
    ResultCode: NET_CANCEL_CODES.success, ResultMsg: '취소 성공',
    TID: entry.tid, MID: entry.mid, Moid: entry.moid, PayMethod: entry.method,
    CancelAmt: cancelAmt, CancelDate: x.cancelDate ?? '', CancelTime: x.cancelTime ?? '', CancelNum: x.cancelNum ?? '',
    RemainAmt: '000000000000',
    Signature: netCancelResponseSignature(entry.tid, entry.mid, cancelAmt, merchant.merchantKey),
  };
}
