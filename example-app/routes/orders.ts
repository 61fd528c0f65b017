/**
 * `GET /orders`: the orders of this browser (order-access.ts), newest first. Nobody sees
 * another buyer's order numbers or TIDs.
 */
import { Router } from 'express';
import type { PayMethod } from '../../src/index.js';
import type { ShopContext } from '../app.js';
import { orderState } from '../order-state.js';
import { METHOD_LABEL, STATUS_LABEL, html, kstDateTime, sendPage, won } from '../views.js';

/** What buyer and operator see: the order's one state (example-app/order-state.ts). */
export const displayStatus = orderState;

export function orderRoutes({ db, access }: ShopContext): Router {
  const router = Router();
  router.get('/orders', (req, res) => {
    const mine = access.owned(req);
    const rows = db.orders().filter((o) => mine.has(o.moid)).map((o) => html`<tr data-moid="${o.moid}" data-status="${o.status}" data-display="${displayStatus(o)}">
<td class="date" data-label="주문일시">${kstDateTime(new Date(o.createdAt))}</td><td class="moid" data-label="주문번호"><a href="/orders/${o.moid}">${o.moid}</a></td><td class="goods" data-label="상품">${o.goods}</td>
<td class="amount" data-label="금액">${won(o.amount)}</td><td class="status status-${displayStatus(o)}" data-label="상태">${STATUS_LABEL[displayStatus(o)] ?? o.status}</td>
<td class="method" data-label="결제수단">${o.method ? (METHOD_LABEL[o.method as PayMethod] ?? o.method) : '-'}</td><td class="tid" data-label="거래번호">${o.tid ?? '-'}</td></tr>`);
    sendPage(res, 200, '주문 내역', html`<h1>주문 내역</h1>
${rows.length === 0
  ? html`<p id="no-orders" class="muted">아직 주문이 없습니다. <a href="/">상품 보러 가기</a></p>`
  : html`<div class="table-wrap"><table id="orders"><thead><tr><th>주문일시</th><th>주문번호</th><th>상품</th><th>금액</th><th>상태</th><th>결제수단</th><th>거래번호(TID)</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}`);
  });
  return router;
}
