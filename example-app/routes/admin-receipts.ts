/**
 * Back-office cash receipts (mounted at /admin/billing/receipts, behind the login and CSRF guard):
 *
 *   GET  /admin/billing/receipts             paid bank-transfer orders and their cash receipts
 *   POST /admin/billing/receipts/:moid       nicepay.cashReceipt.issue for the order's amount (VAT 10%)
 *   POST /admin/billing/receipts/:moid/cancel  nicepay.cancel of the receipt of a refunded order
 *
 * A receipt is offered only for an order paid in full and never refunded whose buyer took none in
 * the payment window (the window's own receipt is in the order's result): one receipt per
 * payment. A receipt issued before the order was refunded is offered for cancel: the tax office
 * must not keep a receipt for money the buyer got back.
 *
 * A receipt whose answer was lost is the package's to settle (cancelled in full, or found never
 * issued; docs/reliability.md): while nicepay.unsettled() lists it, the page says so and the
 * order's receipt is not issued again (409).
 */
import type { Router, Request, Response } from 'express';
import { shopRouter } from './router.js';
import { redirectWithNotice, takeNotice } from '../admin-notice.js';
import type { ShopContext } from '../shop-context.js';
import { audit, csrfInput } from '../admin-auth.js';
import type { Order } from '../db.js';
import { billingDb, type CashReceiptRow } from '../db-billing.js';
import { dataTable, type Column } from '../data-table.js';
import { operatorError } from '../korean.js';
import { heldRecords } from '../package-held.js';
import type { CheckoutResult } from '../../src/index.js';
import { html, kstDateTime, won } from '../views.js';
import { adminPage, errorNotice, field, okNotice } from './admin-page.js';

/** The receipt the buyer took in the payment window with a bank transfer, if any (the order's result). */
function windowReceipt(o: Order): 'income-deduction' | 'expense-proof' | undefined {
  const r = o.result ? (JSON.parse(o.result) as CheckoutResult) : undefined;
  if (r?.status !== 'approved' || r.payment.method !== 'BANK') return undefined;
  const { type } = r.payment.cashReceipt;
  return type === 'none' ? undefined : type;
}

/** The words of a receipt type. */
const TYPE_LABEL = { 'income-deduction': '소득공제용', 'expense-proof': '지출증빙용' } as const;

/** The won the buyer kept: what a receipt may be issued for. */
const kept = (o: Order): number => o.amount - o.refundedAmount;

/**
 * What an order's receipt allows now. One receipt stands for the money the buyer kept: none
 * while the window gave one or a refund took everything back; one for what was kept; and one
 * issued for more than was kept (a refund came after it) is cancelled, then issued anew for
 * what was kept, under a Moid of its own.
 */
function receiptStep(o: Order, rc: CashReceiptRow | undefined): 'issue' | 'cancel' | 'none' {
  if (windowReceipt(o)) return 'none';
  if (rc?.status === 'issued') return rc.amount > kept(o) ? 'cancel' : 'none';
  return kept(o) > 0 ? 'issue' : 'none';
}

/** What an attempt the package closed without a receipt says (its answer was lost). */
export const NOT_ISSUED = '응답을 받지 못해 발급되지 않았습니다';

/** True when the issue call failed and the package closed it: nothing was issued. */
const attemptFailed = (err: unknown): boolean => {
  const settlement = (err as { settlement?: unknown } | null)?.settlement;
  return settlement === 'reversed' || settlement === 'never-charged';
};

/** The Moid of an order's next receipt: the order's own first, then `<moid>-R<n>`. */
const nextReceipt = (o: Order, rc: CashReceiptRow | undefined): { receiptMoid: string; attempt: number } => {
  const attempt = (rc?.attempt ?? 0) + 1;
  return { receiptMoid: attempt === 1 ? o.moid : `${o.moid}-R${attempt}`, attempt };
};

