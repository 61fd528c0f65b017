/**
 * `POST /checkout`: creates the order (amount from the product table, never from the form)
 * and redirects (303) to `GET /checkout/:moid`, the order's payment page with the signed
 * window form (post/redirect/get: Back and refresh never create or pay an order twice). A paid
 * order's page says it is paid and offers no window. The window fields come from
 * `nicepay.paymentWindow` (no hand signing). The page is UTF-8; `accept-charset="euc-kr"`
 * posts the request the way the gateway's samples do, and the fields' `CharSet` (the client's
 * `charset` option, shared with checkoutReturn) is what the window answers in.
 */
import express, { type Router, type Request, type Response } from 'express';
import { shopRouter } from './router.js';
import iconv from 'iconv-lite';
import type { ShopContext } from '../shop-context.js';
import type { Buyer, Order } from '../db.js';
import { heldRecords } from '../package-held.js';
import { html, type SafeHtml, sendPage, won } from '../views.js';
import { type OrderState, type PayableState, isPayable, orderState, stateTone } from '../order-state.js';
import { type BuyerMistake, type BuyerValues, DEMO_BUYER, productPage } from './products.js';

/** Bytes of `text` in CP949, or -1 when it has characters CP949 cannot represent. */
function cp949Length(text: string): number {
  const bytes = iconv.encode(text, 'cp949');
  return iconv.decode(bytes, 'cp949') === text ? bytes.length : -1;
}

/** The buyer fields, checked against the window's byte limits (EUC-KR) and formats. */
function readBuyer(body: Record<string, unknown>): { buyer: Buyer } | { values: BuyerValues; mistake: BuyerMistake } {
  const text = (k: string, fallback: string): string =>
    typeof body[k] === 'string' ? (body[k] as string).trim() : fallback;
  const values: BuyerValues = {
    buyerName: text('buyerName', DEMO_BUYER.name),
    buyerEmail: text('buyerEmail', ''),
    buyerTel: text('buyerTel', ''),
  };
  const buyer = { name: values.buyerName, email: values.buyerEmail, tel: values.buyerTel.replace(/-/g, '') };
  const wrong = (field: keyof BuyerValues, message: string) => ({ values, mistake: { field, message } });
  const nameBytes = cp949Length(buyer.name);
  if (!buyer.name || nameBytes < 0 || nameBytes > 30)
    return wrong('buyerName', '이름은 한글 15자(30바이트) 이내로, 완성형 한글·영문으로 입력해 주세요.');
  if (buyer.email && (buyer.email.length > 60 || !/^[^\s@]+@[^\s@]+$/.test(buyer.email)))
    return wrong('buyerEmail', '이메일 주소를 확인해 주세요.');
  if (buyer.tel && !/^\d{9,20}$/.test(buyer.tel)) return wrong('buyerTel', '휴대폰 번호는 숫자로 입력해 주세요.');
  return { buyer };
}

/** What the payment page of an order that cannot be paid (any more) says instead of the window. */
const STATE_HEADING: Readonly<Record<Exclude<OrderState, PayableState>, string>> = {
  paid: '이미 결제가 완료된 주문입니다',
  'awaiting-deposit': '이미 가상계좌가 발급된 주문입니다',
  'partially-refunded': '일부 환불된 주문입니다',
  refunded: '결제가 취소되어 전액 환불된 주문입니다',
  'partial-refund-pending': '일부 환불이 접수된 주문입니다 (지급 전)',
  'refund-pending': '전액 환불이 접수된 주문입니다 (지급 전)',
  cancelled: '취소된 주문입니다. 입금하거나 다시 결제할 수 없습니다',
};

/** What an unpaid order's pages say when its window is not offered now. */
export const UNPAYABLE_NOW = {
  checking: {
    heading: '결제 결과를 확인하고 있습니다',
    text: '결제창에서 진행한 결제의 결과를 아직 받지 못해 자동으로 확인하고 있습니다. 결제되지 않은 금액은 청구되지 않습니다. 잠시 후 주문 내역에서 다시 확인해 주세요.',
  },
  spent: {
    heading: '이 주문번호로는 다시 결제할 수 없습니다',
    text: '이전 결제가 취소되어 같은 주문번호로는 결제할 수 없습니다. 같은 상품을 새 주문으로 결제해 주세요.',
  },
} as const;

/** A button that places the same product again as a new order, for the same buyer (POST /checkout). */
export function newOrderButton(order: Order, label: string, id: string): SafeHtml {
  return html`<form method="post" action="/checkout" class="inline">
<input type="hidden" name="buyerName" value="${order.buyerName}"><input type="hidden" name="buyerEmail" value="${order.buyerEmail}"><input type="hidden" name="buyerTel" value="${order.buyerTel}">
<button type="submit" name="productId" value="${order.productId}" id="${id}">${label}</button></form>`;
}

