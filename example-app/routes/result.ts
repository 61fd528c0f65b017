/**
 * `GET /orders/:moid`: the result page of one order (post/redirect/get).
 * The payment return and the key-in POST record the outcome and redirect here, so refresh
 * and Back only repeat this GET: nothing is charged, approved or net-cancelled again.
 *
 * What a buyer reads is Korean; gateway codes and internals go to the log (the error page
 * shows a reference number that finds the log line). The auth-failed message comes from an
 * unauthenticated post and is shown only as escaped text.
 */
import type { Router } from 'express';
import { shopRouter } from './router.js';
import type { CheckoutResult } from '../../src/index.js';
import type { ShopContext } from '../shop-context.js';
import type { Order } from '../db.js';
import { type SafeHtml, METHOD_LABEL, html, kstDateTime, sendPage, won } from '../views.js';
import { type OrderState, depositDeadlinePassed, isPayable, orderState, stateTone } from '../order-state.js';
import { cardCompany } from '../korean.js';
import { heldRecords } from '../package-held.js';
import { newOrderButton, UNPAYABLE_NOW } from './checkout.js';

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
      return html`<dt>카드</dt><dd id="card-name">${cardCompany(p.card.code, p.card.name)}</dd>
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

/** What the result page says about an order: its headline first, then the details. */
interface ResultView {
  /** The page's result status (`data-status`), in the checkout result's words. */
  status: string;
  heading: string;
  /** A line under the heading that says what the buyer should (not) do now. */
  note: string | false;
  body: SafeHtml | false;
  action: SafeHtml | false;
}

/**
 * The page's `data-status`, derived from the one order state: a paid order reads as the
 * checkout result did (`approved`), a buyer who left the window as `auth-failed`.
 */
const PAGE_STATUS: Readonly<Record<OrderState, string>> = {
  pending: 'pending',
  'window-left': 'auth-failed',
  'awaiting-deposit': 'awaiting-deposit',
  paid: 'approved',
  'partially-refunded': 'partially-refunded',
  refunded: 'refunded',
  cancelled: 'cancelled',
  declined: 'declined',
  'partial-refund-pending': 'partial-refund-pending',
  'refund-pending': 'refund-pending',
};

/** A paid virtual account's refund is paid out to a bank account, not back to the means of payment. */
const toAccount = (o: Order): boolean => o.method === 'VBANK';

/** The headline of each state; refunds and cancels are said before anything about paying. */
function headline(state: OrderState, o: Order, depositArrived: boolean): { heading: string; note: string | false } {
  switch (state) {
    case 'refunded':
      return {
        heading: '결제가 취소되어 전액 환불되었습니다',
        note: toAccount(o)
          ? `${won(o.refundedAmount)}이 환불 계좌로 지급되었습니다.`
          : `${won(o.refundedAmount)}이 결제수단으로 돌아갑니다.`,
      };
    case 'partially-refunded':
      return {
        heading: `결제 금액 중 ${won(o.refundedAmount)}이 환불되었습니다`,
        note: `남은 결제 금액은 ${won(o.amount - o.refundedAmount)}입니다.`,
      };
    // Accepted by the gateway, not paid out yet: never said as done.
    case 'refund-pending':
      return {
        heading: '환불이 접수되었습니다 (지급 전)',
        note: `${won(o.refundPendingAmount)}은 아직 지급되지 않았습니다. 환불 계좌로 지급되면 이 페이지에 표시됩니다.`,
      };
    case 'partial-refund-pending':
      return {
        heading: `결제 금액 중 ${won(o.refundedAmount)}의 환불이 접수되었습니다 (지급 전)`,
        note: `${won(o.refundPendingAmount)}은 아직 환불 계좌로 지급되지 않았습니다. 남은 결제 금액은 ${won(o.amount - o.refundedAmount)}입니다.`,
      };
    case 'cancelled':
      return {
        heading: '주문이 취소되었습니다',
        note: '입금 전에 취소되어 가상계좌가 닫혔습니다. 이 주문에는 입금하지 마세요.',
      };
    case 'paid':
      return {
        heading: depositArrived ? '입금이 확인되어 결제가 완료되었습니다' : '결제가 완료되었습니다',
        note: false,
      };
    case 'awaiting-deposit':
      return { heading: '가상계좌가 발급되었습니다. 입금해 주시면 주문이 완료됩니다', note: false };
    case 'declined':
      return { heading: '결제가 거절되었습니다', note: false };
    case 'window-left':
      return { heading: '결제가 취소되었습니다', note: false };
    case 'pending':
      return { heading: '결제를 기다리고 있습니다', note: false };
  }
}

/**
 * Heading, page status and details of an order as the buyer sees it, all from its one state;
 * `checking`: the package is settling an approval of it.
 */
function view(order: Order, sandboxDeposit: boolean, checking: boolean, now: Date): ResultView {
  const state = orderState(order);
  const stored = order.result ? (JSON.parse(order.result) as CheckoutResult) : undefined;
  const committed =
    stored && (stored.status === 'approved' || stored.status === 'awaiting-deposit') ? stored : undefined;
  const depositArrived =
    order.depositedAt !== null || (stored?.status === 'awaiting-deposit' && order.status === 'paid');
  const { heading, note } = headline(state, order, depositArrived);
  const status = PAGE_STATUS[state];
  if (committed) {
    const approvedAt = committed.status === 'approved' ? date(committed.payment.approvedAt) : undefined;
    // A cancelled, never-paid virtual account shows neither its number nor its deadline:
    // nothing on the page may read as an account to pay into.
    const details =
      state === 'cancelled'
        ? html`<dt>입금 은행</dt><dd id="vbank-bank">${committed.payment.method === 'VBANK' ? committed.payment.virtualAccount.bankName : ''}</dd>
