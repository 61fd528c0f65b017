/**
 * Back-office subscriptions and cash receipts (mounted at /admin/billing, behind the login and
 * CSRF guard):
 *
 *   GET  /admin/billing                      subscriptions, this month's charge, past charges
 *   POST /admin/billing/:id/charge           "charge this month" (KST month): the shop's own charges
 *                                            table is checked first (../db-billing.ts), so a paid month
 *                                            is never sent again, whatever is clicked, after a restart
 *                                            too; then nicepay.billing.charge with the attempt's Moid
 *                                            (SUB-<id>-<YYYYMM>, -2 ... after a decline); 303 back
 *   POST /admin/billing/charges/:moid/resolve an attempt whose outcome was lost: the operator records
 *                                            what NICEPAY's merchant admin shows (nothing is sent)
 *   POST /admin/billing/:id/remove           nicepay.billing.remove, then the subscription is ended
 *   GET  /admin/billing/receipts             paid bank-transfer orders and their cash receipts
 *   POST /admin/billing/receipts/:moid       nicepay.cashReceipt.issue for the order's amount (VAT 10%)
 */
import { Router, type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { ShopContext } from '../shop-context.js';
import { audit, csrfInput } from '../admin-auth.js';
import type { Order } from '../db.js';
import { billingDb, PLAN, type ChargeStatus, type Subscription, type SubscriptionCharge } from '../db-billing.js';
import { dataTable, type Column } from '../data-table.js';
import { operatorError } from '../korean.js';
import { html, won } from '../views.js';
import { isNicepayError } from '../../src/index.js';
import { adminPage, errorNotice, field, kstToday, okNotice } from './admin-page.js';

/** A charge attempt's state in the operator's words. */
export const CHARGE_LABEL: Readonly<Record<ChargeStatus, string>> = {
  charging: '처리 중',
  unknown: '확인 필요',
  approved: '결제 완료',
  declined: '결제 거절',
  failed: '결제 안 됨',
};

/** `202611` → `2026-11`. */
const monthLabel = (month: string): string => `${month.slice(0, 4)}-${month.slice(4)}`;

/** The back-office billing pages. */
export function adminBillingRoutes(ctx: ShopContext): Router {
  const { db, nicepay, logger } = ctx;
  const billing = billingDb(db, ctx.merchantKey);
  const router = Router();
  /** This KST month, YYYYMM, on the shop's clock. */
  const thisMonth = (): string => kstToday(ctx.clock()).slice(0, 6);

  /** Charge attempts whose call runs in this process (an open attempt not here was cut off). */
  const inFlight = new Set<string>();
  /** An open attempt the operator must settle: sent (or cut off) and its outcome unknown. */
  const needsOperator = (c: SubscriptionCharge): boolean =>
    c.status === 'unknown' || (c.status === 'charging' && !inFlight.has(c.moid));

  function listPage(req: Request, res: Response, status: number, notice: { error?: string; ok?: string } = {}): void {
    const month = thisMonth();
    const subscriptions = billing.subscriptions();
    const subColumns: Array<Column<Subscription>> = [
      { label: '번호', kind: 'id', cell: (s) => String(s.id) },
      { label: '구매자', kind: 'text', cell: (s) => s.buyerName },
      { label: '카드', kind: 'method', cell: (s) => s.cardName },
      { label: '빌키', kind: 'id', cell: (s) => s.bidMasked, extraClass: () => 'bid' },
      {
        label: '이번 달',
        kind: 'status',
        extraClass: () => 'month-status',
        cell: (s) => {
          const current = billing.monthCharge(s.id, month);
          return current
            ? `${CHARGE_LABEL[current.status]} ${won(current.amount)}`
            : s.status === 'active'
              ? '미청구'
              : '-';
        },
      },
      {
        label: '청구 횟수',
        kind: 'amount',
        extraClass: () => 'charges',
        cell: (s) => String(billing.charges(s.id).length),
      },
      {
        label: '관리',
        kind: 'actions',
        cell: (s) =>
          s.status === 'active'
            ? html`<form method="post" action="/admin/billing/${String(s.id)}/charge" class="inline">${csrfInput(req)}<button type="submit" id="charge-${String(s.id)}">이번 달 청구</button></form>
<form method="post" action="/admin/billing/${String(s.id)}/remove" class="inline">${csrfInput(req)}<button type="submit" class="secondary" id="remove-${String(s.id)}">카드 삭제</button></form>`
            : '해지됨',
      },
    ];
    const history = subscriptions.flatMap((s) => billing.charges(s.id));
    const chargeColumns: Array<Column<SubscriptionCharge>> = [
      { label: '월', kind: 'date', cell: (c) => monthLabel(c.month) },
      { label: '구독', kind: 'id', cell: (c) => String(c.subscriptionId) },
      { label: '주문번호', kind: 'moid', cell: (c) => c.moid },
      { label: '금액', kind: 'amount', cell: (c) => won(c.amount) },
      { label: '결과', kind: 'text', cell: (c) => `${CHARGE_LABEL[c.status]}${c.message ? ` (${c.message})` : ''}` },
      { label: 'TID', kind: 'tid', cell: (c) => c.tid || '-' },
      {
        label: '관리',
        kind: 'actions',
        cell: (c) =>
          needsOperator(c) &&
          html`<form method="post" action="/admin/billing/charges/${c.moid}/resolve" class="inline">${csrfInput(req)}<button type="submit" name="outcome" value="charged" id="resolve-charged-${c.moid}">결제된 것으로 기록</button></form>
<form method="post" action="/admin/billing/charges/${c.moid}/resolve" class="inline">${csrfInput(req)}<button type="submit" name="outcome" value="not-charged" class="secondary" id="resolve-not-charged-${c.moid}">결제되지 않은 것으로 기록</button></form>`,
      },
    ];
    adminPage(
      req,
      res,
      status,
      '정기구독',
      html`${errorNotice(notice.error)}${okNotice(notice.ok)}
<p class="muted">${PLAN.name}, 매월 ${won(PLAN.price)}. 이번 달: ${monthLabel(month)} (KST). 한 달에 한 번만 결제됩니다: 이미 결제된 달은 다시 보내지 않습니다. <a href="/admin/billing/receipts" id="receipts-link">현금영수증 발급</a></p>
${
  subscriptions.length === 0
    ? html`<p id="no-subscriptions" class="muted">구독이 없습니다.</p>`
    : dataTable('subscriptions', subColumns, subscriptions, (s) => ({ subscription: s.id, status: s.status }))
}
${
  history.length > 0 &&
  html`<h2>청구 내역</h2>${dataTable('subscription-charges', chargeColumns, history, (c) => ({ moid: c.moid, status: c.status }))}
${history.some(needsOperator) && html`<p class="muted" id="charge-unknown-note">"확인 필요" 청구는 결과를 알 수 없습니다. NICEPAY 가맹점 관리자에서 그 주문번호의 결제를 확인한 뒤 기록해 주세요. 기록 전에는 그 달을 다시 청구하지 않습니다. 이 버튼들은 NICEPAY에 아무것도 보내지 않습니다.</p>`}`
}`,
    );
  }

  router.get('/', (req, res) => {
    const ok = typeof req.query.ok === 'string' ? req.query.ok : undefined;
    listPage(req, res, 200, ok ? { ok } : {});
  });

  router.post('/:id/charge', async (req, res) => {
    const id = Number(req.params.id);
    const bid = billing.bidOf(id);
    if (!bid) return listPage(req, res, 404, { error: '청구할 수 있는 구독이 아닙니다 (해지되었거나 없는 구독).' });
    const month = thisMonth();
    const label = `${Number(month.slice(4))}월`;
    // The shop's own check, before anything is sent: a paid month is never charged again.
    const begun = billing.beginCharge(id, month, PLAN.price);
    if ('paid' in begun) {
      audit(logger, req, 'billing.charge.repeated', { subscription: id, moid: begun.paid.moid, tid: begun.paid.tid });
      return res.redirect(
        303,
        `/admin/billing?ok=${encodeURIComponent(`이번 달은 이미 청구했습니다. ${label} 구독료 ${won(begun.paid.amount)}이 결제되어 있습니다. 아무것도 보내지 않았습니다.`)}`,
      );
    }
    if ('open' in begun) {
      return listPage(req, res, 409, {
        error: inFlight.has(begun.open.moid)
          ? '이번 달 청구가 아직 처리 중입니다. 잠시 후 다시 확인해 주세요. 아무것도 보내지 않았습니다.'
          : `이번 달 청구(${begun.open.moid})의 결과를 알 수 없습니다. 청구 내역에서 결과를 기록하기 전에는 다시 청구하지 않습니다. 아무것도 보내지 않았습니다.`,
      });
    }
    const { moid } = begun.attempt;
    inFlight.add(moid);
    try {
      const r = await nicepay.billing.charge({
        bid,
        moid,
        amount: PLAN.price,
        goodsName: `${PLAN.name} ${label}`,
        onApproved: (a) => void billing.settleCharge(moid, { status: 'approved', tid: a.tid, amount: a.amount }),
      });
      if (r.status === 'declined')
        billing.settleCharge(moid, { status: 'declined', tid: r.tid, amount: r.amount, message: r.message });
      audit(logger, req, 'billing.charge', { subscription: id, moid, tid: r.tid, status: r.status });
      const text =
        r.status === 'approved'
          ? `${label} 구독료 ${won(r.amount)}을 결제했습니다.`
          : `${label} 결제가 거절되었습니다: ${r.message}`;
      res.redirect(303, `/admin/billing?ok=${encodeURIComponent(text)}`);
    } catch (err) {
      // Sent and not reversed (or not known to be): the month stays open until the operator checks.
      const unknown = !isNicepayError(err) || (err as { outcomeUnknown?: boolean }).outcomeUnknown === true;
      const e = operatorError(err);
      const tid = (err as { tid?: unknown }).tid;
      billing.settleCharge(moid, {
        status: unknown ? 'unknown' : 'failed',
        ...(typeof tid === 'string' && tid ? { tid } : {}),
        message: unknown ? '결과 모름' : e ? '보내지 못했거나 취소됨' : '처리 실패',
      });
      audit(logger, req, 'billing.charge.failed', {
        subscription: id,
        moid,
        code: (err as { code?: string }).code,
        outcomeUnknown: unknown,
      });
      const hookFailed = (err as { code?: string }).code === 'NICEPAY_HOOK_FAILED';
      listPage(req, res, e?.status ?? 502, {
        error: unknown
          ? '결제 결과를 알 수 없습니다. 청구 내역에서 NICEPAY 가맹점 관리자의 결과를 기록하기 전에는 이 달을 다시 청구하지 않습니다.'
          : hookFailed
            ? '결제 후 기록에 실패해 결제를 취소했습니다. 다시 청구할 수 있습니다.'
            : `${e?.message ?? '청구하지 못했습니다.'} 결제되지 않았습니다. 다시 청구할 수 있습니다.`,
      });
    } finally {
      inFlight.delete(moid);
    }
  });

  // An attempt whose outcome was lost (or cut off by a restart): the operator records what
  // NICEPAY's merchant admin shows. Nothing is sent; "not charged" lets the month be tried again.
  router.post('/charges/:moid/resolve', (req, res) => {
    const c = billing.charge(req.params.moid);
    if (!c || !needsOperator(c))
      return listPage(req, res, 409, { error: '결과를 기록할 청구가 아닙니다. 아무것도 바꾸지 않았습니다.' });
    const outcome = field(req.body, 'outcome');
    if (outcome !== 'charged' && outcome !== 'not-charged')
      return listPage(req, res, 400, { error: '결과를 선택해 주세요.' });
    billing.settleCharge(
      c.moid,
      outcome === 'charged'
        ? { status: 'approved', message: '운영자 확인: 결제됨' }
        : { status: 'failed', message: '운영자 확인: 결제되지 않음' },
    );
    audit(logger, req, 'billing.charge.resolved', {
      subscription: c.subscriptionId,
      moid: c.moid,
      outcome,
      by: 'operator',
    });
    res.redirect(
      303,
      `/admin/billing?ok=${encodeURIComponent(`${c.moid}: ${outcome === 'charged' ? '결제된 것으로' : '결제되지 않은 것으로'} 기록했습니다.`)}`,
    );
  });

  router.post('/:id/remove', async (req, res, next) => {
    const id = Number(req.params.id);
    const bid = billing.bidOf(id);
    if (!bid) return listPage(req, res, 404, { error: '삭제할 카드가 없습니다.' });
    try {
      const r = await nicepay.billing.remove({ bid, moid: `SUBRM-${id}-${randomBytes(4).toString('hex')}` });
      audit(logger, req, 'billing.remove', { subscription: id, status: r.status });
      if (r.status === 'refused') return listPage(req, res, 409, { error: `카드를 삭제하지 못했습니다: ${r.message}` });
      billing.markRemoved(id);
      res.redirect(303, `/admin/billing?ok=${encodeURIComponent(`구독 ${id}번의 카드를 삭제했습니다.`)}`);
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      listPage(req, res, e.status, { error: e.message });
    }
  });

  function receiptsPage(
    req: Request,
    res: Response,
    status: number,
    notice: { error?: string; ok?: string } = {},
  ): void {
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
          if (rc) return rc.status === 'issued' ? `발급 (승인번호 ${rc.authCode})` : `거절: ${rc.message}`;
          return html`<form method="post" action="/admin/billing/receipts/${o.moid}" class="inline receipt-form">${csrfInput(req)}
<select name="type" aria-label="용도"><option value="income-deduction">소득공제</option><option value="expense-proof">지출증빙</option></select>
<input type="text" name="identity" aria-label="발급번호" placeholder="휴대폰 또는 사업자번호" required inputmode="numeric">
<button type="submit">발급</button></form>`;
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

  router.get('/receipts', (req, res) => {
    const ok = typeof req.query.ok === 'string' ? req.query.ok : undefined;
    receiptsPage(req, res, 200, ok ? { ok } : {});
  });

  router.post('/receipts/:moid', async (req, res, next) => {
    const order = db.order(req.params.moid);
    if (order?.status !== 'paid' || order.method !== 'BANK')
      return receiptsPage(req, res, 404, { error: '현금영수증을 발급할 수 있는 주문이 아닙니다.' });
    const type = field(req.body, 'type') === 'expense-proof' ? 'expense-proof' : 'income-deduction';
    // VAT-inclusive price: supply is the amount / 1.1 rounded, VAT the rest (they add up exactly).
    const supply = Math.round(order.amount / 1.1);
    try {
      const r = await nicepay.cashReceipt.issue({
        moid: order.moid,
        amount: order.amount,
        supply,
        vat: order.amount - supply,
        goodsName: order.goods,
        type,
        identity: field(req.body, 'identity'),
        buyer: { name: order.buyerName },
      });
      billing.recordReceipt({
        moid: order.moid,
        tid: r.tid,
        type,
        amount: r.amount,
        authCode: r.status === 'issued' ? r.authCode : '',
        status: r.status,
        message: r.status === 'refused' ? r.message : '',
      });
      audit(logger, req, 'cash-receipt.issue', { moid: order.moid, tid: r.tid, status: r.status });
      res.redirect(
        303,
        `/admin/billing/receipts?ok=${encodeURIComponent(r.status === 'issued' ? `${order.moid} 현금영수증을 발급했습니다.` : `발급이 거절되었습니다: ${r.message}`)}`,
      );
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      receiptsPage(req, res, e.status, { error: e.message });
    }
  });
  return router;
}
