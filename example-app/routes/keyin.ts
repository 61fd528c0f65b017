/**
 * Card key-in checkout (interface B) on `nicepay.keyinRouter`:
 *
 *   GET  /keyin               product picker
 *   POST /keyin/order         creates the order (amount from the product table), 303 → the card form
 *   GET  /keyin?moid=…        the card form for a pending order (server-rendered, Korean labels)
 *   POST /keyin/pay           nicepay.keyinRouter charges the order's amount from SQLite, records
 *                             the outcome, 303 → GET /orders/:moid (post/redirect/get: a refresh
 *                             of the result page never posts the card again)
 *
 * PCI: card data reaches this server. It is parsed only by keyinRouter (small limit), never
 * logged, stored, or rendered back — a form with an error comes back with the card fields
 * empty. One order is one Moid is one charge: the gateway caches declines per Moid, so a
 * retry with another card makes a new order.
 */
import express, { type Router, type NextFunction, type Request, type Response } from 'express';
import { shopRouter } from './router.js';
import { isNicepayError, type KeyinResult } from '../../src/index.js';
import { SANDBOX_TEST_CARDS } from '../../src/sandbox/keyin/cards.js';
import type { ShopContext } from '../shop-context.js';
import { checkFieldMessage } from '../korean.js';
import { html, sendPage, won, type SafeHtml } from '../views.js';
import { heldRecords } from '../package-held.js';
import { DEMO_BUYER } from './products.js';