<dt>계좌</dt><dd id="vbank-closed">취소되어 입금할 수 없습니다</dd>`
        : methodDetails(committed);
    return {
      status,
      heading,
      note,
      body: html`<dt>결제수단</dt><dd id="result-method">${METHOD_LABEL[committed.payment.method]}</dd>${details}
${committed.status === 'approved' && html`<dt>승인번호</dt><dd id="auth-code">${committed.payment.authCode}</dd>`}
${approvedAt && html`<dt>승인일시</dt><dd id="approved-at">${kstDateTime(approvedAt)}</dd>`}
${order.depositedAt && html`<dt>입금 확인</dt><dd id="deposited-at">${kstDateTime(new Date(order.depositedAt))}</dd>`}
${order.refundedAmount > 0 && html`<dt>${state === 'cancelled' ? '취소' : '환불'}</dt><dd id="result-refunded" class="amount">${won(order.refundedAmount)}${order.refundedAmount >= order.amount ? ' (전액)' : ''}</dd>`}
${order.refundedAmount > 0 && state !== 'cancelled' && toAccount(order) && html`<dt>환불 지급</dt><dd id="result-refund-payout" data-pending="${order.refundPendingAmount}">${order.refundPendingAmount > 0 ? `지급 전 (${won(order.refundPendingAmount)})` : '환불 계좌로 지급 완료'}</dd>`}`,
      action:
        state === 'awaiting-deposit' &&
        sandboxDeposit &&
        !depositDeadlinePassed(order, now) &&
        html`<form method="post" action="/orders/${order.moid}/sandbox-deposit" class="inline" id="sandbox-deposit-form" title="샌드박스 전용: 은행에서 이 계좌로 입금한 것처럼 처리하고, 게이트웨이의 입금 통보로 주문이 완료됩니다"><button type="submit" id="sandbox-deposit">입금하기 (샌드박스)</button></form>`,
    };
  }
  // An unpaid window order whose window is not offered now (checkout.ts): being checked, or its
  // number spent, in which case the same product is ordered anew.
  const unpayable = isPayable(state) ? (order.moidSpent ? 'spent' : checking ? 'checking' : undefined) : undefined;
  if (unpayable) {
    return {
      status,
      heading: UNPAYABLE_NOW[unpayable].heading,
      note: UNPAYABLE_NOW[unpayable].text,
      body: false,
      action:
        unpayable === 'spent' &&
        (order.channel === 'keyin'
          ? retry(order, '새 주문으로 결제하기')
          : newOrderButton(order, '새 주문으로 결제하기', 'retry')),
    };
  }
  if (state === 'declined') {
    const message = stored?.status === 'declined' ? stored.message : '';
    return {
      status,
      heading,
      note,
      body: html`<dt>사유</dt><dd id="result-message">${message || '카드사 또는 은행이 결제를 승인하지 않았습니다.'}</dd>`,
      action: retry(order, order.channel === 'keyin' ? '다른 카드로 다시 결제' : '다시 결제하기'),
    };
  }
  if (state === 'window-left') {
    return {
      status,
      heading,
      note,
      body: html`<dt>사유</dt><dd id="result-message">${order.windowMessage || '결제창에서 결제를 마치지 않았습니다.'}</dd>`,
      action: retry(order, '다시 결제하기'),
    };
  }
  return { status, heading, note, body: false, action: isPayable(state) && retry(order, '결제하기') };
}

/** The result page router. */
export function resultRoutes(ctx: ShopContext): Router {
  const { db, sandbox, logger, access } = ctx;
  const router = shopRouter();
  router.get('/orders/:moid', access.ownOrderOnly, async (req, res, next) => {
    const order = db.order(req.params.moid);
    if (!order) return next();
    const state = orderState(order);
    const held = isPayable(state)
      ? await heldRecords(ctx, order.channel === 'keyin' ? 'keyin' : 'approval')
      : undefined;
    const { status, heading, note, body, action } = view(
      order,
      sandbox !== undefined,
      held?.has(order.moid) === true,
      ctx.clock(),
    );
    sendPage(
      res,
      200,
      heading,
      html`<h1 id="result-status" class="status-${status} tone-${stateTone(state)}" data-status="${status}" data-state="${state}">${heading}</h1>
