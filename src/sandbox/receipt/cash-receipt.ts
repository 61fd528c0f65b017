import { randomInt } from 'node:crypto';
import { padAmount, parseAmount } from '../../wire/amount.js';
import type { FormFields } from '../../wire/form-codec.js';
import { hexEquals } from '../../wire/hash.js';
import { kstTimestamp12, kstTimestamp14 } from '../../wire/kst.js';
import {
  RECEIPT_ISSUED_CODE,
  RECEIPT_REQUEST_FIELDS,
  type ReceiptPurpose,
  receiptIdentityProblem,
  receiptSignData,
} from '../../wire/receipt-fields.js';
import { badField, checkCommon } from '../billing/common.js';
import { field, readForm } from '../form-fields.js';
import { BILLING_CODES, type BillingCode } from '../billing/codes.js';
import { replyWithFault } from '../keyin/fault-reply.js';
import { balanceOf, dataHostState, mask } from '../data-host/state.js';
import { checkGatewayTime } from '../gateway-time.js';
import type { LedgerEntry, LedgerStatus } from '../ledger.js';
import { moduleSlot } from '../module-state.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';

/**
 * Result codes of the receipt endpoint: 7001 is from docs/spec/billing-facts.md §2; the facts
 * publish no failure codes, so the others are the sandbox's own (request-level ones shared
 * with its billing and key-in endpoints).
 */
export const RECEIPT_CODES = {
  issued: { code: RECEIPT_ISSUED_CODE, message: '현금영수증 발급 성공' },
  amountsDoNotAddUp: { code: '7011', message: '공급가액·부가세·봉사료·면세금액의 합이 발급금액과 다릅니다' },
  badIdentity: { code: '7012', message: '현금영수증 발급번호(ReceiptTypeNo)가 발급 용도에 맞지 않습니다' },
  alreadyIssued: { code: '7013', message: '이미 현금영수증이 발급된 주문번호입니다' },
} as const;

/** The receipt module's books: TIDs seen (duplicates are refused). */
interface ReceiptModuleState {
  tids: Set<string>;
}

/**
 * The module's state; creating it also starts watching the ledger: a receipt moves no money,
 * so when a cancel (the ordinary one on its TID, or the 23:30 KST sweep of a test merchant)
 * takes its amount out of the payout balance, it goes back. The data host marks the receipt
 * itself cancelled in reconciliation (its orgTid is its own TID).
 */
function receiptState(state: SandboxState): ReceiptModuleState {
  return moduleSlot<ReceiptModuleState>(state, 'cash-receipt', () => {
    state.ledger.onChange((entry: LedgerEntry, previous: LedgerStatus | undefined) => {
      if (entry.extra.service !== 'cash-receipt' || entry.status !== 'cancelled' || previous !== 'approved') return;
      balanceOf(dataHostState(state), entry.mid).remainAmt += entry.amount;
    });
    return { tids: new Set() };
  });
}

/**
 * POST /webapi/cash_receipt.jsp (billing-facts §2). Checks the merchant, the table (sizes in
 * EUC-KR bytes), EdiDate, the TID (MID + 04 + 01 + KST time + 4 characters), SignData =
 * sha256(MID + ReceiptAmt + EdiDate + Moid + key), a TID seen before, the amounts adding up
 * (or all four 0: not split),
 * ReceiptTypeNo fitting ReceiptType, and an order already holding a live receipt; then issues
 * (7001). The receipt is booked in the ledger (source 'keyin', `extra.service`
 * 'cash-receipt', no balance credit) so the ordinary cancel finds its TID, and in the data
 * host's receipts with orgSvcCd 04, where reconciliation lists it. Faults: target 'cash-receipt'.
 */
export function cashReceipt(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const form = readForm(req);
  return replyWithFault(state, 'cash-receipt', form, {
    process: () => issue(form, state),
    notCommitted: (code, message) =>
      answer(form ?? {}, {
        code: code ?? BILLING_CODES.issuerTimeout.code,
        message: message ?? BILLING_CODES.issuerTimeout.message,
      }),
  });
}