/** The real gateway is HTTPS; a plain-HTTP gateway on loopback is the embedded sandbox. */
export function isLocalSandbox(gatewayUrl: string): boolean {
  try {
    const u = new URL(gatewayUrl);
    return u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

/** The installment plans the form offers, in months (0: lump sum); the router refuses any other. */
const INSTALLMENTS = [0, 2, 3, 6] as const;

/** The sandbox test cards' outcomes in the buyer's words (never the English outcome name). */
const OUTCOME_LABEL: Readonly<Record<string, string>> = {
  expired: '유효기간 만료',
  'lost-stolen': '분실·도난 카드',
  suspended: '거래 정지 카드',
  'limit-exceeded': '한도 초과',
};

const testCardHint = (): SafeHtml => {
  const approved = Object.entries(SANDBOX_TEST_CARDS).filter(([, c]) => c.outcome === 'approved');
  const declined = Object.entries(SANDBOX_TEST_CARDS).filter(([, c]) => c.outcome !== 'approved');
  const fmt = (n: string): string => n.replace(/(\d{4})(?=\d)/g, '$1-');
  return html`<div class="card muted" id="test-cards"><strong>샌드박스 테스트 카드</strong> (유효기간은 미래의 아무 YYMM, 예: 3012)
<ul>${approved.map(([n, c]) => html`<li>승인: <code>${fmt(n)}</code> (${c.acquName})</li>`)}
${declined.map(([n, c]) => html`<li>거절 — ${OUTCOME_LABEL[c.outcome] ?? '승인 거절'}: <code>${fmt(n)}</code> (${c.acquName})</li>`)}</ul></div>`;
};

export function keyinRoutes(ctx: ShopContext): Router {
  const { db, nicepay } = ctx;
  const onSandbox = isLocalSandbox(ctx.windowUrl);
  const router = shopRouter();

  /**
   * A pending order, or undefined (unknown, already paid, declined, or its number spent: the
   * package closed a charge of it, so the same Moid would only be answered from that record).
   */
  const pendingOrder = (moid: string) => {
    const o = db.order(moid);
    return o && o.status === 'pending' && !o.moidSpent ? o : undefined;
  };

  /**
   * The card form of a pending order; after a refused field, `error` says which (the field is
   * marked, and focused). Card data is never put back into the form: the buyer types it again.
   */
  function cardForm(res: Response, status: number, moid: string, error?: { message: string; field?: string }): void {
    const order = pendingOrder(moid)!;
    const mark = (name: string): SafeHtml | '' =>
      error?.field === name ? html` aria-invalid="true" aria-describedby="form-error" autofocus` : '';
    sendPage(
      res,
      status,
      '카드 결제',
      html`<h1>카드 정보 입력</h1>
${error && html`<p id="form-error" class="status-error">${error.message} 보안을 위해 카드 정보는 다시 입력해 주세요.</p>`}
<div class="card"><dl><dt>주문번호</dt><dd id="order-moid">${order.moid}</dd>
<dt>상품</dt><dd id="order-goods">${order.goods}</dd>
<dt>결제 금액</dt><dd id="order-amount" class="price">${won(order.amount)}</dd></dl>
<form id="keyin-form" method="post" action="/keyin/pay" autocomplete="off">
<input type="hidden" name="moid" value="${order.moid}">
<label>카드번호 <input type="text" name="cardNumber" id="card-number-input" inputmode="numeric" maxlength="23" required placeholder="1234-5678-9012-3456" autocomplete="cc-number"${mark('cardNumber')}></label>
<label>유효기간 (YYMM) <input type="text" name="cardExpiry" id="card-expiry" inputmode="numeric" maxlength="4" required placeholder="3012"${mark('cardExpiry')}></label>
<label>생년월일 (YYMMDD, 선택) <input type="text" name="buyerAuthNum" id="buyer-auth-num" inputmode="numeric" maxlength="10"${mark('buyerAuthNum')}></label>
<label>비밀번호 앞 2자리 (선택) <input type="password" name="cardPassword2" id="card-password2" inputmode="numeric" maxlength="2"${mark('cardPassword2')}></label>
<label>할부 <select name="quota" id="quota"${mark('quota')}>${INSTALLMENTS.map((m) => html`<option value="${m}">${m === 0 ? '일시불' : `${m}개월`}</option>`)}</select></label>
<input type="hidden" name="buyerName" value="${DEMO_BUYER.name}">
<button type="submit" id="keyin-submit">${won(order.amount)} 결제하기</button>
</form></div>
${onSandbox && testCardHint()}`,
    );
  }

  router.get('/', ctx.access.ownOrderOnly, async (req, res) => {
    const moid = typeof req.query.moid === 'string' ? req.query.moid : undefined;
    if (moid) {
      // No card form while the package settles a charge of it (its page says so) or once its
      // number is spent (its page offers a new order).
      const held = pendingOrder(moid) && (await heldRecords(ctx, 'keyin'));
      if (pendingOrder(moid) && held && !held.has(moid)) return cardForm(res, 200, moid);
      const settled = db.order(moid);
      if (settled && settled.channel === 'keyin')
        return res.redirect(303, ctx.access.signedLink(`/orders/${encodeURIComponent(moid)}`, moid));
      sendPage(
        res,
        404,
        '주문 없음',
        html`<h1 class="status-error">결제할 수 있는 주문이 아닙니다</h1><p><a class="line-link" href="/keyin">상품 선택으로</a></p>`,
      );
      return;
    }
    const items = db.products().map(
      (p) => html`<li class="card"><h2>${p.name}</h2><p class="price">${won(p.price)}</p>
<button type="submit" name="productId" value="${p.id}" id="keyin-buy-${p.id}">카드번호로 결제</button></li>`,
    );
    sendPage(
      res,
      200,
      '카드 직접 결제',
      html`<h1>카드 직접 결제 (키인)</h1>
<p class="muted">결제창 없이 카드 정보를 입력해 결제합니다.</p>
<form id="keyin-order-form" method="post" action="/keyin/order"><ul class="grid">${items}</ul></form>`,
    );
  });

  router.post('/order', express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 5 }), (req, res) => {
    const id = (req.body as Record<string, unknown> | undefined)?.productId;
    const product = typeof id === 'string' ? db.product(id) : undefined;
    if (!product) {
      sendPage(
        res,
        404,
        '상품 없음',
        html`<h1 class="status-error">상품을 찾을 수 없습니다</h1><p><a class="line-link" href="/keyin">돌아가기</a></p>`,
      );
      return;
    }
    const order = db.createOrder(product, DEMO_BUYER, 'keyin');
    ctx.access.grant(req, res, order.moid); // this browser owns the order (order-access.ts)
    res.redirect(303, ctx.access.signedLink(`/keyin?moid=${encodeURIComponent(order.moid)}`, order.moid));
  });

  const markPaid = db.sqlite.prepare(
    `UPDATE orders SET status = 'paid', method = 'CARD', tid = @tid, result = @result WHERE moid = @moid AND status = 'pending'`,
  );
  const markDeclined = db.sqlite.prepare(
    `UPDATE orders SET status = 'declined', method = 'CARD', result = @result WHERE moid = @moid AND status = 'pending'`,
  );

  const pay = shopRouter();
  pay.use(
    nicepay.keyinRouter({
      // The amount charged is the order's, from SQLite; a pending order only.
      // Only the order's own browser pays it here: a declined card posted with someone else's
      // order number must not mark their order declined (order-access.ts).
      expectedAmount: (moid, req) => (ctx.access.mayView(req, moid) ? pendingOrder(moid)?.amount : undefined),
      goodsName: (moid) => db.order(moid)?.goods ?? '',
      installments: INSTALLMENTS,
      // Idempotent by TID: settlement (or a recovered payment) may run it again for a payment
      // it already recorded, and throwing then would reverse a payment the order shows as paid.
      // Only another state (paid by another TID) refuses it, and so reverses this payment.
      onApproved: (r) => {
        const { changes } = markPaid.run({ moid: r.moid, tid: r.tid, result: JSON.stringify(r) });
        if (changes === 1 || db.order(r.moid)?.tid === r.tid) return;
        throw new Error(`order ${r.moid} is not pending`);
      },
      // Card data must travel over TLS; the embedded sandbox on loopback is plain HTTP.
      requireHttps: !onSandbox,
    }),
  );
  pay.post('/', (req, res) => {
    const r: KeyinResult = req.keyin!;
    if (r.status === 'declined' && !r.duplicate) {
      markDeclined.run({ moid: r.moid, result: JSON.stringify(r) });
      ctx.logger.info({ moid: r.moid, tid: r.tid, resultCode: r.code }, 'example shop: key-in declined');
    }
    // A signed link only for a payment, or for the order's own browser: a decline of an order
    // number someone else posted opens nothing.
    const page = `/orders/${encodeURIComponent(r.moid)}`;
    res.redirect(
      303,
      r.status === 'approved' || ctx.access.mayView(req, r.moid) ? ctx.access.signedLink(page, r.moid) : page,
    );
  });
  // A card field the library refused: the form again, naming the field (never its value).
  pay.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    const moid = (req.body as Record<string, unknown> | undefined)?.moid;
    if (isNicepayError(err) && err.code === 'NICEPAY_FIELD_INVALID' && typeof moid === 'string' && pendingOrder(moid)) {
      const field = (err as { field?: string }).field;
      cardForm(res, 400, moid, { message: checkFieldMessage(field), ...(field ? { field } : {}) });
      return;
    }
    next(err);
  });
  router.use('/pay', pay);
  return router;
}
