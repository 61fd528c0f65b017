import { amount, list, object, pick, text, type JsonObject } from '../data-api/lenient.js';
import { SID } from '../data-api/envelope.js';
import type {
  BalanceEntryKind,
  BalanceLastEntry,
  PayoutBalance,
  PayoutResultItem,
  PayoutResults,
  PayoutStatus,
} from './types.js';

/*
 * Response bodies of the payout sids into the public types. Spelling variants of the
 * official examples are accepted (lastCl, dupYn); numbers may come as numbers or strings.
 */

const LASTCL: Readonly<Record<string, BalanceEntryKind>> = { '00': 'settlement', '01': 'deposit', '10': 'payout' };

/** statusNm values of gateway-interface.md "Payout result status"; blanks ignored. */
const STATUS: Readonly<Record<string, PayoutStatus>> = {
  요청: 'requested',
  성공: 'succeeded',
  실패: 'failed',
  재요청진행중: 'retrying',
  삭제: 'deleted',
};

/** The public status of a statusNm. */
export function payoutStatus(statusNm: string): PayoutStatus {
  return STATUS[statusNm.replace(/\s+/g, '')] ?? 'unknown';
}

/** The kind of a lastcl code. */
export function balanceEntryKind(lastcl: string): BalanceEntryKind {
  return LASTCL[lastcl.trim()] ?? 'unknown';
}

/** 0101001 body. `last` may be an object (spec) or flattened into the body. */
export function mapBalance(body: JsonObject): PayoutBalance {
  const sid = SID.balance;
  const lastObj = object(body, 'last') ?? (pick(body, 'lastcl', 'lastCl') !== undefined ? body : undefined);
  let last: BalanceLastEntry | undefined;
  if (lastObj) {
    const lastcl = text(lastObj, 'lastcl', 'lastCl');
    if (lastcl !== '' || pick(lastObj, 'lastAmt') !== undefined) {
      last = {
        kind: balanceEntryKind(lastcl),
        lastcl,
        amount: amount(lastObj, sid, 'lastAmt', 'lastamt'),
        date: text(lastObj, 'lastDt', 'lastdt'),
      };
    }
  }
  return { mid: text(body, 'mid'), remainAmt: amount(body, sid, 'remainAmt'), last, raw: body };
}

/** One detail item of 0101002. */
export function mapResultItem(item: JsonObject): PayoutResultItem {
  const sid = SID.payoutResults;
  const statusNm = text(item, 'statusNm');
  return {
    rowNo: amount(item, sid, 'rowNo'),
    seq: text(item, 'seq'),
    settlmntDt: text(item, 'settlmntDt'),
    subId: text(item, 'subId'),
    subCoNo: text(item, 'subCoNo'),
    subCoNm: text(item, 'subCoNm', 'subNm'),
    status: payoutStatus(statusNm),
    statusNm,
    amount: amount(item, sid, 'settlmntAmt'),
    bankCd: text(item, 'bankCd'),
    accntNm: text(item, 'accntNm'),
    accntNo: text(item, 'accntNo'),
    errReason: text(item, 'errReason'),
    raw: item,
  };
}

/** 0101002 body. */
export function mapResults(body: JsonObject): PayoutResults {
  const sid = SID.payoutResults;
  return {
    totCnt: amount(body, sid, 'totCnt'),
    succCnt: amount(body, sid, 'succCnt'),
    failCnt: amount(body, sid, 'failCnt'),
    remainAmt: amount(body, sid, 'remainAmt'),
    items: list(body, 'detail').map(mapResultItem),
    raw: body,
  };
}
