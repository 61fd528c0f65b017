/**
 * Back-office orders (mounted at /admin/orders, behind the login and CSRF guard):
 *
 *   GET  /admin/orders                   paid and virtual-account orders with what is left to refund
 *   GET  /admin/orders/:moid             one order: refund form (full or partial; a paid virtual
 *                                        account needs a refund account), deposit button on the sandbox
 *   POST /admin/orders/:moid/refund      step 1: confirmation with the amount and the order;
 *                                        step 2 (confirm=yes): nicepay.cancel, then 303 back
 *   POST /admin/orders/:moid/deposit     embedded sandbox only: sandbox.deposit (the buyer pays the
 *                                        virtual account; the notice reaches /pay/notify)
 *
 * The confirmation page carries a fresh idempotency key, so a double-clicked confirm refunds
 * once (nicepay.cancel runs once per TID, amount and key); the shop's remaining amount goes
 * along, so a refund larger than it is refused before anything is sent. Each refund leaves
 * an audit line.
 */
import { Router, type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { ShopContext } from '../app.js';
import { audit, csrfInput } from '../admin-auth.js';
import type { Order } from '../db.js';
import { BANKS, CANCEL_REFUSAL, operatorError } from '../korean.js';
import { METHOD_LABEL, STATUS_LABEL, bankSelect, html, won } from '../views.js';
import type { PayMethod } from '../../src/index.js';
import { adminPage, errorNotice, field, okNotice } from './admin-page.js';
import { displayStatus } from './orders.js';

interface RefundForm { amount: string; reason: string; bankCode: string; number: string; holder: string }

/** What is still refundable. */
const remaining = (o: Order): number => o.amount - o.refundedAmount;
/** A paid virtual account is refunded to an account; an unpaid one is cancelled without one. */
const needsRefundAccount = (o: Order): boolean => o.method === 'VBANK' && o.status === 'paid';
const refundable = (o: Order): boolean => (o.status === 'paid' || o.status === 'awaiting-deposit') && o.tid !== null && remaining(o) > 0;

/** The back-office order pages. */
export function adminOrderRoutes(ctx: ShopContext): Router {
  const { db, nicepay, logger, sandbox } = ctx;
  const router = Router();

  router.get('/', (req, res) => {
    const rows = db.orders().filter((o) => o.tid !== null && o.status !== 'declined').map((o) => html`<tr data-moid="${o.moid}" data-status="${displayStatus(o)}">
<td class="moid"><a href="/admin/orders/${o.moid}">${o.moid}</a></td><td class="goods">${o.goods}</td><td class="method">${METHOD_LABEL[o.method as PayMethod] ?? o.method}</td>
<td class="amount">${won(o.amount)}</td><td class="amount">${won(o.refundedAmount)}</td><td class="amount">${won(remaining(o))}</td>
<td class="status status-${displayStatus(o)}">${STATUS_LABEL[displayStatus(o)] ?? o.status}</td></tr>`);
    adminPage(req, res, 200, '주문 관리', rows.length === 0 ? html`<p id="no-admin-orders" class="muted">결제된 주문이 없습니다.</p>`
      : html`<div class="table-wrap"><table id="admin-orders"><thead><tr><th>주문번호</th><th>상품</th><th>결제수단</th><th>결제 금액</th><th>환불</th><th>남은 금액</th><th>상태</th></tr></thead><tbody>${rows}</tbody></table></div>`);
  });

  function orderPage(req: Request, res: Response, status: number, o: Order, opts: { error?: string; ok?: string; values?: Partial<RefundForm> } = {}): void {
    const v = opts.values ?? {};
    const refund = refundable(o) && html`<form id="refund-form" class="card" method="post" action="/admin/orders/${o.moid}/refund"><h2>${o.status === 'awaiting-deposit' ? '주문 취소 (입금 전 가상계좌: 전액)' : '환불'}</h2>${csrfInput(req)}
<label>금액 (원) <input type="text" name="amount" id="refund-amount" inputmode="numeric" required value="${v.amount ?? String(remaining(o))}"${o.status === 'awaiting-deposit' ? html` readonly` : ''}></label>
<label>사유 <input type="text" name="reason" id="refund-reason" required maxlength="50" value="${v.reason ?? '고객 요청'}"></label>
${needsRefundAccount(o) && html`<fieldset id="refund-account"><legend>환불 계좌 (입금된 가상계좌)</legend>
<label>은행 ${bankSelect('bankCode', 'refund-bank', v.bankCode, BANKS)}</label>
<label>계좌번호 <input type="text" name="number" id="refund-number" required inputmode="numeric" value="${v.number ?? ''}"></label>
<label>예금주 <input type="text" name="holder" id="refund-holder" required value="${v.holder ?? ''}"></label></fieldset>`}
<div class="actions"><button type="submit" id="refund-submit">${o.status === 'awaiting-deposit' ? '주문 취소' : '환불하기'}</button></div></form>`;
    const deposit = sandbox && o.status === 'awaiting-deposit' && o.tid && remaining(o) > 0 && html`<form id="deposit-form" class="card" method="post" action="/admin/orders/${o.moid}/deposit">${csrfInput(req)}
<p class="muted">샌드박스 전용: 구매자가 가상계좌에 입금한 것으로 처리하고 입금 통보를 보냅니다.</p>
<div class="actions"><button type="submit" class="secondary" id="deposit-submit">입금 처리 (샌드박스)</button></div></form>`;
    adminPage(req, res, status, `주문 ${o.moid}`, html`${errorNotice(opts.error)}${okNotice(opts.ok)}
<div class="card"><dl id="admin-order">
<dt>상품</dt><dd>${o.goods}</dd><dt>결제수단</dt><dd>${METHOD_LABEL[o.method as PayMethod] ?? o.method ?? '-'}</dd>
<dt>거래번호</dt><dd id="admin-order-tid">${o.tid ?? '-'}</dd>
<dt>상태</dt><dd id="admin-order-status" data-status="${displayStatus(o)}">${STATUS_LABEL[displayStatus(o)] ?? o.status}</dd>
<dt>결제 금액</dt><dd id="admin-order-amount">${won(o.amount)}</dd>
<dt>환불한 금액</dt><dd id="admin-order-refunded">${won(o.refundedAmount)}</dd>
<dt>남은 금액</dt><dd id="admin-order-remaining" data-amount="${remaining(o)}">${won(remaining(o))}</dd></dl></div>
${deposit}${refund}<p><a href="/admin/orders">주문 목록으로</a></p>`);
  }

  router.get('/:moid', (req, res, next) => {
    const o = db.order(req.params.moid);
    if (!o) return next();
    const refunded = typeof req.query.refunded === 'string' ? Number(req.query.refunded) : undefined;
    const ok = req.query.deposited === '1' ? '입금 통보를 받아 주문이 결제 완료되었습니다.'
      : refunded ? `${won(refunded)}${req.query.pending === '1' ? ' 환불이 접수되었습니다 (지급 전).' : '을 취소했습니다.'}` : undefined;
    orderPage(req, res, 200, o, ok ? { ok } : {});
  });

  router.post('/:moid/refund', async (req, res, next) => {
    const o = db.order(req.params.moid);
    if (!o) return next();
    const values: RefundForm = {
      amount: field(req.body, 'amount'), reason: field(req.body, 'reason'),
      bankCode: field(req.body, 'bankCode'), number: field(req.body, 'number'), holder: field(req.body, 'holder'),
    };
    const back = (status: number, error: string): void => orderPage(req, res, status, o, { error, values });
    try {
      if (!refundable(o)) return back(409, '환불할 수 있는 주문이 아닙니다.');
      if (!/^[1-9]\d{0,11}$/.test(values.amount)) return back(400, '금액은 1원 이상의 정수(원)로 입력해 주세요.');
      const amount = Number(values.amount);
      if (amount > remaining(o)) return back(422, `남은 금액(${won(remaining(o))})보다 많이 환불할 수 없습니다.`);
      if (!values.reason) return back(400, '사유를 입력해 주세요.');
      if (needsRefundAccount(o) && !(values.bankCode && values.number && values.holder)) return back(400, '환불 계좌(은행 코드, 계좌번호, 예금주)를 입력해 주세요.');
      const partial = amount < remaining(o);
      if (field(req.body, 'confirm') !== 'yes') {
        adminPage(req, res, 200, '환불 확인', html`<form id="confirm-form" class="card" method="post" action="/admin/orders/${o.moid}/refund">${csrfInput(req)}
<p id="confirm-summary">주문 <strong id="confirm-target">${o.moid} (${o.goods})</strong>의 <strong id="confirm-amount">${won(amount)}</strong>을 ${partial ? '부분' : '전액'} ${o.status === 'awaiting-deposit' ? '취소' : '환불'}합니다${needsRefundAccount(o) ? ` (환불 계좌 ${values.bankCode} ${values.number}, ${values.holder})` : ''}. 남은 금액: ${won(remaining(o) - amount)}.</p>
${Object.entries(values).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
<input type="hidden" name="idempotencyKey" value="${randomBytes(8).toString('hex')}"><input type="hidden" name="confirm" value="yes">
<div class="actions"><button type="submit" id="confirm-submit">확인, 환불합니다</button><a class="button secondary" href="/admin/orders/${o.moid}" id="confirm-back">돌아가기</a></div></form>`);
        return;
      }
      try {
        const r = await nicepay.cancel({
          tid: o.tid!, moid: o.moid, amount, reason: values.reason, partial, remainingAmount: remaining(o),
          idempotencyKey: field(req.body, 'idempotencyKey'),
          ...(needsRefundAccount(o) ? { refundAccount: { bankCode: values.bankCode, number: values.number, holder: values.holder } } : {}),
        });
        if (r.status === 'refused') {
          audit(logger, req, 'refund.refused', { moid: o.moid, tid: o.tid, amount, code: r.code });
          return back(409, `${CANCEL_REFUSAL[r.reason] ?? CANCEL_REFUSAL.other} (코드 ${r.code})`);
        }
        if (!r.duplicate) db.addRefund(o.moid, r.cancelledAmount);
        audit(logger, req, 'refund', { moid: o.moid, tid: o.tid, amount: r.cancelledAmount, partial, outcome: r.status, duplicate: r.duplicate, remainingAmount: r.remainingAmount });
        res.redirect(303, `/admin/orders/${encodeURIComponent(o.moid)}?refunded=${r.cancelledAmount}${r.status === 'refund-pending' ? '&pending=1' : ''}`);
      } catch (err) {
        const e = operatorError(err);
        if (!e) throw err;
        audit(logger, req, 'refund.failed', { moid: o.moid, tid: o.tid, amount, code: (err as { code?: string }).code });
        back(e.status, e.message);
      }
    } catch (err) {
      next(err);
    }
  });

  router.post('/:moid/deposit', async (req, res, next) => {
    const o = db.order(req.params.moid);
    if (!o || !sandbox) return next();
    if (o.status !== 'awaiting-deposit' || !o.tid || remaining(o) <= 0) return orderPage(req, res, 409, o, { error: '입금을 기다리는 가상계좌가 아닙니다.' });
    try {
      await sandbox.deposit(o.tid);
      audit(logger, req, 'sandbox.deposit', { moid: o.moid, tid: o.tid, amount: o.amount });
      res.redirect(303, `/admin/orders/${encodeURIComponent(o.moid)}?deposited=1`);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
