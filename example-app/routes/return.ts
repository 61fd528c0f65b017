/**
 * `POST /pay/return`: where the payment window sends the buyer back. checkoutReturn reads the
 * EUC-KR body, verifies it, approves once per TID and puts the typed result on req.checkout;
 * this route records it and renders it in Korean.
 */
import { Router } from 'express';
import type { CheckoutResult } from '../../src/index.js';
import type { ShopContext } from '../app.js';
import { type SafeHtml, METHOD_LABEL, html, kstDateTime, sendPage, won } from '../views.js';

/** "일시불", "3개월", "3개월 (무이자)". */
function installment(months: number, interestFree: boolean): string {
  if (months <= 0) return '일시불';
  return interestFree ? `${months}개월 (무이자)` : `${months}개월`;
}

function details(r: CheckoutResult): { status: string; heading: string; body: SafeHtml } {
  switch (r.status) {
    case 'approved': {
      const p = r.payment;
      let method: SafeHtml;
      switch (p.method) {
        case 'CARD':
          method = html`<dt>카드</dt><dd id="card-name">${p.card.name}카드</dd>
<dt>카드번호</dt><dd id="card-number">${p.card.maskedNumber}</dd>
<dt>할부</dt><dd id="card-installment">${installment(p.card.installmentMonths, p.card.interestFree)}</dd>`;
          break;
        case 'BANK':
          method = html`<dt>은행</dt><dd id="bank-name">${p.bank.name}</dd>
${p.cashReceipt.type !== 'none' && html`<dt>현금영수증</dt><dd id="cash-receipt">${p.cashReceipt.type === 'income-deduction' ? '소득공제용' : '지출증빙용'} 발급</dd>`}`;
          break;
        case 'CELLPHONE':
          method = html`<dt>휴대폰</dt><dd id="cellphone">${p.buyerTel || '휴대폰 소액결제'}</dd>`;
          break;
        default: {
          const unknown: never = p;
          throw new Error(`unhandled method ${(unknown as { method: string }).method}`);
        }
      }
      return {
        status: r.status,
        heading: '결제가 완료되었습니다',
        body: html`<dt>결제수단</dt><dd id="result-method">${METHOD_LABEL[p.method]}</dd>${method}
<dt>승인번호</dt><dd id="auth-code">${p.authCode}</dd>
${p.approvedAt && html`<dt>승인일시</dt><dd id="approved-at">${kstDateTime(p.approvedAt)}</dd>`}`,
      };
    }
    case 'awaiting-deposit': {
      const va = r.payment.virtualAccount;
      return {
        status: r.status,
        heading: '가상계좌가 발급되었습니다. 입금해 주시면 주문이 완료됩니다',
        body: html`<dt>결제수단</dt><dd id="result-method">${METHOD_LABEL.VBANK}</dd>
<dt>입금 은행</dt><dd id="vbank-bank">${va.bankName}</dd>
<dt>계좌번호</dt><dd id="vbank-account">${va.accountNumber}</dd>
<dt>입금 기한</dt><dd id="vbank-deadline">${va.expiresAt ? `${kstDateTime(va.expiresAt)}까지` : '은행에 문의해 주세요'}</dd>`,
      };
    }
    case 'declined':
      return {
        status: r.status,
        heading: '결제가 거절되었습니다',
        body: html`<dt>사유</dt><dd id="result-message">${r.message}</dd><dt>코드</dt><dd id="result-code">${r.code}</dd>`,
      };
    case 'auth-failed':
      return {
        status: r.status,
        heading: '결제가 취소되었습니다',
        body: html`<dt>사유</dt><dd id="result-message">${r.message}</dd><dt>코드</dt><dd id="result-code">${r.code}</dd>`,
      };
    default: {
      const unknown: never = r;
      throw new Error(`unhandled checkout status ${(unknown as { status: string }).status}`);
    }
  }
}

export function returnRoutes({ db, nicepay }: ShopContext): Router {
  const router = Router();
  router.post(
    '/pay/return',
    nicepay.checkoutReturn({
      // The order's amount comes from SQLite by Moid, NOT from the session: the window posts
      // this return cross-site from the gateway's domain, so SameSite=Lax cookies (the browser
      // default) are not sent with it (gateway-facts.md, "The authentication return").
      expectedAmount: (moid) => db.orderAmount(moid),
      // Runs once per TID after the gateway committed the money. If it throws (the order was
      // already paid by another TID), checkoutReturn net-cancels this payment.
      onApproved: (result) => db.markCommitted(result),
    }),
    (req, res) => {
      const r = req.checkout!;
      // auth-failed returns carry no signature (anyone can post one), so they change nothing;
      // the order stays pending and the buyer can try again.
      if (r.status === 'declined' && !r.duplicate) db.markDeclined(r);
      const order = db.order(r.moid);
      const amount = r.status === 'auth-failed' ? order?.amount : r.amount;
      const { status, heading, body } = details(r);
      sendPage(res, 200, heading, html`<h1 id="result-status" class="status-${status}" data-status="${status}">${heading}</h1>
<div class="card"><dl id="result-details">
<dt>주문번호</dt><dd id="result-moid">${r.moid}</dd>
${order && html`<dt>상품</dt><dd id="result-goods">${order.goods}</dd>`}
${amount !== undefined && html`<dt>금액</dt><dd id="result-amount" data-amount="${amount}">${won(amount)}</dd>`}
${body}</dl></div>
<p><a class="button" href="/" id="continue-shopping">쇼핑 계속하기</a> <a href="/orders" id="orders-link">주문 내역 보기</a></p>`);
    },
  );
  return router;
}
