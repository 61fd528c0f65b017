/**
 * `GET /orders/:moid`: the result page of one order (issue 20, item 1: post/redirect/get).
 * The payment return and the key-in POST record the outcome and redirect here, so refresh
 * and Back only repeat this GET: nothing is charged, approved or net-cancelled again.
 *
 * What a buyer reads is Korean; gateway codes and internals go to the log (the error page
 * shows a reference number that finds the log line). The auth-failed message comes from an
 * unauthenticated post and is shown only as escaped text.
 */
import { Router } from 'express';
import type { CheckoutResult } from '../../src/index.js';
import type { ShopContext } from '../app.js';
import type { Order } from '../db.js';
import { type SafeHtml, METHOD_LABEL, html, kstDateTime, sendPage, won } from '../views.js';

/** "일시불", "3개월", "3개월 (무이자)". */
function installment(months: number, interestFree: boolean): string {
  if (months <= 0) return '일시불';
  return interestFree ? `${months}개월 (무이자)` : `${months}개월`;
}

/** Stored results keep dates as ISO strings; back to Dates. */
const date = (v: unknown): Date | undefined => (typeof v === 'string' || v instanceof Date ? new Date(v) : undefined);

/** The method details of a committed payment. */
function methodDetails(r: Extract<CheckoutResult, { status: 'approved' | 'awaiting-deposit' }>): SafeHtml {
  const p = r.payment;
  switch (p.method) {
    case 'CARD':
      return html`<dt>카드</dt><dd id="card-name">${p.card.name.endsWith('카드') ? p.card.name : `${p.card.name}카드`}</dd>
<dt>카드번호</dt><dd id="card-number">${p.card.maskedNumber}</dd>
<dt>할부</dt><dd id="card-installment">${installment(p.card.installmentMonths, p.card.interestFree)}</dd>`;
    case 'BANK':
      return html`<dt>은행</dt><dd id="bank-name">${p.bank.name}</dd>
${p.cashReceipt.type !== 'none' && html`<dt>현금영수증</dt><dd id="cash-receipt">${p.cashReceipt.type === 'income-deduction' ? '소득공제용' : '지출증빙용'} 발급</dd>`}`;
    case 'CELLPHONE':
      return html`<dt>휴대폰</dt><dd id="cellphone">${p.buyerTel || '휴대폰 소액결제'}</dd>`;
    case 'VBANK': {
      const va = p.virtualAccount;
      const expires = date(va.expiresAt);
      return html`<dt>입금 은행</dt><dd id="vbank-bank">${va.bankName}</dd>
<dt>계좌번호</dt><dd id="vbank-account">${va.accountNumber}</dd>
<dt>입금 기한</dt><dd id="vbank-deadline">${expires ? `${kstDateTime(expires)}까지` : '은행에 문의해 주세요'}</dd>`;
    }
    default: {
      const unknown: never = p;
      throw new Error(`unhandled method ${(unknown as { method: string }).method}`);
    }
  }
}

/** The buyer's way to pay the order (again): the window page or a new key-in order. */
function retry(order: Order, label: string): SafeHtml {
  return order.channel === 'keyin'
    ? html`<form method="post" action="/keyin/order" class="inline"><button type="submit" name="productId" value="${order.productId}" id="retry">${label}</button></form>`
    : html`<a class="button" href="/checkout/${order.moid}" id="retry">${label}</a>`;
}

/** Heading, page status and details of an order as the buyer sees it. */
function view(order: Order): { status: string; heading: string; body: SafeHtml | false; action: SafeHtml | false } {
  const stored = order.result ? (JSON.parse(order.result) as CheckoutResult) : undefined;
  if ((order.status === 'paid' || order.status === 'awaiting-deposit') && stored && (stored.status === 'approved' || stored.status === 'awaiting-deposit')) {
    const approvedAt = stored.status === 'approved' ? date(stored.payment.approvedAt) : undefined;
    // A virtual account becomes paid when the gateway's deposit notice arrives (/pay/notify).
    const deposited = stored.status === 'awaiting-deposit' && order.status === 'paid';
    return {
      status: deposited ? 'approved' : stored.status,
      heading: stored.status === 'approved' ? '결제가 완료되었습니다' : deposited ? '입금이 확인되어 결제가 완료되었습니다' : '가상계좌가 발급되었습니다. 입금해 주시면 주문이 완료됩니다',
      body: html`<dt>결제수단</dt><dd id="result-method">${METHOD_LABEL[stored.payment.method]}</dd>${methodDetails(stored)}
${stored.status === 'approved' && html`<dt>승인번호</dt><dd id="auth-code">${stored.payment.authCode}</dd>`}
${approvedAt && html`<dt>승인일시</dt><dd id="approved-at">${kstDateTime(approvedAt)}</dd>`}
${order.depositedAt && html`<dt>입금 확인</dt><dd id="deposited-at">${kstDateTime(new Date(order.depositedAt))}</dd>`}
${order.refundedAmount > 0 && html`<dt>환불</dt><dd id="result-refunded">${won(order.refundedAmount)}${order.refundedAmount >= order.amount ? ' (전액)' : ''}</dd>`}`,
      action: false,
    };
  }
  if (order.status === 'declined') {
    const message = stored?.status === 'declined' ? stored.message : '';
    return {
      status: 'declined',
      heading: '결제가 거절되었습니다',
      body: html`<dt>사유</dt><dd id="result-message">${message || '카드사 또는 은행이 결제를 승인하지 않았습니다.'}</dd>`,
      action: retry(order, order.channel === 'keyin' ? '다른 카드로 다시 결제' : '다시 결제하기'),
    };
  }
  if (order.windowCancelledAt) {
    return {
      status: 'auth-failed',
      heading: '결제가 취소되었습니다',
      body: html`<dt>사유</dt><dd id="result-message">${order.windowMessage || '결제창에서 결제를 마치지 않았습니다.'}</dd>`,
      action: retry(order, '다시 결제하기'),
    };
  }
  return { status: 'pending', heading: '결제를 기다리고 있습니다', body: false, action: retry(order, '결제하기') };
}

/** The result page router. */
export function resultRoutes({ db }: ShopContext): Router {
  const router = Router();
  router.get('/orders/:moid', (req, res, next) => {
    const order = db.order(req.params.moid);
    if (!order) return next();
    const { status, heading, body, action } = view(order);
    sendPage(res, 200, heading, html`<h1 id="result-status" class="status-${status}" data-status="${status}">${heading}</h1>
<div class="card"><dl id="result-details">
<dt>주문번호</dt><dd id="result-moid">${order.moid}</dd>
<dt>상품</dt><dd id="result-goods">${order.goods}</dd>
<dt>금액</dt><dd id="result-amount" data-amount="${order.amount}">${won(order.amount)}</dd>
${body}</dl></div>
<div class="actions">${action}<a class="button${action ? ' secondary' : ''}" href="/" id="continue-shopping">쇼핑 계속하기</a><a class="button secondary" href="/orders" id="orders-link">주문 내역 보기</a></div>`);
  });
  return router;
}