/** The cash-receipt pages. */
export function adminReceiptRoutes(ctx: ShopContext): Router {
  const { db, nicepay, logger } = ctx;
  const billing = billingDb(db, ctx.merchantKey);
  const router = shopRouter();

  async function receiptsPage(
    req: Request,
    res: Response,
    status: number,
    notice: { error?: string; ok?: string } = {},
  ): Promise<void> {
    // A receipt whose answer was lost is the package's to settle (cancelled in full, or never
    // issued): no new issue of that order is offered meanwhile.
    const held = await heldRecords(ctx, 'cash-receipt');
    const orders = db.orders().filter((o) => o.status === 'paid' && o.method === 'BANK');
    const columns: Array<Column<Order>> = [
      { label: '주문번호', kind: 'moid', cell: (o) => o.moid },
      { label: '상품', kind: 'goods', cell: (o) => o.goods },
      { label: '금액', kind: 'amount', cell: (o) => won(o.amount) },
      {
        label: '현금영수증',
        kind: 'text',
        extraClass: () => 'receipt-status',
        cell: (o) => {
          const rc = billing.receipt(o.moid);
          const step = receiptStep(o, rc);
          const u = held?.get(o.moid)?.[0] ?? (rc && held?.get(rc.receiptMoid)?.[0]);
          if (u)
            return html`<span class="settling" id="receipt-settling-${o.moid}">결제 모듈이 정산 중: ${u.reason}. 다음 확인 ${kstDateTime(u.nextAttemptAt)}</span>`;
          if (step === 'cancel')
            return html`<span id="receipt-refunded-${o.moid}">발급 ${won(rc!.amount)} (승인번호 ${rc!.authCode}): 환불 뒤 남은 금액은 ${won(kept(o))}입니다. 취소한 뒤 남은 금액으로 다시 발급합니다</span>
<form method="post" action="/admin/billing/receipts/${o.moid}/cancel" class="inline">${csrfInput(req)}<button type="submit" id="receipt-cancel-${o.moid}">현금영수증 취소</button></form>`;
          if (rc?.status === 'issued') return `발급 ${won(rc.amount)} (승인번호 ${rc.authCode})`;
          const taken = windowReceipt(o);
          if (taken) return html`<span id="receipt-window-${o.moid}">결제창에서 ${TYPE_LABEL[taken]} 발급</span>`;
          if (step === 'none')
            return html`<span id="receipt-none-${o.moid}">전액 환불된 주문: 발급하지 않습니다</span>`;
          const before =
            rc?.status === 'cancelled'
              ? html`<span class="muted">이전 영수증 취소됨. </span>`
              : rc?.status === 'refused'
                ? html`<span class="muted" id="receipt-refused-${o.moid}">거절: ${rc.message}. 다시 발급할 수 있습니다. </span>`
                : '';
          return html`${before}<form method="post" action="/admin/billing/receipts/${o.moid}" class="inline receipt-form">${csrfInput(req)}
<select name="type" aria-label="용도"><option value="income-deduction">소득공제</option><option value="expense-proof">지출증빙</option></select>
<input type="text" name="identity" aria-label="발급번호" placeholder="휴대폰 또는 사업자번호" required inputmode="numeric">
<button type="submit">${won(kept(o))} 발급</button></form>`;
        },
      },
    ];
    adminPage(
      req,
      res,
      status,
      '현금영수증 발급',
      html`${errorNotice(notice.error)}${okNotice(notice.ok)}
<p class="muted">계좌이체로 결제된 주문에 현금영수증을 발급합니다 (부가세 10% 포함 금액). <a href="/admin/billing">정기구독</a></p>
${orders.length === 0 ? html`<p id="no-bank-orders" class="muted">계좌이체 주문이 없습니다.</p>` : dataTable('bank-orders', columns, orders, (o) => ({ moid: o.moid }))}`,
    );
  }

  router.get('/', async (req, res) => {
    await receiptsPage(req, res, 200, takeNotice(req));
  });

  router.post('/:moid', async (req, res, next) => {
    const order = db.order(req.params.moid);
    if (order?.status !== 'paid' || order.method !== 'BANK')
      return receiptsPage(req, res, 404, { error: '현금영수증을 발급할 수 있는 주문이 아닙니다.' });
    const rc = billing.receipt(order.moid);
    if (receiptStep(order, rc) !== 'issue')
      return receiptsPage(req, res, 409, {
        error: `${order.moid}에는 지금 현금영수증을 발급하지 않습니다: 전액 환불되었거나, 이미 발급되었거나, 결제창에서 발급된 주문입니다. 아무것도 보내지 않았습니다.`,
      });
    const attempt = nextReceipt(order, rc);
    const held = await heldRecords(ctx, 'cash-receipt');
    if (!held || held.has(order.moid) || held.has(attempt.receiptMoid))
      return receiptsPage(req, res, 409, {
        error: `${order.moid}의 현금영수증은 결제 모듈이 정산하고 있습니다. 정산이 끝난 뒤 다시 발급할 수 있습니다. 아무것도 보내지 않았습니다.`,
      });
    const type = field(req.body, 'type') === 'expense-proof' ? 'expense-proof' : 'income-deduction';
    // VAT-inclusive price: supply is the amount / 1.1 rounded, VAT the rest (they add up exactly).
    const amount = kept(order);
    const supply = Math.round(amount / 1.1);
    try {
      const r = await nicepay.cashReceipt.issue({
        moid: attempt.receiptMoid,
        amount,
        supply,
        vat: amount - supply,
        goodsName: order.goods,
        type,
        identity: field(req.body, 'identity'),
        buyer: { name: order.buyerName },
      });
      billing.recordReceipt({
        moid: order.moid,
        ...attempt,
        tid: r.tid,
        type,
        amount: r.amount,
        authCode: r.status === 'issued' ? r.authCode : '',
        status: r.status,
        message: r.status === 'refused' ? r.message : '',
      });
      audit(logger, req, 'cash-receipt.issue', { moid: order.moid, tid: r.tid, status: r.status });
      redirectWithNotice(
        req,
        res,
        '/admin/billing/receipts',
        r.status === 'issued'
          ? { ok: `${order.moid} 현금영수증을 발급했습니다.` }
          : { error: `발급이 거절되었습니다: ${r.message}` },
      );
    } catch (err) {
      // An attempt whose answer was lost and that the package closed at once (reversed, or
      // found never made) issued nothing: recorded as failed, so the next one has a Moid of its
      // own (the same Moid is answered from the package's closed record, never sent again).
      if (attemptFailed(err))
        billing.recordReceipt({
          moid: order.moid,
          ...attempt,
          tid: '',
          type,
          amount,
          authCode: '',
          status: 'refused',
          message: NOT_ISSUED,
        });
      const e = operatorError(err);
      if (!e) return next(err);
      receiptsPage(req, res, e.status, { error: e.message });
    }
  });

  router.post('/:moid/cancel', async (req, res, next) => {
    const order = db.order(req.params.moid);
    const rc = order && billing.receipt(order.moid);
    if (!order || receiptStep(order, rc) !== 'cancel')
      return receiptsPage(req, res, 409, {
        error:
          '취소할 현금영수증이 아닙니다: 환불 뒤 남은 금액보다 많이 발급된 영수증만 취소합니다. 아무것도 보내지 않았습니다.',
      });
    try {
      // A receipt is cancelled in full, on its own TID and Moid (docs/cash-receipts.md).
      const r = await nicepay.cancel({ tid: rc!.tid, moid: rc!.receiptMoid, amount: rc!.amount, reason: '주문 환불' });
      audit(logger, req, 'cash-receipt.cancel', { moid: order.moid, tid: rc!.tid, status: r.status });
      if (r.status === 'refused')
        return receiptsPage(req, res, 409, { error: `현금영수증 취소가 거절되었습니다: ${r.message}` });
      billing.cancelReceipt(order.moid);
      redirectWithNotice(req, res, '/admin/billing/receipts', { ok: `${order.moid} 현금영수증을 취소했습니다.` });
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      receiptsPage(req, res, e.status, { error: e.message });
    }
  });
  return router;
}
