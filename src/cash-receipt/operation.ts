import type { ClientContext } from '../context.js';
import { cancelReversal } from '../cancel/reversal.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import type { AnswerTable, GatewayHolding, LedgerRecord, OperationKind, OwnTidOperation } from '../pipeline/index.js';
import { chargeTable, type SentCharge, sentCharge } from '../keyin/card-charge.js';
import { createReconClient } from '../recon/recon-client.js';
import { secretDigest } from '../util/secret-digest.js';
import { kstDate8, kstTimestamp14, parseKstTimestamp } from '../wire/kst.js';
import { RECEIPT_ISSUED_CODE, RECEIPT_PATH } from '../wire/receipt-fields.js';
import { frozenFields } from '../wire/payment-mapper.js';
import { ownField } from '../wire/response-body.js';
import { issueTid } from '../wire/tid.js';
import { buildReceiptForm } from './request.js';
import type { CashReceiptResult } from './types.js';
import type { NormalizedReceipt } from './validate.js';
import { EUC_KR_FORM } from '../wire/content-type.js';

/** How long a receipt's closed record answers repeats of its Moid. */
export const RECEIPT_RESULT_TTL_MS = 35 * 24 * 60 * 60 * 1000;

/** A day, to query the reconciliation of the day after a receipt's too (one issued near midnight). */
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The cash-receipt kind of the ledger (billing-facts §2): a record per Moid, its result the
 * issued receipt or the refusal, reversed by a cancel of the whole amount, its state learned by
 * reconciliation (interface D, orgSvcCd 04) with the client's `settle.reconciliation` login.
 */
export function cashReceiptKind(ctx: ClientContext): OperationKind<CashReceiptResult> {
  return {
    op: 'cash-receipt',
    what: 'cash receipt',
    keepMs: RECEIPT_RESULT_TTL_MS,
    result: receiptResult,
    reversal: (r) => cancelReversal(ctx.config, r),
    inquire: (r) => holdingByRecon(ctx, r),
  };
}

function receiptResult(r: LedgerRecord, duplicate: boolean): CashReceiptResult {
  const { tid, moid, amount } = r;
  const raw = frozenFields(r.fields ?? {});
  if (r.state === 'declined')
    return { status: 'refused', code: r.resultCode ?? '', message: r.reason ?? '', tid, moid, amount, duplicate, raw };
  return {
    status: 'issued',
    tid,
    moid,
    amount,
    authCode: ownField(raw, 'AuthCode') ?? '',
    authDate: parseKstTimestamp(ownField(raw, 'AuthDate') ?? ''),
    duplicate,
    raw,
  };
}

/**
 * Whether reconciliation lists the receipt: approved (held), cancelled (reversed) or not at all.
 * Its day and the next are asked (a receipt sent just before midnight KST may carry the next
 * date). Not listed is unclear, not "none": the interface does not say how soon a receipt
 * appears in its day's list, so the receipt is cancelled, and the cancel's answer tells (no such
 * transaction: never issued).
 */
async function holdingByRecon(ctx: ClientContext, r: LedgerRecord): Promise<GatewayHolding> {
  const login = ctx.config.settle.reconciliation;
  if (!login)
    throw new Error(
      'settle.reconciliation (the merchant admin login usrId) is not configured, so reconciliation cannot be asked',
    );
  const recon = createReconClient(ctx);
  const days = [r.at, r.at + DAY_MS].map((at) => kstDate8(new Date(at)));
  for (const dt of days) {
    const list = await recon.cashReceipts({
      usrId: login.usrId,
      dt,
      orgSvcCd: '04',
      idCl: login.idCl,
      searchID: login.searchID,
    });
    const found = list.items.filter((item) => item.tid === r.tid);
    if (found.some((item) => item.state === 'cancel' || item.ccDt !== '')) return 'reversed';
    if (found.length > 0) return 'holds';
  }
  return 'unclear';
}

/**
 * A receipt's answer table (billing-facts §2): 7001 naming our TID, with an AuthCode, is issued
 * (an MID, Moid or ReceiptAmt it carries must be ours); the facts publish no failure codes, so
 * every other exact code is a refusal.
 */
export function receiptTable(sent: SentCharge): AnswerTable {
  return chargeTable(sent, {
    success: new Set([RECEIPT_ISSUED_CODE]),
    amount: { field: 'ReceiptAmt', value: sent.amount, optional: true },
    required: ['AuthCode'],
  });
}

/** One receipt, as the ledger runs it: once per Moid, bound to the amount, type and identity. */
export function cashReceiptCall(
  ctx: ClientContext,
  kind: OperationKind<CashReceiptResult>,
  n: NormalizedReceipt,
): OwnTidOperation<CashReceiptResult> {
  const { config } = ctx;
  // One reading of the clock: the TID's time part and EdiDate name the same second.
  const now = config.clock();
  return {
    kind,
    drawTid: () => issueTid(config.mid, '04', '01', now),
    call: (tid) => ({
      kind,
      key: `cash-receipt:${config.mid}:${n.moid}`,
      start: {
        tid,
        moid: n.moid,
        amount: n.amount,
        binding: secretDigest(config.merchantKey, 'cash-receipt', String(n.amount), n.receiptType, n.identity),
      },
      mismatch: {
        field: 'moid',
        message: (own) =>
          `order ${own.moid} already has a cash receipt request with another amount, type or identity; nothing was sent`,
      },
      send: {
        url: gatewayEndpoint(config.baseUrl, RECEIPT_PATH),
        ids: { tid, moid: n.moid },
        request: () => ({
          body: buildReceiptForm(n, config.mid, config.merchantKey, tid, kstTimestamp14(now)),
          contentType: EUC_KR_FORM,
        }),
        table: receiptTable(sentCharge(config.mid, tid, n)),
      },
      // The receipt's identity (a phone or business number) is never kept, even echoed.
      keep: (fields) => Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'ReceiptTypeNo')),
      refusal: 'kept',
    }),
  };
}
