/**
 * `GET /`: the product list. One form holds the buyer's details and one submit button per
 * product (`#buy-<productId>`, name=productId), so the checkout POST names the product only;
 * its price is looked up on the server.
 */
import { Router } from 'express';
import type { ShopContext } from '../app.js';
import { html, sendPage, won } from '../views.js';

/** The demo buyer the form starts with (a real shop takes these from the signed-in account). */
export const DEMO_BUYER = { name: '홍길동', email: 'buyer@example.com', tel: '01012345678' } as const;

export function productRoutes({ db }: ShopContext): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const items = db.products().map((p) => html`<li class="card" id="product-${p.id}">
<h2>${p.name}</h2><p class="muted">${p.description}</p>
<p class="price" id="price-${p.id}">${won(p.price)}</p>
<button type="submit" name="productId" value="${p.id}" id="buy-${p.id}">구매하기</button></li>`);
    sendPage(res, 200, '상품', html`<h1>오늘의 상품</h1>
<form id="checkout-form" method="post" action="/checkout">
<ul class="grid" id="products">${items}</ul>
<fieldset class="card" id="buyer"><legend>구매자 정보</legend>
<label>이름 <input type="text" name="buyerName" id="buyer-name" value="${DEMO_BUYER.name}" maxlength="15" required></label>
<label>이메일 <input type="email" name="buyerEmail" id="buyer-email" value="${DEMO_BUYER.email}" maxlength="60"></label>
<label>휴대폰 <input type="tel" name="buyerTel" id="buyer-tel" value="${DEMO_BUYER.tel}" maxlength="20"></label>
</fieldset>
</form>`);
  });
  return router;
}
