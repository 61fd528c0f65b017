/**
 * `GET /orders`: the orders of this browser (order-access.ts), newest first. Nobody sees
 * another buyer's order numbers or TIDs.
 */
import type { Router } from 'express';
import { shopRouter } from './router.js';
import type { PayMethod } from '../../src/index.js';
import type { ShopContext } from '../shop-context.js';
import type { Order } from '../db.js';
import { dataTable, idParts, type Column } from '../data-table.js';
import { STATE_LABEL, orderState } from '../order-state.js';
import { METHOD_LABEL, html, kstDateTime, sendPage, won } from '../views.js';

/**
 * The buyer's order list: each row's state is the order's one state (order-state.ts). Seven
 * columns in the buyer pages' frame: the order number, like the TID, may wrap between its parts.
 */
const COLUMNS: ReadonlyArray<Column<Order>> = [
  { label: '주문일시', kind: 'date', cell: (o) => kstDateTime(new Date(o.createdAt)) },
  { label: '주문번호', kind: 'moid', cell: (o) => html`<a href="/orders/${o.moid}">${idParts(o.moid)}</a>` },
  { label: '상품', kind: 'goods', cell: (o) => o.goods },
  { label: '금액', kind: 'amount', cell: (o) => won(o.amount) },
  {
    label: '상태',
    kind: 'status',
    cell: (o) => STATE_LABEL[orderState(o)],
    extraClass: (o) => `status-${orderState(o)}`,
  },
  {
    label: '결제수단',
    kind: 'method',
    cell: (o) => (o.method ? (METHOD_LABEL[o.method as PayMethod] ?? o.method) : '-'),
  },
  { label: '거래번호(TID)', kind: 'tid', cell: (o) => o.tid ?? '-' },
];

/** The order list router. */
export function orderRoutes({ db, access }: ShopContext): Router {
  const router = shopRouter();
  router.get('/orders', (req, res) => {
    const mine = access.owned(req);
    const orders = db.orders().filter((o) => mine.has(o.moid));
    sendPage(
      res,
      200,
      '주문 내역',
      html`<h1>주문 내역</h1>
${
  orders.length === 0
    ? html`<p id="no-orders" class="muted">아직 주문이 없습니다. <a href="/">상품 보러 가기</a></p>`
    : dataTable('orders', COLUMNS, orders, (o) => ({ moid: o.moid, status: o.status, display: orderState(o) }))
}`,
    );
  });
  return router;
}
