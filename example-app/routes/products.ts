/**
 * `GET /`: the product list. One form holds the buyer's details and one submit button per
 * product (`#buy-<productId>`, name=productId), so the checkout POST names the product only;
 * its price is looked up on the server. The buyer's details come first, so a phone reaches
 * them without scrolling past every product. A checkout POST with a mistake re-renders this
 * page with the buyer's values and the mistaken field marked ({@link productPage}).
 */
import type { Router, Response } from 'express';
import { shopRouter } from './router.js';
import type { ShopContext } from '../shop-context.js';
import type { ShopDb } from '../db.js';
import { FAVICON_SVG, html, sendPage, won } from '../views.js';

/** The demo buyer the form starts with (a real shop takes these from the signed-in account). */
export const DEMO_BUYER = { name: '홍길동', email: 'buyer@example.com', tel: '01012345678' } as const;

/** The buyer fields of the checkout form, as posted (strings) or as the form starts. */
export interface BuyerValues {
  buyerName: string;
  buyerEmail: string;
  buyerTel: string;
}

/** A mistake in one buyer field, shown beside it. */
export interface BuyerMistake {
  field: keyof BuyerValues;
  message: string;
}

const DEMO_VALUES: BuyerValues = { buyerName: DEMO_BUYER.name, buyerEmail: DEMO_BUYER.email, buyerTel: DEMO_BUYER.tel };

/** One labelled input of the buyer form, marked invalid (with its message) when it is the mistake. */
function buyerInput(
  label: string,
  type: string,
  name: keyof BuyerValues,
  id: string,
  value: string,
  maxlength: number,
  mistake: BuyerMistake | undefined,
  required = false,
) {
  const wrong = mistake?.field === name;
  return html`<label>${label} <input type="${type}" name="${name}" id="${id}" value="${value}" maxlength="${maxlength}"${required ? html` required` : ''}${wrong ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}></label>
${wrong && html`<p class="field-error" id="${id}-error">${mistake.message}</p>`}`;
}

/** The product page, with the buyer's values and a mistake when a checkout POST was refused. */
export function productPage(
  res: Response,
  db: ShopDb,
  status = 200,
  values: BuyerValues = DEMO_VALUES,
  mistake?: BuyerMistake,
): void {
  const items = db.products().map(
    (p) => html`<li class="card" id="product-${p.id}">
<h2>${p.name}</h2><p class="muted">${p.description}</p>
<p class="price" id="price-${p.id}">${won(p.price)}</p>
<button type="submit" name="productId" value="${p.id}" id="buy-${p.id}">구매하기</button></li>`,
  );
  sendPage(
    res,
    status,
    mistake ? '입력 오류' : '상품',
    html`<h1>오늘의 상품</h1>
${mistake && html`<p class="card status-error" id="form-error" role="alert">구매자 정보를 확인해 주세요: ${mistake.message}</p>`}
<form id="checkout-form" method="post" action="/checkout">
<fieldset class="card buyer-first" id="buyer"><legend>구매자 정보</legend>
<div>${buyerInput('이름', 'text', 'buyerName', 'buyer-name', values.buyerName, 15, mistake, true)}</div>
<div>${buyerInput('이메일', 'email', 'buyerEmail', 'buyer-email', values.buyerEmail, 60, mistake)}</div>
<div>${buyerInput('휴대폰', 'tel', 'buyerTel', 'buyer-tel', values.buyerTel, 20, mistake)}</div>
</fieldset>
<ul class="grid" id="products">${items}</ul>
</form>`,
  );
}

export function productRoutes({ db }: ShopContext): Router {
  const router = shopRouter();
  router.get('/', (_req, res) => productPage(res, db));
  // The shop's icon; /favicon.ico too, for browsers and tools that ask for it without a <link>.
  router.get(['/favicon.svg', '/favicon.ico'], (_req, res) => {
    res.set('cache-control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON_SVG);
  });
  return router;
}
