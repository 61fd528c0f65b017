import { BALANCE_FIELDS, PAYOUT_CANCEL_FIELDS, PAYOUT_REQUEST_FIELDS, PAYOUT_RESULTS_FIELDS, SID, SUB_MERCHANT_FIELDS } from '../../wire/data-fields.js';
import { hexEquals } from '../../wire/hash.js';
import { payoutEncKey } from '../../wire/signatures.js';
import type { FieldTable } from '../../wire/field-sizes.js';
import type { SandboxHandler, SandboxState } from '../types.js';
import { answer, checkBody, DataHostRefusal, peekSid, refusalAnswer, readEnvelope, SANDBOX_DATA_CODES, withFaults, type DataHostRequest } from './envelope.js';
import { executePayouts } from './execute.js';
import { parseKstTimestamp } from '../../wire/kst.js';
import { executionDue, inBlackout, isBusinessDay, pastCrossBorderCutoff, pastCutoff, resultsReady, today } from './schedule.js';
import { accountKey, balanceOf, dataHostState, mask, subKey, type DataHostState, type SandboxPayout } from './state.js';

/*
 * POST /om/api: the payout sids of gateway-interface.md "C. Payout operations". Result codes
 * follow gateway-facts.md where it names one; the choices it leaves open are listed in
 * docs/payout.md ("What the sandbox answers").
 */

const TABLES: Readonly<Record<string, FieldTable>> = {
  [SID.balance]: BALANCE_FIELDS,
  [SID.subMerchant]: SUB_MERCHANT_FIELDS,
  [SID.payoutRequest]: PAYOUT_REQUEST_FIELDS,
  [SID.payoutCancel]: PAYOUT_CANCEL_FIELDS,
  [SID.payoutResults]: PAYOUT_RESULTS_FIELDS,
};

type Op = (ds: DataHostState, req: DataHostRequest, now: Date) => Record<string, unknown>;

const sameHolder = (a: string, b: string): boolean => a.replace(/\s+/g, '') === b.replace(/\s+/g, '');

/** The bank's account-holder lookup: a closed account or another holder is a mismatch (1003). */
function verifyHolder(ds: DataHostState, bankCd: string, accntNo: string, accntNm: string): void {
  const key = accountKey(bankCd, accntNo);
  if (ds.closedAccounts.has(key)) throw new DataHostRefusal('1003', '예금주 조회 실패 (해지된 계좌)');
  const holder = ds.holders.get(key);
  if (holder !== undefined && !sameHolder(holder, accntNm)) throw new DataHostRefusal('1003', '예금주 불일치');
}

const balance: Op = (ds, { body }) => {
  const b = balanceOf(ds, body['mid']!);
  const out: Record<string, unknown> = { mid: body['mid'], remainAmt: b.remainAmt };
  // The response example spells the key lastCl (the table says lastcl).
  if (b.last) out['last'] = { lastCl: b.last.lastcl, lastAmt: b.last.amount, lastDt: b.last.date };
  return out;
};

const subMerchant: Op = (ds, { body }, now) => {
  const mid = body['mid']!;
  const subId = body['subId']!;
  if (inBlackout(now)) throw new DataHostRefusal(SANDBOX_DATA_CODES.registrationBlackout, '23:00~01:00 은행 전환 시간에는 하위몰 등록/변경이 불가합니다');
  const existing = ds.subMerchants.get(subKey(mid, subId));
  const rec = {
    mid,
    subId,
    subNm: body['subNm']!,
    subCoNo: body['subCoNo']!,
    bankCd: body['bankCd']!,
    accntNo: body['accntNo']!,
    accntNm: body['accntNm']!,
    memo: body['memo'] ?? '',
  };
  if (body['reqType'] === '0') {
    if (existing) throw new DataHostRefusal('1106', '이미 등록된 하위몰 ID 입니다');
    verifyHolder(ds, rec.bankCd, rec.accntNo, rec.accntNm);
  } else {
    if (!existing) throw new DataHostRefusal('1105', '등록되지 않은 하위몰 ID 입니다');
    if (existing.subCoNo !== rec.subCoNo) throw new DataHostRefusal(SANDBOX_DATA_CODES.subCoNoChanged, '사업자번호(subCoNo)는 변경할 수 없습니다');
    if (existing.bankCd !== rec.bankCd || existing.accntNo !== rec.accntNo || existing.accntNm !== rec.accntNm) {
      verifyHolder(ds, rec.bankCd, rec.accntNo, rec.accntNm);
    }
  }
  ds.subMerchants.set(subKey(mid, subId), rec);
  return { mid, subId, reqType: body['reqType'] };
};