${note && html`<p id="result-note" class="card tone-${stateTone(state)}">${note}</p>`}
<div class="card"><dl id="result-details">
<dt>주문번호</dt><dd id="result-moid" class="moid">${order.moid}</dd>
<dt>상품</dt><dd id="result-goods">${order.goods}</dd>
<dt>금액</dt><dd id="result-amount" data-amount="${order.amount}">${won(order.amount)}</dd>
${body}</dl></div>
<div class="actions">${action}<a class="button${action ? ' secondary' : ''}" href="/" id="continue-shopping">쇼핑 계속하기</a><a class="button secondary" href="/orders" id="orders-link">주문 내역 보기</a></div>`,
    );
  });
  // Sandbox only: the buyer's "I paid" for a virtual account. The sandbox marks the account
  // paid and posts its deposit notice (unsigned, like the gateway's) to /pay/notify; that
  // notice, not this request, is what turns the order paid, exactly as with the real gateway.
  router.post('/orders/:moid/sandbox-deposit', access.ownOrderOnly, async (req, res, next) => {
    const order = db.order(req.params.moid);
    if (!order || !sandbox) return next();
    try {
      // Past its deadline the bank takes no deposit: the page says so, and offers none.
      if (orderState(order) === 'awaiting-deposit' && order.tid && !depositDeadlinePassed(order, ctx.clock())) {
        await sandbox.deposit(order.tid);
        logger.info({ moid: order.moid, tid: order.tid }, 'example shop: sandbox deposit from the buyer page');
      }
      res.redirect(303, `/orders/${encodeURIComponent(order.moid)}`);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
