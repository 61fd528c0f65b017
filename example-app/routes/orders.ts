/**
 * `GET /orders`: the orders of this browser (order-access.ts), newest first. Nobody sees
 * another buyer's order numbers or TIDs.
 */
import { Router } from 'express';
import type { PayMethod } from '../../src/index.js';
import type { ShopContext } from '../app.js';
import type { Order } from '../db.js';
import { METHOD_LABEL, STATUS_LABEL, html, kstDateTime, sendPage, won } from '../views.js';

/**
 * What buyer and operator see: a pending order the buyer left in the window reads as
 * cancelled by the buyer; a refunded order as refunded (fully or partly).
 */
export function displayStatus(o: Order): string {
  if (o.refundedAmount > 0) return o.refundedAmount >= o.amount ? 'refunded' : 'partially-refunded';
  return o.status === 'pending' && o.windowCancelledAt ? 'cancelled' : o.status;
}

export function orderRoutes({ db, access }: ShopContext): Router {
  const router = Router();
  router.get('/orders', (req, res) => {
    const mine = access.owned(req);
    const rows = db.orders().filter((o) => mine.has(o.moid)).map((o) => html`<tr data-moid="${o.moid}" data-status="${o.status}" data-display="${displayStatus(o)}">
<td>${kstDateTime(new Date(o.createdAt))}</td><td class="moid"><a href="/orders/${o.moid}">${o.moid}</a></td><td class="goods">${o.goods}</td>
<td class="amount">${won(o.amount)}</td><td class="status status-${displayStatus(o)}">${STATUS_LABEL[displayStatus(o)] ?? o.status}</td>
<td class="method">${o.method ? (METHOD_LABEL[o.method as PayMethod] ?? o.method) : '-'}</td><td class="tid">${o.tid ?? '-'}</td></tr>`);
    sendPage(res, 200, '주문 내역', html`<h1>주문 내역</h1>
${rows.length === 0
  ? html`<p id="no-orders" class="muted">아직 주문이 없습니다. <a href="/">상품 보러 가기</a></p>`
  : html`<div class="table-wrap"><table id="orders"><thead><tr><th>주문일시</th><th>주문번호</th><th>상품</th><th>금액</th><th>상태</th><th>결제수단</th><th>거래번호(TID)</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}`);
  });
  return router;
}