export function checkoutRoutes(ctx: ShopContext): Router {
  const { db, nicepay } = ctx;
  const router = shopRouter();
  const returnUrl = (req: Request): string => `${ctx.publicUrl ?? `${req.protocol}://${req.get('host')}`}/pay/return`;

  router.post('/checkout', express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 20 }), (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const product = typeof body.productId === 'string' ? db.product(body.productId) : undefined;
    if (!product) {
      sendPage(
        res,
        404,
        '상품 없음',
        html`<h1 class="status-error">상품을 찾을 수 없습니다</h1><p><a class="line-link" href="/">상품 목록으로</a></p>`,
      );
      return;
    }
    const read = readBuyer(body);
    if (!('buyer' in read)) {
      // The form again, with what the buyer typed and the mistake beside its field.
      productPage(res, db, 400, read.values, read.mistake);
      return;
    }
    const order = db.createOrder(product, read.buyer);
    ctx.access.grant(req, res, order.moid); // this browser owns the order (order-access.ts)
    res.redirect(303, ctx.access.signedLink(`/checkout/${encodeURIComponent(order.moid)}`, order.moid));
  });

  router.get('/checkout/:moid', ctx.access.ownOrderOnly, async (req, res, next) => {
    const order = db.order(req.params.moid);
    if (order?.channel !== 'window') return next();
    // The payment page agrees with the result page: only a payable order gets the window.
    const state = orderState(order);
    if (!isPayable(state)) {
      sendPage(
        res,
        200,
        STATE_HEADING[state],
        html`<h1 id="order-paid" class="tone-${stateTone(state)}" data-state="${state}">${STATE_HEADING[state]}</h1>
<div class="card"><dl><dt>주문번호</dt><dd id="order-moid" class="moid">${order.moid}</dd><dt>상품</dt><dd id="order-goods">${order.goods}</dd>
<dt>결제 금액</dt><dd id="order-amount" class="amount">${won(order.amount)}</dd></dl></div>
<div class="actions"><a class="button" href="/orders/${order.moid}" id="result-link">주문 상태 보기</a><a class="button secondary" href="/">쇼핑 계속하기</a></div>`,
      );
      return;
    }
    // The window again only for an order number the gateway still takes, and only when no
    // approval of it is being settled (a second payment would be refused as a duplicate order).
    if (order.moidSpent) return orderNotice(res, order, 'spent');
    const held = await heldRecords(ctx, 'approval');
    if (held === undefined || held.has(order.moid)) return orderNotice(res, order, 'checking');
    windowPage(req, res, order);
  });

  /** An unpaid order whose window is not offered now: being checked, or its number spent. */
  function orderNotice(res: Response, order: Order, why: 'checking' | 'spent'): void {
    const { heading, text } = UNPAYABLE_NOW[why];
    sendPage(
      res,
      200,
      heading,
      html`<h1 id="order-${why}" class="tone-${why === 'checking' ? 'wait' : 'bad'}">${heading}</h1>
<p class="card">${text}</p>
<div class="card"><dl><dt>주문번호</dt><dd id="order-moid" class="moid">${order.moid}</dd><dt>상품</dt><dd id="order-goods">${order.goods}</dd>
<dt>결제 금액</dt><dd id="order-amount" class="amount">${won(order.amount)}</dd></dl></div>
<div class="actions">${why === 'spent' ? newOrderButton(order, '새 주문으로 결제하기', 'new-order') : html`<a class="button" href="/orders/${order.moid}" id="result-link">주문 상태 보기</a>`}<a class="button secondary" href="/">쇼핑 계속하기</a></div>`,
    );
  }

  /** The order summary and the signed window form (a fresh EdiDate on every view). */
  function windowPage(req: Request, res: Response, order: Order): void {
    // nicepay.paymentWindow signs the request (EdiDate in KST from the client's clock,
    // SignData over EdiDate+MID+Amt+key) and checks every size in the window's charset; the
    // merchant key never leaves the server.
    const fields = nicepay.paymentWindow({
      moid: order.moid,
      amount: order.amount,
      goodsName: order.goods,
      returnUrl: returnUrl(req),
      buyer: {
        name: order.buyerName,
        ...(order.buyerEmail ? { email: order.buyerEmail } : {}),
        ...(order.buyerTel ? { tel: order.buyerTel } : {}),
      },
    });
    const inputs = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">\n`);
    sendPage(
      res,
      200,
      '주문 확인',
      html`<h1>주문 확인</h1>
${order.status === 'declined' && html`<p class="card status-declined" id="retry-note">이전 결제가 거절되었습니다. 다시 결제할 수 있습니다.</p>`}
<div class="card"><dl id="order-summary">
<dt>주문번호</dt><dd id="order-moid" class="moid">${order.moid}</dd>
<dt>상품</dt><dd id="order-goods">${order.goods}</dd>
<dt>결제 금액</dt><dd id="order-amount" class="price">${won(order.amount)}</dd>
<dt>구매자</dt><dd id="order-buyer">${order.buyerName}</dd></dl>
<form id="pay-form" method="post" action="${ctx.windowUrl}/window" accept-charset="euc-kr">
${inputs}<div class="actions"><button type="submit" id="pay-submit">${won(order.amount)} 결제하기</button></div>
</form>
<p class="muted">결제창에서 결제수단(신용카드·계좌이체·가상계좌·휴대폰)을 선택합니다.</p></div>`,
    );
  }
  return router;
}