const request: Op = (ds, { body }, now) => {
  const mid = body['mid']!;
  const { settlmntDt, subId } = body as Record<'settlmntDt' | 'subId', string>;
  if (!parseKstTimestamp(settlmntDt)) throw new DataHostRefusal('0270', '형식 오류: settlmntDt');
  if (today(now) > settlmntDt) throw new DataHostRefusal(SANDBOX_DATA_CODES.pastDate, '지급일자가 과거입니다');
  if (!isBusinessDay(ds, settlmntDt)) throw new DataHostRefusal('1001', '영업일이 아닙니다');
  if (pastCutoff(settlmntDt, now)) throw new DataHostRefusal('1107', '당일 지급요청은 10:30 이전에만 가능합니다');
  const sub = ds.subMerchants.get(subKey(mid, subId));
  if (!sub) throw new DataHostRefusal('1105', '등록되지 않은 하위몰 ID 입니다');
  // Cross-border wallet sub-merchants: by 23:59 KST of the day before (spec, Limits).
  if (ds.crossBorder.has(subKey(mid, subId)) && pastCrossBorderCutoff(settlmntDt, now)) {
    throw new DataHostRefusal(SANDBOX_DATA_CODES.crossBorderCutoff, '해외 지갑 서비스 하위몰의 지급요청은 지급일 전날 23:59까지만 가능합니다');
  }
  const dupChkYn = body['dupChkYn']!;
  if (dupChkYn === 'Y' && ds.payouts.some((p) => p.mid === mid && p.subId === subId && p.settlmntDt === settlmntDt && p.status !== '삭제')) {
    throw new DataHostRefusal('1103', '동일 일자에 이미 등록된 지급요청이 있습니다');
  }
  const amount = Number(body['settlmntAmt']);
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new DataHostRefusal('0270', '형식 오류: settlmntAmt');
  const seq = settlmntDt + String(ds.nextSeq++).padStart(12, '0');
  const payout: SandboxPayout = {
    mid, seq, subId, settlmntDt, amount, dupChkYn,
    accntDesc: body['accntDesc'] ?? '',
    status: '요청',
    errReason: '',
    requestedAt: now,
    bankCd: sub.bankCd, accntNo: sub.accntNo, accntNm: sub.accntNm,
  };
  ds.payouts.push(payout);
  // The response example spells the duplicate-check flag dupYn.
  return { mid, subId, settlmntDt, settlmntAmt: amount, dupYn: dupChkYn, seq };
};

const cancel: Op = (ds, { body }, now) => {
  const mid = body['mid']!;
  const p = ds.payouts.find((x) => x.mid === mid && x.seq === body['seq']);
  if (!p || p.subId !== body['subId'] || p.settlmntDt !== body['settlmntDt'] || p.status === '삭제') {
    throw new DataHostRefusal('1104', '취소할 지급요청이 없습니다');
  }
  // Both are 1107 in the facts' meaning: a payout leaves 요청 only at 11:00, past the 10:30 cut-off.
  if (p.status !== '요청') throw new DataHostRefusal('1107', '처리가 완료된 지급은 되돌릴 수 없습니다');
  if (pastCutoff(p.settlmntDt, now)) throw new DataHostRefusal('1107', '지급취소는 지급일 10:30 이전에만 가능합니다');
  p.status = '삭제';
  return { mid, subId: p.subId, settlmntDt: p.settlmntDt, settlmntAmt: p.amount, seq: p.seq };
};

const results: Op = (ds, { body }, now) => {
  const mid = body['mid']!;
  const settlmntDt = body['settlmntDt']!;
  if (!resultsReady(settlmntDt, now)) throw new DataHostRefusal(SANDBOX_DATA_CODES.resultsNotReady, '지급결과는 지급일 16:00 이후 조회할 수 있습니다');
  const subId = body['subId'] ?? '';
  const rows = ds.payouts.filter((p) => p.mid === mid && p.settlmntDt === settlmntDt && (subId === '' || p.subId === subId));
  const detail = rows.map((p, i) => {
    const sub = ds.subMerchants.get(subKey(mid, p.subId));
    return {
      rowNo: i + 1,
      seq: p.seq,
      settlmntDt: p.settlmntDt,
      subCoNo: sub?.subCoNo ?? '',
      subCoNm: sub?.subNm ?? '',
      subId: p.subId,
      statusNm: p.status,
      settlmntAmt: p.amount,
      bankCd: p.bankCd,
      accntNm: p.accntNm,
      accntNo: mask(p.accntNo),
      errReason: p.errReason,
    };
  });
  return {
    totCnt: rows.length,
    succCnt: rows.filter((p) => p.status === '성공').length,
    failCnt: rows.filter((p) => p.status === '실패').length,
    remainAmt: balanceOf(ds, mid).remainAmt,
    detail,
  };
};

const OPS: Readonly<Record<string, Op>> = {
  [SID.balance]: balance,
  [SID.subMerchant]: subMerchant,
  [SID.payoutRequest]: request,
  [SID.payoutCancel]: cancel,
  [SID.payoutResults]: results,
};

/** Checks mid and encKey = sha256(sid + mid + trDtm + key): 1000 when either is wrong. */
function authenticate(state: SandboxState, req: DataHostRequest): void {
  const mid = req.body['mid'] ?? '';
  const merchant = state.merchants.get(mid);
  const expected = merchant ? payoutEncKey(req.sid, mid, req.trDtm, merchant.merchantKey) : '';
  if (!merchant || !hexEquals(expected, req.body['encKey'] ?? '')) throw new DataHostRefusal('1000', '가맹점 인증 실패');
}

/** The /om/api route. */
export const omApi: SandboxHandler = (httpReq, state) =>
  withFaults(state, () => {
    const ds = dataHostState(state);
    const now = state.clock.now();
    executePayouts(ds, now, executionDue);
    let sid = '';
    let raw: unknown;
    try {
      const req = readEnvelope(httpReq, now, state.rules.ediDateToleranceMs);
      sid = req.sid;
      raw = req.raw;
      const op = OPS[req.sid];
      const table = TABLES[req.sid];
      if (!op || !table) throw new DataHostRefusal('0102', `알 수 없는 sid: ${req.sid}`);
      checkBody(table, req.body);
      authenticate(state, req);
      const out = op(ds, req, now);
      return answer(state, sid, '0000', '정상처리', { ...out, reqInfo: req.raw });
    } catch (err) {
      if (err instanceof DataHostRefusal) return refusalAnswer(state, err, sid, raw);
      throw err;
    }
  }, peekSid(httpReq));
