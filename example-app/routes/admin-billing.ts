/**
 * Back-office subscriptions and cash receipts (mounted at /admin/billing, behind the login and
 * CSRF guard):
 *
 *   GET  /admin/billing                      subscriptions, this month's charge, past charges
 *   POST /admin/billing/:id/charge           "charge this month": nicepay.billing.charge with the
 *                                            Moid SUB-<id>-<YYYYMM> (KST month), so however often it is
 *                                            clicked (or on however many instances sharing the store)
 *                                            the month is charged once; 303 back
 *   POST /admin/billing/:id/remove           nicepay.billing.remove, then the subscription is ended
 *   GET  /admin/billing/receipts             paid bank-transfer orders and their cash receipts
 *   POST /admin/billing/receipts/:moid       nicepay.cashReceipt.issue for the order's amount (VAT 10%)
 */
import { Router, type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { ShopContext } from '../app.js';
import { audit, csrfInput } from '../admin-auth.js';
import { billingDb, PLAN } from '../db-billing.js';
import { operatorError } from '../korean.js';
import { html, won } from '../views.js';
import { adminPage, errorNotice, field, kstToday, okNotice } from './admin-page.js';

const CHARGE_LABEL = { approved: '결제 완료', declined: '결제 거절', failed: '확인 필요' } as const;

/** The back-office billing pages. */
export function adminBillingRoutes(ctx: ShopContext): Router {
  const { db, nicepay, logger } = ctx;
  const billing = billingDb(db, ctx.merchantKey);
  const router = Router();
  /** This KST month, YYYYMM, on the shop's clock. */
  const thisMonth = (): string => kstToday(ctx.clock()).slice(0, 6);

  function listPage(req: Request, res: Response, status: number, notice: { error?: string; ok?: string } = {}): void {
    const month = thisMonth();
    const rows = billing.subscriptions().map((s) => {
      const charges = billing.charges(s.id);
      const current = charges.find((c) => c.month === month);
      return html`<tr data-subscription="${s.id}" data-status="${s.status}"><td>${s.id}</td><td>${s.buyerName}</td><td>${s.cardName}</td><td class="bid">${s.bidMasked}</td>
<td class="month-status">${current ? `${CHARGE_LABEL[current.status]} ${won(current.amount)}` : s.status === 'active' ? '미청구' : '-'}</td>
<td class="charges">${charges.length}</td>
<td>${s.status === 'active' ? html`<form method="post" action="/admin/billing/${String(s.id)}/charge" class="inline">${csrfInput(req)}<button type="submit" id="charge-${String(s.id)}">이번 달 청구</button></form>
<form method="post" action="/admin/billing/${String(s.id)}/remove" class="inline">${csrfInput(req)}<button type="submit" class="secondary" id="remove-${String(s.id)}">카드 삭제</button></form>` : '해지됨'}</td></tr>`;
    });
    const history = billing.subscriptions().flatMap((s) => billing.charges(s.id)).map((c) => html`<tr data-moid="${c.moid}" data-status="${c.status}">
<td>${c.month.slice(0, 4)}-${c.month.slice(4)}</td><td>${String(c.subscriptionId)}</td><td class="moid">${c.moid}</td><td class="amount">${won(c.amount)}</td>
<td>${CHARGE_LABEL[c.status]}${c.message ? ` (${c.message})` : ''}</td><td class="tid">${c.tid}</td></tr>`);
    adminPage(req, res, status, '정기구독', html`${errorNotice(notice.error)}${okNotice(notice.ok)}
<p class="muted">${PLAN.name}, 매월 ${won(PLAN.price)}. 이번 달: ${month.slice(0, 4)}-${month.slice(4)} (KST). <a href="/admin/billing/receipts" id="receipts-link">현금영수증 발급</a></p>
${rows.length === 0 ? html`<p id="no-subscriptions" class="muted">구독이 없습니다.</p>`
  : html`<div class="table-wrap"><table id="subscriptions"><thead><tr><th>번호</th><th>구매자</th><th>카드</th><th>빌키</th><th>이번 달</th><th>청구 횟수</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`}
${history.length > 0 && html`<h2>청구 내역</h2><div class="table-wrap"><table id="subscription-charges"><thead><tr><th>월</th><th>구독</th><th>주문번호</th><th>금액</th><th>결과</th><th>TID</th></tr></thead><tbody>${history}</tbody></table></div>`}`);
  }

  router.get('/', (req, res) => {
    const ok = typeof req.query.ok === 'string' ? req.query.ok : undefined;
    listPage(req, res, 200, ok ? { ok } : {});
  });

  router.post('/:id/charge', async (req, res, next) => {
    const id = Number(req.params.id);
    const bid = billing.bidOf(id);
    if (!bid) return listPage(req, res, 404, { error: '청구할 수 있는 구독이 아닙니다 (해지되었거나 없는 구독).' });
    const month = thisMonth();
    const moid = `SUB-${id}-${month}`;
    try {
      const r = await nicepay.billing.charge({
        bid, moid, amount: PLAN.price, goodsName: `${PLAN.name} ${month.slice(4)}월`,
        // Recorded once per charge (the row's key is the Moid); a repeat sees the first result.
        onApproved: (a) => billing.recordCharge({ moid, subscriptionId: id, month, amount: a.amount, status: 'approved', tid: a.tid, message: '' }),
      });
      if (r.status === 'declined') billing.recordCharge({ moid, subscriptionId: id, month, amount: r.amount, status: 'declined', tid: r.tid, message: r.message });
      audit(logger, req, 'billing.charge', { subscription: id, moid, tid: r.tid, status: r.status, duplicate: r.duplicate });
      const text = r.status === 'approved' ? `${month.slice(4)}월 구독료 ${won(r.amount)}을 결제했습니다.` : `${month.slice(4)}월 결제가 거절되었습니다: ${r.message}`;
      res.redirect(303, `/admin/billing?ok=${encodeURIComponent(r.duplicate ? `이번 달은 이미 청구했습니다. ${text}` : text)}`);
    } catch (err) {
      const e = operatorError(err);
      if (!e) {
        if ((err as { code?: string }).code === 'NICEPAY_HOOK_FAILED') return listPage(req, res, 500, { error: '결제 후 기록에 실패해 결제를 취소했습니다. 다시 시도해 주세요.' });
        return next(err);
      }
      listPage(req, res, e.status, { error: e.message });
    }
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

  function receiptsPage(req: Request, res: Response, status: number, notice: { error?: string; ok?: string } = {}): void {
    const orders = db.orders().filter((o) => o.status === 'paid' && o.method === 'BANK');
    const rows = orders.map((o) => {
      const rc = billing.receipt(o.moid);
      return html`<tr data-moid="${o.moid}"><td>${o.moid}</td><td>${o.goods}</td><td class="amount">${won(o.amount)}</td>
<td class="receipt-status">${rc ? (rc.status === 'issued' ? `발급 (승인번호 ${rc.authCode})` : `거절: ${rc.message}`) : html`<form method="post" action="/admin/billing/receipts/${o.moid}" class="inline receipt-form">${csrfInput(req)}
<select name="type" aria-label="용도"><option value="income-deduction">소득공제</option><option value="expense-proof">지출증빙</option></select>
<input type="text" name="identity" aria-label="발급번호" placeholder="휴대폰 또는 사업자번호" required inputmode="numeric">
<button type="submit">발급</button></form>`}</td></tr>`;
    });
    adminPage(req, res, status, '현금영수증 발급', html`${errorNotice(notice.error)}${okNotice(notice.ok)}
<p class="muted">계좌이체로 결제된 주문에 현금영수증을 발급합니다 (부가세 10% 포함 금액). <a href="/admin/billing">정기구독</a></p>
${rows.length === 0 ? html`<p id="no-bank-orders" class="muted">계좌이체 주문이 없습니다.</p>`
  : html`<div class="table-wrap"><table id="bank-orders"><thead><tr><th>주문번호</th><th>상품</th><th>금액</th><th>현금영수증</th></tr></thead><tbody>${rows}</tbody></table></div>`}`);
  }

  router.get('/receipts', (req, res) => {
    const ok = typeof req.query.ok === 'string' ? req.query.ok : undefined;
    receiptsPage(req, res, 200, ok ? { ok } : {});
  });

  router.post('/receipts/:moid', async (req, res, next) => {
    const order = db.order(req.params.moid);
    if (!order || order.status !== 'paid' || order.method !== 'BANK') return receiptsPage(req, res, 404, { error: '현금영수증을 발급할 수 있는 주문이 아닙니다.' });
    const type = field(req.body, 'type') === 'expense-proof' ? 'expense-proof' : 'income-deduction';
    // VAT-inclusive price: supply is the amount / 1.1 rounded, VAT the rest (they add up exactly).
    const supply = Math.round(order.amount / 1.1);
    try {
      const r = await nicepay.cashReceipt.issue({
        moid: order.moid, amount: order.amount, supply, vat: order.amount - supply, goodsName: order.goods, type, identity: field(req.body, 'identity'),
        buyer: { name: order.buyerName },
      });
      billing.recordReceipt({ moid: order.moid, tid: r.tid, type, amount: r.amount, authCode: r.status === 'issued' ? r.authCode : '', status: r.status, message: r.status === 'refused' ? r.message : '' });
      audit(logger, req, 'cash-receipt.issue', { moid: order.moid, tid: r.tid, status: r.status });
      res.redirect(303, `/admin/billing/receipts?ok=${encodeURIComponent(r.status === 'issued' ? `${order.moid} 현금영수증을 발급했습니다.` : `발급이 거절되었습니다: ${r.message}`)}`);
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      receiptsPage(req, res, e.status, { error: e.message });
    }
  });
  return router;
}