function issue(form: FormFields | undefined, state: SandboxState): Record<string, string> {
  const books = receiptState(state);
  const checked = checkCommon(form, RECEIPT_REQUEST_FIELDS, state);
  if ('refusal' in checked) return answer(form ?? {}, checked.refusal);
  const f = form!;
  const { merchant, now } = checked;
  const mid = merchant.mid;
  const tid = field(f, 'TID');
  if (
    !tid.startsWith(`${mid}0401`) ||
    checkGatewayTime(tid.slice(14, 26), now) ||
    !/^[0-9A-Za-z]{4}$/.test(tid.slice(26))
  )
    return answer(f, BILLING_CODES.badTid);
  const amt = field(f, 'ReceiptAmt');
  const moid = field(f, 'Moid');
  if (!hexEquals(receiptSignData(mid, amt, field(f, 'EdiDate'), moid, merchant.merchantKey), field(f, 'SignData')))
    return answer(f, BILLING_CODES.badSignature);
  if (books.tids.has(tid) || state.ledger.get(tid)) return answer(f, BILLING_CODES.duplicateTid);
  books.tids.add(tid);
  const amount = parseAmount(amt);
  if (!amount) return answer(f, badField('ReceiptAmt'));
  if (!partsFit(f, amount)) return answer(f, RECEIPT_CODES.amountsDoNotAddUp);
  const purpose: ReceiptPurpose = field(f, 'ReceiptType') === '1' ? 'income-deduction' : 'expense-proof';
  const identity = field(f, 'ReceiptTypeNo');
  if (receiptIdentityProblem(purpose, identity)) return answer(f, RECEIPT_CODES.badIdentity);
  if (state.ledger.byMoid(mid, moid).some((e) => e.extra.service === 'cash-receipt' && e.status === 'approved'))
    return answer(f, RECEIPT_CODES.alreadyIssued);

  const authCode = String(randomInt(100_000_000, 999_999_999));
  // Booked as 'authenticated' and then marked approved in place: the data host's feed credits
  // the payout balance for every approval, and a receipt moves no money.
  const entry: LedgerEntry = {
    tid,
    mid,
    moid,
    amount,
    method: 'BANK',
    status: 'authenticated',
    source: 'keyin',
    goodsName: field(f, 'GoodsName'),
    buyerName: field(f, 'BuyerName'),
    createdAt: now,
    approvalCalls: 1,
    extra: { service: 'cash-receipt', authCode },
  };
  state.ledger.add(entry);
  entry.status = 'approved';
  entry.approvedAt = now;
  const t = kstTimestamp14(now);
  dataHostState(state).receipts.push({
    mid,
    tid,
    orgTid: tid,
    orgSvcCd: '04',
    moid,
    goodsNm: field(f, 'GoodsName'),
    goodsAmt: amount,
    appDt: t.slice(0, 8),
    appTm: t.slice(8),
    ccDt: '',
    ccTm: '',
    stateCd: '0',
    appNo: authCode,
    ccNo: '',
    ordNm: field(f, 'BuyerName'),
    identity: mask(identity),
    status: '0',
    reqFlg: purpose === 'income-deduction' ? '1' : '2',
  });
  return answer(f, RECEIPT_CODES.issued, { AuthCode: authCode, AuthDate: kstTimestamp12(now) });
}

/**
 * Whether the four amount parts fit ReceiptAmt: they add up to it, or all four are 0, which
 * public merchant code sends to mean "not split" (the facts say only that they add up). Parts
 * that are not all 0 and do not add up are refused (7011).
 */
function partsFit(f: FormFields, amount: number): boolean {
  const parts = ['ReceiptSupplyAmt', 'ReceiptVAT', 'ReceiptServiceAmt', 'ReceiptTaxFreeAmt'].map(
    (k) => parseAmount(field(f, k)) ?? Number.NaN,
  );
  return parts.every((p) => p === 0) || parts.reduce((a, b) => a + b, 0) === amount;
}

/** The receipt answer: ResultCode, ResultMsg, TID, AuthCode, AuthDate, plus MID, Moid and the 12-digit ReceiptAmt. */
function answer(form: FormFields, result: BillingCode, extra: Record<string, string> = {}): Record<string, string> {
  const amount = parseAmount(field(form, 'ReceiptAmt'));
  return {
    ResultCode: result.code,
    ResultMsg: result.message,
    TID: field(form, 'TID'),
    AuthCode: '',
    AuthDate: '',
    ...extra,
    MID: field(form, 'MID'),
    Moid: field(form, 'Moid'),
    ReceiptAmt: amount === undefined ? '' : padAmount(amount),
  };
}
